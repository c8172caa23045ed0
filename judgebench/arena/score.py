"""Arena scores: win rate against the baseline, with intervals, per category and environment.

A game's verdict becomes a result for the model: win 1, tie 0.5, loss 0, with strong verdicts
([[A>>B]], [[B>>A]]) weighing 3 (the upstream convention). The baseline scores 50% by definition.
- parity: weighted win rate, 100 bootstrap rounds over games, 90% interval (upstream), but games are
  resampled as games, not as the three copies a strong verdict used to be exploded into;
- improved: prompts are resampled (a prompt's two games stay together), 95% interval, seeded;
- Bradley-Terry over every stored game, with rating and rank intervals.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgebench.arena.judge import swap
from judgebench.arena.workspace import ArenaWorkspace
from judgebench.metrics.agreement import interval
from judgebench.metrics.ratings import Outcomes, bt_table

RESULT = {"A>>B": (1.0, 3.0), "A>B": (1.0, 1.0), "A=B": (0.5, 1.0), "B>A": (0.0, 1.0), "B>>A": (0.0, 3.0)}


@dataclass(frozen=True)
class ArenaScoreSettings:
    seed: int = 0
    rounds: int = 1000
    parity_rounds: int = 100


@dataclass
class Game:
    uid: str
    game: int
    category: str
    environment: str
    score: float  # for the model
    weight: float


def model_games(ws: ArenaWorkspace, judge: str, baseline: str, model: str, answers: dict[str, dict[str, Any]],
                executions: dict[str, dict[str, Any]]) -> tuple[list[Game], Counter[str]]:
    categories = {p.uid: p.category for p in ws.prompts.prompts}
    failures: Counter[str] = Counter()
    games: list[Game] = []
    for record in ws.judgment_records(judge, baseline, model).values():
        if "label" not in record:
            failures[record.get("failure") or "judge_failed"] += 1
            continue
        label = record["label"] if record["a"] == model else swap(record["label"])
        score, weight = RESULT[label]
        uid = record["uid"]
        env = (executions.get(uid) or {}).get("environment") or (answers.get(uid) or {}).get("code", {}).get(
            "environment") or "no code"
        games.append(Game(uid, record["game"], categories.get(uid, "unknown"), env, score, weight))
    return games, failures


def _win_rate(games: list[Game]) -> float:
    total = sum(g.weight for g in games)
    return sum(g.weight * g.score for g in games) / total if total else float("nan")


def parity_interval(games: list[Game], rounds: int, seed: int) -> tuple[float, float]:
    if not games:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    w = np.array([g.weight for g in games])
    ws = w * np.array([g.score for g in games])
    idx = rng.integers(0, len(games), size=(rounds, len(games)))
    return interval(ws[idx].sum(axis=1) / w[idx].sum(axis=1), 0.90)


def prompt_bootstrap(games: list[Game], rounds: int, seed: int, level: float = 0.95) -> tuple[float, float]:
    """Resamples prompts with multinomial counts; each prompt brings all its games."""
    if not games:
        return (float("nan"), float("nan"))
    wins: dict[str, float] = defaultdict(float)
    totals: dict[str, float] = defaultdict(float)
    for g in games:
        wins[g.uid] += g.weight * g.score
        totals[g.uid] += g.weight
    uids = sorted(totals)
    w, t = np.array([wins[u] for u in uids]), np.array([totals[u] for u in uids])
    counts = np.random.default_rng(seed).multinomial(len(uids), np.full(len(uids), 1 / len(uids)), size=rounds)
    with np.errstate(invalid="ignore", divide="ignore"):
        return interval((counts @ w) / (counts @ t), level)


def _groups(games: list[Game], field: str, settings: ArenaScoreSettings) -> dict[str, dict[str, Any]]:
    grouped: dict[str, list[Game]] = defaultdict(list)
    for g in games:
        grouped[getattr(g, field)].append(g)
    return {k: {"score": _win_rate(v), "ci": list(prompt_bootstrap(v, settings.rounds, settings.seed)),
                "games": len(v), "prompts": len({g.uid for g in v})} for k, v in sorted(grouped.items())}


def _answer_failures(answers: dict[str, dict[str, Any]], executions: dict[str, dict[str, Any]]) -> dict[str, int]:
    out: Counter[str] = Counter()
    for uid, rec in answers.items():
        if rec.get("failure"):
            out["generation_failed"] += 1
        elif not rec.get("code", {}).get("has_code"):
            out["no_code"] += 1
        elif uid in executions and executions[uid]["status"] not in ("ok",):
            out[f"execution_{executions[uid]['status']}"] += 1
    return dict(out)


def score_arena(ws: ArenaWorkspace, judge: str, baseline: str, settings: ArenaScoreSettings) -> dict[str, Any]:
    models = sorted(m for j, b, m in ws.judged_pairs() if j == judge and b == baseline)
    rows: list[dict[str, Any]] = []
    battles: list[tuple[str, str, float, float]] = []
    for model in models:
        answers, executions = ws.answer_records(model), ws.execution_records(model)
        games, judge_failures = model_games(ws, judge, baseline, model, answers, executions)
        battles += [(model, baseline, g.score, g.weight) for g in games]
        rows.append({
            "model": model, "games": len(games), "prompts": len({g.uid for g in games}),
            "score": _win_rate(games),
            "parity_ci": list(parity_interval(games, settings.parity_rounds, settings.seed)),
            "ci": list(prompt_bootstrap(games, settings.rounds, settings.seed)),
            "by_category": _groups(games, "category", settings),
            "by_environment": _groups(games, "environment", settings),
            "judge_failures": dict(judge_failures), "answer_failures": _answer_failures(answers, executions),
        })
    rows.append({"model": baseline, "baseline": True, "score": 0.5,
                 "answer_failures": _answer_failures(ws.answer_records(baseline), ws.execution_records(baseline))})
    ratings = None
    if battles:
        ratings = bt_table(Outcomes.build(battles), rounds=settings.rounds, seed=settings.seed).to_dict()
    rows.sort(key=lambda r: -r["score"])
    return {"judge": judge, "baseline": baseline, "prompts": ws.prompts.spec,
            "prompts_fingerprint": ws.prompts.fingerprint, "settings": settings.__dict__, "models": rows,
            "bradley_terry": ratings}
