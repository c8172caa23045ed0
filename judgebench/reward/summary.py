"""A first look at a finished run: coverage, failures and plain agreement with the human votes.

The full metric suite (CIs, kappa, paired tests, ratings) belongs to the scoring step; this is what
the run command prints so a researcher sees at once whether the run is sane.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from judgebench.records import Vote
from judgebench.runner.store import JudgmentStore


def read_battle_index(run_dir: Path) -> dict[str, dict[str, Any]]:
    path = run_dir / "battles.jsonl"
    if not path.exists():
        return {}
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {row["id"]: row for row in rows}


def summarize_run(run_dir: Path) -> dict[str, Any]:
    index = read_battle_index(run_dir)
    store = JudgmentStore(run_dir)
    try:
        judgments = list(store)
    finally:
        store.close()
    per_order: dict[str, Counter[str]] = {}
    correct = scored = 0
    for j in judgments:
        counts = per_order.setdefault(j.order.value, Counter())
        counts[j.verdict.value if j.verdict else f"failed:{j.failure.value if j.failure else '?'}"] += 1
        human = index.get(j.battle_id, {}).get("vote")
        if human is None or j.verdict is None:
            continue
        scored += 1
        correct += j.verdict.merged is Vote(human).merged
    total = len(judgments)
    ok = sum(1 for j in judgments if j.ok)
    return {
        "run_dir": str(run_dir),
        "judgments": total,
        "with_verdict": ok,
        "coverage": ok / total if total else None,
        "failures": dict(Counter(j.failure.value for j in judgments if j.failure)),
        "by_order": {k: dict(v) for k, v in sorted(per_order.items())},
        "accuracy_merged_3class": correct / scored if scored else None,
        "accuracy_n": scored,
    }
