"""Metrics cross-checked against independent computations."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, cohen_kappa_score, f1_score, matthews_corrcoef

from judgebench.metrics.agreement import CLASSES_3, agreement, confusion, scores_from_confusion
from judgebench.metrics.paired import combine_orders, paired_accuracy
from judgebench.metrics.ratings import (
    Outcomes,
    bt_choix,
    bt_map,
    bt_table,
    elo_table,
    online_elo,
    win_matrix,
)
from judgebench.records import Vote


def test_confusion_metrics_match_scikit_learn() -> None:
    rng = np.random.default_rng(3)
    true = rng.integers(0, 3, 500)
    pred = np.where(rng.random(500) < 0.6, true, rng.integers(0, 3, 500))
    scores = scores_from_confusion(confusion(true, pred, 3))
    assert scores["accuracy"] == pytest.approx(accuracy_score(true, pred))
    assert scores["macro_f1"] == pytest.approx(f1_score(true, pred, average="macro", labels=[0, 1, 2]))
    assert scores["kappa"] == pytest.approx(cohen_kappa_score(true, pred))
    assert scores["mcc"] == pytest.approx(matthews_corrcoef(true, pred))


def test_hand_built_confusion_matrix() -> None:
    # truth A,A,A,B,B,tie ; predictions A,A,B,B,tie,tie -> 4/6 correct
    true = np.array([0, 0, 0, 1, 1, 2])
    pred = np.array([0, 0, 1, 1, 2, 2])
    cm = confusion(true, pred, 3)
    assert cm[:, :3].tolist() == [[2, 1, 0], [0, 1, 1], [0, 0, 1]]
    scores = scores_from_confusion(cm)
    assert scores["accuracy"] == pytest.approx(4 / 6)
    # per-class F1: A 2*1*(2/3)/(1+2/3)=0.8, B 0.5, tie 2/3
    assert scores["macro_f1"] == pytest.approx((0.8 + 0.5 + 2 / 3) / 3)


def test_failures_excluded_or_counted_wrong() -> None:
    true = np.array([0, 1, 2, 0])
    pred = np.array([0, 1, -1, -1])
    valid = agreement(true, pred, CLASSES_3, failures_as_wrong=False, rounds=50, level=0.95, seed=0)
    strict = agreement(true, pred, CLASSES_3, failures_as_wrong=True, rounds=50, level=0.95, seed=0)
    assert valid.n == 2 and valid.point["accuracy"] == 1.0 and valid.n_failed == 2
    assert strict.n == 4 and strict.point["accuracy"] == 0.5


def test_seeded_bootstrap_is_reproducible() -> None:
    rng = np.random.default_rng(0)
    true, pred = rng.integers(0, 3, 300), rng.integers(0, 3, 300)
    first = agreement(true, pred, CLASSES_3, failures_as_wrong=False, rounds=500, level=0.95, seed=7)
    again = agreement(true, pred, CLASSES_3, failures_as_wrong=False, rounds=500, level=0.95, seed=7)
    other = agreement(true, pred, CLASSES_3, failures_as_wrong=False, rounds=500, level=0.95, seed=8)
    assert first.ci == again.ci
    assert first.ci != other.ci
    lo, hi = first.ci["accuracy"]
    assert lo < first.point["accuracy"] < hi


def test_orders_combine_by_the_documented_rule() -> None:
    assert combine_orders(Vote.A, Vote.A) is Vote.A
    assert combine_orders(Vote.A, Vote.B) is Vote.TIE
    assert combine_orders(Vote.BOTH_BAD, Vote.BOTH_BAD) is Vote.BOTH_BAD
    assert combine_orders(Vote.A, None) is None


def test_exact_mcnemar_and_paired_bootstrap() -> None:
    # 1 item right only in the first config, 7 only in the second, 12 right in both
    first = np.array([1] + [0] * 7 + [1] * 12, dtype=bool)
    second = np.array([0] + [1] * 7 + [1] * 12, dtype=bool)
    result = paired_accuracy(first, second, rounds=2000, level=0.95, seed=0)
    expected_p = 2 * (math.comb(8, 0) + math.comb(8, 1)) / 2**8
    assert result.mcnemar_p == pytest.approx(expected_p)
    assert result.difference == pytest.approx(-6 / 20)
    assert result.ci[0] < -6 / 20 < result.ci[1] < 0


def test_five_battle_online_elo_by_hand() -> None:
    # models 0,1,2; K=4, scale 400, base 10, init 1000
    a = np.array([0, 0, 1, 2, 0])
    b = np.array([1, 2, 2, 0, 1])
    s = np.array([1.0, 0.5, 0.0, 1.0, 0.0])
    r = [1000.0, 1000.0, 1000.0]
    for i, j, score in zip(a, b, s, strict=True):
        e = 1 / (1 + 10 ** ((r[j] - r[i]) / 400))
        r[i] += 4 * (score - e)
        r[j] -= 4 * (score - e)
    assert online_elo(a, b, s, 3) == pytest.approx(r)
    # first battle by hand: equal ratings, A wins: +2 / -2
    assert online_elo(a[:1], b[:1], s[:1], 3) == pytest.approx([1002.0, 998.0, 1000.0])


def test_bradley_terry_matches_choix_and_ilsr() -> None:
    import choix

    rng = np.random.default_rng(1)
    a = rng.integers(0, 6, 400)
    b = (a + rng.integers(1, 6, 400)) % 6
    s = rng.choice([0.0, 1.0], 400, p=[0.4, 0.6])
    wins = win_matrix(a, b, s, 6)
    ours = bt_map(wins, alpha=0.01)
    assert ours == pytest.approx(bt_choix(wins, alpha=0.01), abs=1e-4)
    # Without ties, choix's two estimators (ILSR and the optimiser) agree with each other and with ours at alpha->0.
    data = np.stack([np.where(s == 1, a, b), np.where(s == 1, b, a)], axis=1)
    ilsr = choix.ilsr_pairwise(6, data, alpha=0.0)
    opt = choix.opt_pairwise(6, data, alpha=1e-8)
    ml = bt_map(wins, alpha=1e-8)
    centre = lambda x: np.asarray(x) - np.mean(x)  # noqa: E731
    assert centre(ilsr) == pytest.approx(centre(opt), abs=1e-3)
    assert centre(ml) == pytest.approx(centre(ilsr), abs=1e-3)


def test_bradley_terry_on_a_star_graph_is_the_logit_of_win_rates() -> None:
    # Leaves only ever play the centre: the MLE difference is log(wins / losses) per leaf.
    records = [(1, 0, 7, 3), (2, 0, 2, 8), (3, 0, 5, 5)]  # leaf, centre, leaf wins, leaf losses
    a, b, s = [], [], []
    for leaf, centre, w, lose in records:
        a += [leaf] * (w + lose)
        b += [centre] * (w + lose)
        s += [1.0] * w + [0.0] * lose
    theta = bt_map(win_matrix(np.array(a), np.array(b), np.array(s), 4), alpha=1e-10)
    for leaf, _, w, lose in records:
        assert theta[leaf] - theta[0] == pytest.approx(math.log(w / lose), abs=1e-5)


def test_undefeated_model_stays_finite_and_ranks_first() -> None:
    out = Outcomes.build([("champ", "x", 1.0)] * 20 + [("x", "y", 1.0)] * 5 + [("y", "x", 1.0)] * 5)
    table = bt_table(out, rounds=200, seed=0)
    rows = table.rows()
    assert rows[0]["model"] == "champ" and math.isfinite(rows[0]["rating"])
    assert rows[0]["rank_ci"] == [1, 1]


def test_elo_bootstrap_seeded() -> None:
    out = Outcomes.build([("a", "b", 1.0), ("b", "c", 0.5), ("c", "a", 0.0)] * 30)
    assert elo_table(out, rounds=100, seed=4).to_dict() == elo_table(out, rounds=100, seed=4).to_dict()
