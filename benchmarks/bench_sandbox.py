"""Sandbox overhead: wall time of a trivial Python program, sandboxed vs bare, and runs/s with 2 workers.

    python benchmarks/bench_sandbox.py --runs 100 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebench.execution.sandbox import Sandbox


def one(sandbox: Sandbox) -> float:
    work = sandbox.new_workdir("bench-")
    (work / "m.py").write_text("print('hi')\n")
    start = time.perf_counter()
    result = sandbox.run(["/usr/bin/python3", "m.py"], work)
    elapsed = time.perf_counter() - start
    shutil.rmtree(work, ignore_errors=True)
    assert result.ok, result
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    sandbox = Sandbox()
    bare = []
    for _ in range(args.runs):
        start = time.perf_counter()
        subprocess.run(["/usr/bin/python3", "-c", "print('hi')"], capture_output=True, check=True)
        bare.append(time.perf_counter() - start)
    singles = [one(sandbox) for _ in range(args.runs)]
    print(f"trivial Python, bare subprocess: median {1000 * statistics.median(bare):.1f} ms")
    print(f"trivial Python, sandboxed: median {1000 * statistics.median(singles):.1f} ms "
          f"(overhead {1000 * (statistics.median(singles) - statistics.median(bare)):.1f} ms) over {args.runs} runs")
    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(lambda _: one(sandbox), range(args.runs)))
        rates.append(args.runs / (time.perf_counter() - start))
    print(f"2 workers: median {statistics.median(rates):.1f} runs/s over {args.repeat} x {args.runs} runs")


if __name__ == "__main__":
    main()
