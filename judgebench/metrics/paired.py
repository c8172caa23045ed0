"""Two orders of one judge, and two modes of one judge, compared item by item."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgebench.metrics.agreement import interval
from judgebench.records import Judgment, Order, Vote


def combine_orders(ab: Vote | None, ba: Vote | None) -> Vote | None:
    """The documented rule: both orders must give a verdict; if they disagree, the item is a tie.

    A judge that flips its answer when the sides are swapped has no preference it can defend, so the
    honest reading of a flip is "no preference". An item with a failure in either order has no
    combined verdict (it counts against coverage), so a judge cannot gain by failing selectively.
    """
    if ab is None or ba is None:
        return None
    return ab if ab == ba else Vote.TIE


def item_verdicts(judgments: Iterable[Judgment]) -> tuple[dict[str, Vote | None], bool]:
    """Per battle: the combined verdict when both orders were judged, else the A/B verdict.

    Returns the verdicts and whether the run had both orders."""
    by_battle: dict[str, dict[Order, Judgment]] = {}
    for j in judgments:
        by_battle.setdefault(j.battle_id, {})[j.order] = j
    both = any(len(orders) == 2 for orders in by_battle.values())
    out: dict[str, Vote | None] = {}
    for battle_id, orders in by_battle.items():
        if both:
            if len(orders) < 2:
                out[battle_id] = None
                continue
            out[battle_id] = combine_orders(orders[Order.AB].verdict, orders[Order.BA].verdict)
        else:
            only = next(iter(orders.values()))
            out[battle_id] = only.verdict
    return out, both


@dataclass(frozen=True)
class PositionConsistency:
    pairs: int  # battles with a verdict in both orders
    flip_rate: float
    first_slot_rate: float  # share of decisive presented verdicts that picked the first slot
    decisive: int
    consistent_accuracy: float
    consistent_n: int

    def to_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def position_consistency(judgments: Iterable[Judgment], human: Mapping[str, Vote | None]) -> PositionConsistency:
    by_battle: dict[str, dict[Order, Judgment]] = {}
    presented: list[Vote] = []
    for j in judgments:
        by_battle.setdefault(j.battle_id, {})[j.order] = j
        if j.presented_verdict in (Vote.A, Vote.B):
            presented.append(j.presented_verdict)
    pairs = flips = consistent = correct = 0
    for battle_id, orders in by_battle.items():
        if len(orders) < 2 or not all(o.verdict for o in orders.values()):
            continue
        pairs += 1
        ab, ba = orders[Order.AB].verdict, orders[Order.BA].verdict
        if ab.merged != ba.merged:  # type: ignore[union-attr]
            flips += 1
            continue
        truth = human.get(battle_id)
        if truth is not None:
            consistent += 1
            correct += ab.merged is truth.merged  # type: ignore[union-attr]
    decisive = len(presented)
    return PositionConsistency(
        pairs=pairs, flip_rate=flips / pairs if pairs else float("nan"),
        first_slot_rate=sum(v is Vote.A for v in presented) / decisive if decisive else float("nan"),
        decisive=decisive, consistent_accuracy=correct / consistent if consistent else float("nan"),
        consistent_n=consistent)


@dataclass(frozen=True)
class PairedComparison:
    n: int
    accuracy_first: float
    accuracy_second: float
    difference: float
    ci: tuple[float, float]
    only_first_correct: int
    only_second_correct: int
    mcnemar_p: float

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "ci": list(self.ci)}


def paired_accuracy(correct_first: np.ndarray, correct_second: np.ndarray, *, rounds: int, level: float,
                    seed: int) -> PairedComparison:
    """Exact McNemar test and a paired bootstrap CI of the accuracy difference (first - second).

    Per item the difference is -1, 0 or +1, so resampling items is a multinomial over three counts.
    """
    from scipy.stats import binomtest

    a = np.asarray(correct_first, dtype=bool)
    b = np.asarray(correct_second, dtype=bool)
    n = int(a.size)
    if n == 0:
        nan = float("nan")
        return PairedComparison(0, nan, nan, nan, (nan, nan), 0, 0, nan)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    discordant = only_a + only_b
    p = float(binomtest(min(only_a, only_b), discordant, 0.5).pvalue) if discordant else 1.0
    counts = np.array([only_b, n - discordant, only_a], dtype=float)
    draws = np.random.default_rng(seed).multinomial(n, counts / n, size=rounds)
    diffs = (draws[:, 2] - draws[:, 0]) / n
    return PairedComparison(n, float(a.mean()), float(b.mean()), float(a.mean() - b.mean()),
                            interval(diffs, level), only_a, only_b, p)
