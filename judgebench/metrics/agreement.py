"""Agreement of judge verdicts with reference labels, from confusion matrices.

Labels are small integers. The 3-class view (A, B, tie+both_bad) is the paper's headline metric.
A judge failure is an extra predicted class that matches no label: excluded in the upstream view,
counted as wrong in the strict view.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from judgebench.records import Vote

CLASSES_3 = ("A", "B", "tie")
CLASSES_4 = ("A", "B", "tie", "both_bad")


def label_index(vote: Vote, classes: tuple[str, ...]) -> int:
    value = vote.merged.value if len(classes) == 3 else vote.value
    return classes.index(value)


def confusion(true: np.ndarray, pred: np.ndarray, k: int) -> np.ndarray:
    """k x (k+1) counts; column k holds failures (pred == -1)."""
    pred = np.where(pred < 0, k, pred)
    return np.bincount(true * (k + 1) + pred, minlength=k * (k + 1)).reshape(k, k + 1).astype(float)


def scores_from_confusion(cm: np.ndarray) -> dict[str, np.ndarray]:
    """Accuracy, macro-F1, Cohen's kappa and multiclass MCC for one or a stack of matrices.

    cm has shape (..., k, k+1) with failures in the last column. Failures count as wrong predictions
    that belong to no class (they lower recall, never precision). Vectorised over leading axes so a
    thousand bootstrap matrices cost one call.
    """
    k = cm.shape[-2]
    n = cm.sum(axis=(-2, -1))
    diag = np.diagonal(cm[..., :k], axis1=-2, axis2=-1)
    true_tot = cm.sum(axis=-1)
    pred_tot = cm[..., :k].sum(axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        accuracy = diag.sum(axis=-1) / n
        precision = np.where(pred_tot > 0, diag / pred_tot, 0.0)
        recall = np.where(true_tot > 0, diag / true_tot, 0.0)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
        present = true_tot > 0  # macro average over classes present in the labels, as sklearn does with labels=
        macro_f1 = (f1 * present).sum(axis=-1) / np.maximum(present.sum(axis=-1), 1)
        # Kappa and MCC on the k x k matrix with failures as a (k+1)-th predicted class.
        pred_tot_all = cm.sum(axis=-2)
        true_tot_all = np.concatenate([true_tot, np.zeros_like(true_tot[..., :1])], axis=-1)
        expected = (true_tot_all * pred_tot_all).sum(axis=-1) / n**2
        kappa = (accuracy - expected) / (1 - expected)
        c, s = diag.sum(axis=-1), n
        cov_tp = c * s - (true_tot_all * pred_tot_all).sum(axis=-1)
        cov_pp = s**2 - (pred_tot_all**2).sum(axis=-1)
        cov_tt = s**2 - (true_tot_all**2).sum(axis=-1)
        mcc = np.where(cov_pp * cov_tt > 0, cov_tp / np.sqrt(cov_pp * cov_tt), 0.0)
    return {"accuracy": accuracy, "macro_f1": macro_f1, "kappa": kappa, "mcc": mcc}


def bootstrap_confusions(cm: np.ndarray, rounds: int, rng: np.random.Generator) -> np.ndarray:
    """Resampling n items with replacement == drawing the cell counts from Multinomial(n, cells/n)."""
    n = int(cm.sum())
    if n == 0:
        return np.zeros((rounds, *cm.shape))
    draws = rng.multinomial(n, (cm / n).ravel(), size=rounds)
    return draws.reshape(rounds, *cm.shape).astype(float)


def interval(samples: np.ndarray, level: float) -> tuple[float, float]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(finite, [50 * (1 - level), 50 * (1 + level)])
    return (float(lo), float(hi))


@dataclass(frozen=True)
class AgreementResult:
    n: int
    n_failed: int
    point: dict[str, float]
    ci: dict[str, tuple[float, float]]
    confusion: list[list[int]]
    classes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "n_failed": self.n_failed, "classes": list(self.classes),
                "confusion": self.confusion, **{k: {"value": v, "ci": list(self.ci[k])} for k, v in self.point.items()}}


def agreement(true: np.ndarray, pred: np.ndarray, classes: tuple[str, ...], *, failures_as_wrong: bool,
              rounds: int, level: float, seed: int) -> AgreementResult:
    """pred == -1 marks a failure. Without failures_as_wrong those items are left out (upstream view)."""
    true = np.asarray(true, dtype=int)
    pred = np.asarray(pred, dtype=int)
    failed = int((pred < 0).sum())
    if not failures_as_wrong:
        keep = pred >= 0
        true, pred = true[keep], pred[keep]
    k = len(classes)
    cm = confusion(true, pred, k)
    n = int(cm.sum())
    if n == 0:
        nan = {m: float("nan") for m in ("accuracy", "macro_f1", "kappa", "mcc")}
        return AgreementResult(0, failed, nan, {m: (float("nan"),) * 2 for m in nan}, cm.astype(int).tolist(), classes)
    point = {m: float(v) for m, v in scores_from_confusion(cm).items()}
    boot = scores_from_confusion(bootstrap_confusions(cm, rounds, np.random.default_rng(seed)))
    ci = {m: interval(boot[m], level) for m in point}
    return AgreementResult(n, failed, point, ci, cm.astype(int).tolist(), classes)
