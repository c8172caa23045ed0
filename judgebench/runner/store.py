"""Durable judgment storage for one run directory.

SQLite in WAL mode, one transaction per judgment: a kill -9 loses at most the calls in flight, never
leaves a torn or duplicated record (the primary key is (battle, order)), and the next run resumes
from what is there. synchronous=NORMAL is durable against process death; power loss may drop the
last few commits, which a resume simply redoes.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgebench.records import FailureKind, Judgment, Order, Vote

# Failures worth another try on resume (transient); the others are answers in their own right.
RETRIABLE = {FailureKind.API_ERROR}


def judgment_to_row(j: Judgment) -> tuple[Any, ...]:
    return (j.battle_id, j.order.value, j.mode, j.judge, j.verdict.value if j.verdict else None,
            j.presented_verdict.value if j.presented_verdict else None, j.failure.value if j.failure else None,
            j.detail, j.raw_text, j.template_hash, j.prompt_hash, j.input_tokens, j.output_tokens, j.cost_usd,
            j.latency_s, j.attempts, int(j.cached))


_COLUMNS = ("battle_id", "order_", "mode", "judge", "verdict", "presented_verdict", "failure", "detail", "raw_text",
            "template_hash", "prompt_hash", "input_tokens", "output_tokens", "cost_usd", "latency_s", "attempts",
            "cached")


def row_to_judgment(row: sqlite3.Row | tuple[Any, ...]) -> Judgment:
    values = dict(zip(_COLUMNS, row, strict=True))
    return Judgment(
        battle_id=values["battle_id"], order=Order(values["order_"]), mode=values["mode"], judge=values["judge"],
        verdict=Vote(values["verdict"]) if values["verdict"] else None,
        presented_verdict=Vote(values["presented_verdict"]) if values["presented_verdict"] else None,
        failure=FailureKind(values["failure"]) if values["failure"] else None, detail=values["detail"],
        raw_text=values["raw_text"], template_hash=values["template_hash"], prompt_hash=values["prompt_hash"],
        input_tokens=values["input_tokens"], output_tokens=values["output_tokens"], cost_usd=values["cost_usd"],
        latency_s=values["latency_s"], attempts=values["attempts"], cached=bool(values["cached"]),
    )


class JudgmentStore:
    FILE = "judgments.sqlite"

    def __init__(self, run_dir: Path) -> None:
        run_dir.mkdir(parents=True, exist_ok=True)
        self.path = run_dir / self.FILE
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(f"CREATE TABLE IF NOT EXISTS judgments ({', '.join(_COLUMNS)}, "
                         "PRIMARY KEY (battle_id, order_))")

    def put(self, judgment: Judgment) -> None:
        """Replaces an earlier transient failure of the same item; one row per (battle, order)."""
        marks = ", ".join("?" * len(_COLUMNS))
        self._db.execute(f"INSERT OR REPLACE INTO judgments VALUES ({marks})", judgment_to_row(judgment))

    def finished_keys(self, *, retry_failed: bool = False) -> set[tuple[str, str]]:
        """Items a resume skips: verdicts, and final failures unless retry_failed."""
        keys = set()
        for battle_id, order, failure in self._db.execute("SELECT battle_id, order_, failure FROM judgments"):
            if failure is None or (not retry_failed and FailureKind(failure) not in RETRIABLE):
                keys.add((battle_id, order))
        return keys

    def __iter__(self) -> Iterator[Judgment]:
        cursor = self._db.execute(f"SELECT {', '.join(_COLUMNS)} FROM judgments ORDER BY battle_id, order_")
        for row in cursor:
            yield row_to_judgment(row)

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])

    def close(self) -> None:
        self._db.close()


def write_json_atomic(path: Path, payload: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=2, sort_keys=True, default=str)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
