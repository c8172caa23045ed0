"""Rating fits with bootstrap: Bradley-Terry (batched Newton) and online Elo.

    python benchmarks/bench_ratings.py --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebench.metrics.ratings import Outcomes, bt_table, elo_table


def synthetic(n: int, models: int, seed: int) -> Outcomes:
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, models)
    a = rng.integers(0, models, n)
    b = (a + rng.integers(1, models, n)) % models
    p = 1 / (1 + np.exp(-(strength[a] - strength[b])))
    u = rng.random(n)
    score = np.where(u < 0.85 * p, 1.0, np.where(u < 0.85, 0.0, 0.5))
    return Outcomes(tuple(f"m{i}" for i in range(models)), a, b, score)


def timed(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    for n, m in ((4_731, 10), (1_000_000, 100)):
        out = synthetic(n, m, 0)
        t = timed(lambda out=out: bt_table(out, rounds=1000), args.repeat)
        print(f"Bradley-Terry fit + 1,000 bootstraps, {n:,} battles, {m} models: median {t:.2f} s")
    out = synthetic(4_731, 10, 0)
    t = timed(lambda: elo_table(out, rounds=1000), args.repeat)
    print(f"online Elo + 1,000 bootstraps (parity), 4,731 battles, 10 models: median {t:.2f} s")


if __name__ == "__main__":
    main()
