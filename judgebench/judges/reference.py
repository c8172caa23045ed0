"""Judges with no LLM: the floor an LLM judge must beat, each isolating one shortcut.

Each sees the battle exactly as an LLM judge would (sides in presented order) and answers in
presented terms, so position bias shows up in them the same way it would in a model.
"""

from __future__ import annotations

import hashlib

from judgebench.records import Battle, Order, Side, Vote


def _presented(battle: Battle, order: Order) -> tuple[Side, Side]:
    return battle.sides if order is Order.AB else (battle.side_b, battle.side_a)


def always_a(battle: Battle, order: Order, seed: int, with_exec: bool) -> Vote:
    return Vote.A


def seeded_random(battle: Battle, order: Order, seed: int, with_exec: bool) -> Vote:
    """Deterministic per (seed, battle, order): re-runs and resumes give the same votes."""
    digest = hashlib.sha256(f"{seed}:{battle.id}:{order.value}".encode()).digest()
    return (Vote.A, Vote.B, Vote.TIE)[int.from_bytes(digest[:8], "big") % 3]


def prefers_longer(battle: Battle, order: Order, seed: int, with_exec: bool) -> Vote:
    first, second = _presented(battle, order)
    a, b = len(first.final_answer), len(second.final_answer)
    return Vote.A if a > b else Vote.B if b > a else Vote.TIE


def _execution_score(side: Side) -> int:
    """2: ran and succeeded with no error text; 1: ran with an unknown outcome; 0: failed or never ran."""
    latest = side.latest_execution
    if latest is None:
        return 0
    if latest.success is False or latest.stderr.strip():
        return 0
    return 2 if latest.success else 1


def prefers_successful_execution(battle: Battle, order: Order, seed: int, with_exec: bool) -> Vote:
    """Without execution traces it has nothing to go on and says tie, honestly."""
    if not with_exec:
        return Vote.TIE
    first, second = _presented(battle, order)
    a, b = _execution_score(first), _execution_score(second)
    if a == b:
        return Vote.TIE if a > 0 else Vote.BOTH_BAD
    return Vote.A if a > b else Vote.B


REFERENCE_FUNCTIONS = {
    "always-a": always_a,
    "random": seeded_random,
    "longer": prefers_longer,
    "exec-success": prefers_successful_execution,
}
