"""One streaming pass over a dataset -> the counts a researcher checks before trusting it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from judgebench.data.errors import RowError
from judgebench.records import Battle, Side

MAX_ERRORS_KEPT = 200


@dataclass
class DatasetStats:
    rows: int = 0
    battles: int = 0
    errors: list[RowError] = field(default_factory=list)
    error_count: int = 0
    votes: Counter[str] = field(default_factory=Counter)
    categories: Counter[str] = field(default_factory=Counter)
    languages: Counter[str] = field(default_factory=Counter)
    environments: Counter[str] = field(default_factory=Counter)
    models: Counter[str] = field(default_factory=Counter)
    turns: Counter[str] = field(default_factory=Counter)
    rounds_per_side: Counter[str] = field(default_factory=Counter)
    with_screenshot: int = 0
    with_execution_output: int = 0
    sides_executed: int = 0
    sides_succeeded: int = 0

    def add(self, item: Battle | RowError) -> None:
        self.rows += 1
        if isinstance(item, RowError):
            self.error_count += 1
            if len(self.errors) < MAX_ERRORS_KEPT:
                self.errors.append(item)
            return
        self.battles += 1
        self.votes[item.vote.value if item.vote else "none"] += 1
        self.categories[item.category] += 1
        self.turns[str(item.turns)] += 1
        shot = output = False
        for side in item.sides:
            self._add_side(side)
            shot |= any(r.screenshot is not None for r in side.rounds)
            output |= any(r.stdout or r.stderr for r in side.rounds)
        self.with_screenshot += shot
        self.with_execution_output += output

    def _add_side(self, side: Side) -> None:
        self.models[side.model] += 1
        self.rounds_per_side[str(sum(r.executed for r in side.rounds))] += 1
        latest = side.latest_execution
        self.languages[(latest.language or "unknown") if latest else "not executed"] += 1
        self.environments[(latest.environment or "unknown") if latest else "not executed"] += 1
        if latest is not None:
            self.sides_executed += 1
            self.sides_succeeded += bool(latest.success)

    def to_dict(self) -> dict[str, Any]:
        def ordered(counter: Counter[str]) -> dict[str, int]:
            return dict(sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])))

        return {
            "rows": self.rows,
            "battles": self.battles,
            "errors": self.error_count,
            "error_examples": [str(e) for e in self.errors[:20]],
            "votes": ordered(self.votes),
            "categories": ordered(self.categories),
            "languages": ordered(self.languages),
            "environments": ordered(self.environments),
            "models": ordered(self.models),
            "turns": dict(sorted(self.turns.items(), key=lambda kv: int(kv[0]))),
            "executed_rounds_per_side": dict(sorted(self.rounds_per_side.items(), key=lambda kv: int(kv[0]))),
            "rows_with_screenshot": self.with_screenshot,
            "rows_with_execution_output": self.with_execution_output,
            "sides_executed": self.sides_executed,
            "sides_latest_round_succeeded": self.sides_succeeded,
        }


def compute_stats(items: Iterable[Battle | RowError]) -> DatasetStats:
    stats = DatasetStats()
    for item in items:
        stats.add(item)
    return stats
