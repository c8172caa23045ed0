"""Scoring a finished full-size run: 4,731 battles x 2 orders x 2 modes, 10 generator models.

Builds synthetic run directories (votes and verdicts drawn at random, with a realistic share of
failures), then times `score_runs` end to end: loading, agreement with CIs, paired tests, ratings.

    python benchmarks/bench_scoring.py --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebench.records import FailureKind, Judgment, Order, Vote
from judgebench.runner.store import JudgmentStore

VOTES = [Vote.A, Vote.B, Vote.TIE, Vote.BOTH_BAD]


def build(root: Path, battles: int = 4731, models: int = 10, seed: int = 0) -> list[Path]:
    rng = np.random.default_rng(seed)
    names = [f"model-{i}" for i in range(models)]
    meta = []
    for i in range(battles):
        a, b = rng.choice(models, 2, replace=False)
        meta.append({"id": f"b{i:05d}", "category": ["web", "game", "solve"][i % 3],
                     "vote": VOTES[rng.integers(0, 4)].value, "turns": 1,
                     "a": {"model": names[a], "language": "python", "environment": "Python Runner", "executed": True},
                     "b": {"model": names[b], "language": "html", "environment": "HTML", "executed": True}})
    dirs = []
    for mode in ("with", "without"):
        run_dir = root / mode
        run_dir.mkdir()
        (run_dir / "battles.jsonl").write_text("".join(json.dumps(m) + "\n" for m in meta))
        manifest = {"judge": {"name": "synthetic", "kind": "llm", "prompt_style": "parity"}, "mode": mode,
                    "dataset": {"spec": "synthetic"}, "dataset_fingerprint": "x", "template_hash": "t",
                    "judge_fingerprint": "j", "sessions": [{"judged": 2 * battles, "cost_usd": 1.0, "wall_s": 100.0}]}
        (run_dir / "manifest.json").write_text(json.dumps(manifest))
        store = JudgmentStore(run_dir)
        for m in meta:
            for order in (Order.AB, Order.BA):
                if rng.random() < 0.03:
                    j = Judgment(m["id"], mode, order, "synthetic", failure=FailureKind.UNPARSEABLE)
                else:
                    v = VOTES[rng.integers(0, 3)] if rng.random() < 0.5 else Vote(m["vote"])
                    j = Judgment(m["id"], mode, order, "synthetic", verdict=v, presented_verdict=v)
                store.put(j)
        store.close()
        dirs.append(run_dir)
    return dirs


def main() -> None:
    from judgebench.reward.score import ScoreSettings, score_runs

    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    with tempfile.TemporaryDirectory() as tmp:
        dirs = build(Path(tmp))
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            score_runs(dirs, ScoreSettings(rounds=1000, seed=0))
            times.append(time.perf_counter() - start)
    print(f"score 4,731 battles x 2 orders x 2 modes (1,000 bootstrap rounds everywhere): "
          f"median {statistics.median(times):.2f} s over {args.repeat} runs")


if __name__ == "__main__":
    main()
