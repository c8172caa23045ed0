"""Judge-runner throughput against a loopback OpenAI-compatible server with fixed latency.

For each concurrency c, runs N judgments (no cache) through the real pipeline and litellm client
and reports judgments/s as a share of the ideal c / latency, and client CPU per judgment.

    python benchmarks/bench_runner.py --latency 0.2 --concurrency 1 16 64 --battles 300 --repeat 3
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
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("OPENAI_API_KEY", "sk-fake-for-loopback")


def make_dataset(path: Path, battles: int) -> None:
    from judgebench.data.normalized import battle_to_dict
    from judgebench.data.sources import load_battles, open_dataset

    base, _ = load_battles(open_dataset("bcr-fixture"))
    with open(path, "w") as handle:
        for i in range(battles):
            b = base[i % len(base)]
            b = replace(b, id=f"bench{i:05d}", instruction=f"[{i}] {b.instruction}")
            handle.write(json.dumps(battle_to_dict(b)) + "\n")


def one_run(dataset: Path, api_base: str, concurrency: int, runs_dir: Path, mode: str,
            limit: int | None = None) -> tuple[int, float, float]:
    from judgebench.reward.pipeline import RewardOptions, run_reward

    options = RewardOptions(judge="openai/bench-judge", dataset=str(dataset), api_base=api_base, runs_dir=runs_dir,
                            cache_path=None, modes=(mode,), concurrency=concurrency, limit=limit)
    cpu0 = time.process_time()
    result = run_reward(options)
    cpu = time.process_time() - cpu0
    manifest = json.loads((result.results[0].run_dir / "manifest.json").read_text())
    judging_wall = manifest["sessions"][-1]["wall_s"]  # the judging phase, without selection/estimate passes
    return result.results[0].progress.done, judging_wall, cpu


def serve(latency: float, ports: Any) -> None:
    """The fake server in its own process, so its JSON parsing does not share our GIL."""
    from tests.fake_openai import Reply, fake_openai

    with fake_openai(lambda body, n: Reply(delay_s=latency), parse_bodies=False) as server:
        ports.put(server.port)
        while True:
            time.sleep(3600)


def main() -> None:
    import multiprocessing

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--battles", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--mode", default="with", choices=["with", "without"])
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"server latency {args.latency * 1000:.0f} ms; mode {args.mode}")
    ports: Any = multiprocessing.Queue()
    server = multiprocessing.Process(target=serve, args=(args.latency, ports), daemon=True)
    server.start()
    api_base = f"http://127.0.0.1:{ports.get(timeout=30)}/v1"
    with tempfile.TemporaryDirectory() as tmp:
        dataset = Path(tmp) / "bench.jsonl"
        make_dataset(dataset, args.battles)
        one_run(dataset, api_base, 8, Path(tmp) / "warmup", args.mode, 20)  # imports, first connections
        for c in args.concurrency:
            rates, cpus = [], []
            for r in range(args.repeat):
                battles = min(args.battles, max(10, int(c / args.latency * 3)))  # ~6 s of ideal work, 2 orders
                done, wall, cpu = one_run(dataset, api_base, c, Path(tmp) / f"c{c}-{r}", args.mode, battles)
                rates.append(done / wall)
                cpus.append(cpu / done * 1000)
            ideal = c / args.latency
            rate = statistics.median(rates)
            print(f"concurrency {c:3d}: {rate:7.1f} judgments/s (median of {args.repeat}), ideal {ideal:6.1f}, "
                  f"{rate / ideal:6.1%} of ideal; client CPU {statistics.median(cpus):.1f} ms/judgment")
    server.terminate()


if __name__ == "__main__":
    main()
