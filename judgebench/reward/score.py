"""Scoring stored BigCodeReward runs: no API call, no dataset read, deterministic for a seed."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from judgebench.data.errors import DatasetError
from judgebench.metrics.agreement import CLASSES_3, CLASSES_4, agreement, label_index
from judgebench.metrics.paired import item_verdicts, paired_accuracy, position_consistency
from judgebench.metrics.ratings import Outcomes, bt_table, elo_table, rating_correlation
from judgebench.records import Judgment, Vote
from judgebench.reward.summary import read_battle_index
from judgebench.runner.store import JudgmentStore

SCORE = {Vote.A: 1.0, Vote.B: 0.0, Vote.TIE: 0.5, Vote.BOTH_BAD: 0.5}


@dataclass(frozen=True)
class ScoreSettings:
    rounds: int = 1000
    seed: int = 0
    parity: bool = False  # upstream conventions: 90% intervals, Elo as the headline rating

    @property
    def level(self) -> float:
        return 0.90 if self.parity else 0.95


@dataclass
class LoadedRun:
    run_dir: Path
    manifest: dict[str, Any]
    judgments: list[Judgment]
    battles: dict[str, dict[str, Any]]

    @property
    def judge(self) -> str:
        return self.manifest["judge"]["name"]

    @property
    def kind(self) -> str:
        return self.manifest["judge"].get("kind", "llm")

    @property
    def style(self) -> str:
        return self.manifest["judge"].get("prompt_style", "parity")

    @property
    def mode(self) -> str:
        return self.manifest["mode"]

    @property
    def dataset(self) -> str:
        return self.manifest["dataset"]["spec"] or "default"

    def human(self) -> dict[str, Vote | None]:
        return {bid: Vote(row["vote"]) if row.get("vote") else None for bid, row in self.battles.items()}


def load_run(run_dir: Path) -> LoadedRun:
    manifest_path = run_dir / "manifest.json"
    if not manifest_path.exists() or not (run_dir / JudgmentStore.FILE).exists():
        raise DatasetError(f"{run_dir} is not a judgebench run directory (no manifest.json / judgments.sqlite)")
    store = JudgmentStore(run_dir)
    try:
        judgments = list(store)
    finally:
        store.close()
    return LoadedRun(run_dir, json.loads(manifest_path.read_text()), judgments, read_battle_index(run_dir))


def find_runs(root: Path) -> list[Path]:
    return sorted(p.parent for p in root.rglob("manifest.json") if (p.parent / JudgmentStore.FILE).exists())


def _group_key(row: dict[str, Any], field: str) -> str:
    if field == "category":
        return row.get("category") or "unknown"
    a, b = (row.get(side, {}).get(field) or "none" for side in ("a", "b"))
    return a if a == b else "mixed"


def _arrays(items: dict[str, Vote | None], human: dict[str, Vote | None], ids: list[str],
            classes: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    true = np.array([label_index(human[i], classes) for i in ids], dtype=int)  # type: ignore[arg-type]
    pred = np.array([label_index(items[i], classes) if items.get(i) else -1 for i in ids], dtype=int)
    return true, pred


def score_run(run: LoadedRun, settings: ScoreSettings) -> dict[str, Any]:
    human = run.human()
    items, both_orders = item_verdicts(run.judgments)
    ids = [i for i in run.battles if i in items and human.get(i) is not None]
    failures = Counter(j.failure.value for j in run.judgments if j.failure)
    result: dict[str, Any] = {
        "run_dir": str(run.run_dir), "judge": run.judge, "kind": run.kind, "style": run.style, "mode": run.mode,
        "dataset": run.dataset, "dataset_fingerprint": run.manifest.get("dataset_fingerprint"),
        "template_hash": run.manifest.get("template_hash"), "judge_fingerprint": run.manifest.get("judge_fingerprint"),
        "both_orders": both_orders, "judgments": len(run.judgments), "items": len(ids),
        "items_with_verdict": sum(1 for i in ids if items.get(i)), "failures": dict(failures),
        "level": settings.level, "rounds": settings.rounds, "seed": settings.seed,
    }
    result["coverage"] = result["items_with_verdict"] / len(ids) if ids else None
    for classes, name in ((CLASSES_3, "3class"), (CLASSES_4, "4class")):
        true, pred = _arrays(items, human, ids, classes)
        for as_wrong in (False, True):
            view = "strict" if as_wrong else "valid"
            result[f"agreement_{name}_{view}"] = agreement(
                true, pred, classes, failures_as_wrong=as_wrong, rounds=settings.rounds, level=settings.level,
                seed=settings.seed).to_dict()
    for field in ("category", "language", "environment"):
        groups: dict[str, list[str]] = defaultdict(list)
        for i in ids:
            groups[_group_key(run.battles[i], field)].append(i)
        result[f"by_{field}"] = {
            g: agreement(*_arrays(items, human, members, CLASSES_3), CLASSES_3, failures_as_wrong=False,
                         rounds=settings.rounds, level=settings.level, seed=settings.seed).to_dict()
            for g, members in sorted(groups.items())}
    if both_orders:
        result["position"] = position_consistency(run.judgments, human).to_dict()
    result["cost"] = _cost(run)
    return result


def _cost(run: LoadedRun) -> dict[str, Any]:
    sessions = run.manifest.get("sessions", [])
    judged = sum(s.get("judged", 0) for s in sessions)
    dollars = sum(s.get("cost_usd", 0.0) for s in sessions)
    seconds = sum(s.get("wall_s", 0.0) for s in sessions)
    return {"judged": judged, "usd": dollars, "wall_s": seconds, "calls": sum(s.get("calls", 0) for s in sessions),
            "usd_per_1k": 1000 * dollars / judged if judged else None,
            "seconds_per_1k": 1000 * seconds / judged if judged else None}


def compare_modes(with_run: LoadedRun, without_run: LoadedRun, settings: ScoreSettings) -> dict[str, Any]:
    """Paired on the battles where both modes gave a verdict (the upstream 'valid' view)."""
    human = with_run.human()
    w, _ = item_verdicts(with_run.judgments)
    wo, _ = item_verdicts(without_run.judgments)
    ids = [i for i in with_run.battles if human.get(i) and w.get(i) and wo.get(i)]

    def correct(verdicts: dict[str, Vote | None], members: list[str]) -> np.ndarray:
        return np.array([verdicts[i].merged is human[i].merged for i in members], dtype=bool)  # type: ignore[union-attr]

    def compare(members: list[str]) -> dict[str, Any]:
        return paired_accuracy(correct(w, members), correct(wo, members), rounds=settings.rounds,
                               level=settings.level, seed=settings.seed).to_dict()

    by_category: dict[str, list[str]] = defaultdict(list)
    for i in ids:
        by_category[with_run.battles[i].get("category") or "unknown"].append(i)
    return {"judge": with_run.judge, "style": with_run.style, "overall": compare(ids),
            "by_category": {c: compare(m) for c, m in sorted(by_category.items())}}


def _outcomes(run: LoadedRun, verdicts: dict[str, Vote | None]) -> list[tuple[str, str, float]]:
    rows = []
    for bid, meta in run.battles.items():
        vote = verdicts.get(bid)
        if vote is not None:
            rows.append((meta["a"]["model"], meta["b"]["model"], SCORE[vote]))
    return rows


def model_ratings(run: LoadedRun, settings: ScoreSettings) -> dict[str, Any]:
    """Human-vote and judge-vote ratings of the generator models, and how well they agree."""
    human = run.human()
    judge, _ = item_verdicts(run.judgments)
    human_rows, judge_rows = _outcomes(run, human), _outcomes(run, judge)
    models = tuple(sorted({m for r in human_rows for m in r[:2]}))
    if len(models) < 2 or not judge_rows:
        return {"models": list(models), "note": "too few models or verdicts to rate"}
    kwargs = {"rounds": settings.rounds, "seed": settings.seed}
    h_out, j_out = Outcomes.build(human_rows, models), Outcomes.build(judge_rows, models)
    both_ids = [b for b in run.battles if human.get(b) and judge.get(b)]
    joint = Outcomes.build(_outcomes(run, {b: human[b] for b in both_ids}), models)
    judged = Outcomes.build(_outcomes(run, {b: judge[b] for b in both_ids}), models)
    return {
        "human_bt": bt_table(h_out, level=settings.level, **kwargs).to_dict(),
        "judge_bt": bt_table(j_out, level=settings.level, **kwargs).to_dict(),
        "human_elo": elo_table(h_out, level=0.90, **kwargs).to_dict(),
        "judge_elo": elo_table(j_out, level=0.90, **kwargs).to_dict(),
        "correlation": rating_correlation(models, joint.a, joint.b, joint.score, judged.score,
                                          level=settings.level, **kwargs),
    }


def score_runs(run_dirs: list[Path], settings: ScoreSettings) -> dict[str, Any]:
    runs = [load_run(d) for d in run_dirs]
    scored = [score_run(r, settings) for r in runs]
    by_setup: dict[tuple[str, str, str], dict[str, LoadedRun]] = defaultdict(dict)
    for r in runs:
        by_setup[(r.dataset, r.judge, r.style)][r.mode] = r
    paired = [compare_modes(modes["with"], modes["without"], settings)
              for modes in by_setup.values() if "with" in modes and "without" in modes]
    ratings = {f"{r.judge} / {r.style} / {r.mode}": model_ratings(r, settings) for r in runs}
    return {"settings": {"rounds": settings.rounds, "seed": settings.seed, "level": settings.level,
                         "parity": settings.parity},
            "runs": scored, "paired": paired, "ratings": ratings}
