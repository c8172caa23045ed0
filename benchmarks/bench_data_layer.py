"""Data-layer figures: `judgebench --help` latency, and peak memory of `data stats` while streaming.

Memory: builds a Hub-schema parquet of N rows whose screenshots are full-size noise PNGs (incompressible,
like real screenshots), then runs `judgebench data stats` on it in a child process and reads the
child's peak RSS. Bounded memory means peak RSS stays flat as N grows.

    python benchmarks/bench_data_layer.py --rows 200 400 800 --repeat 3
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def help_latency(repeat: int) -> list[float]:
    exe = [sys.executable, "-m", "judgebench.cli", "--help"]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(exe, capture_output=True, check=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
    return times


def noise_png(seed: int, size: tuple[int, int] = (640, 400)) -> bytes:
    from PIL import Image

    img = Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3) if seed >= 0 else b"")
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def build_big_parquet(rows: int, out: Path) -> int:
    import base64

    import datasets

    from tests.fixtures.build_bcr_fixture import FEATURES, build_rows

    features_dict = json.loads(FEATURES.read_text())
    base = build_rows(features_dict)
    shot = noise_png(0)
    shot_b64 = base64.b64encode(shot).decode()

    def gen():  # type: ignore[no-untyped-def]
        for i in range(rows):
            row = copy.deepcopy(base[i % len(base)])
            row["chat_session_id"] = f"big{i:06d}"
            for letter in "AB":
                row[f"execution_screenshot_{letter}"] = {"bytes": shot, "path": None}
                for log in row["states"][f"model_{letter}"]["sandbox_logs_by_round"].values():
                    if log is not None:
                        log["sandbox_state"]["screenshot_base64"] = shot_b64
            yield row

    features = datasets.Features.from_dict(features_dict)
    ds = datasets.Dataset.from_generator(gen, features=features, cache_dir=str(out.parent / "cache"))
    ds.to_parquet(str(out))
    return out.stat().st_size


def peak_rss_of_stats(path: Path) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "judgebench.cli", "data", "stats", "--json", "--dataset",
                             str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read()
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)  # this child's own peak RSS, not the max over all children
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(err.decode())
    return usage.ru_maxrss / 1024, elapsed


def main() -> None:
    if len(sys.argv) == 4 and sys.argv[1] == "--build":
        # Built in a child process: a child forked from a large parent inherits the parent's peak RSS
        # in ru_maxrss, which would make the measured `data stats` look as big as the builder.
        print(build_big_parquet(int(sys.argv[2]), Path(sys.argv[3])))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, nargs="+", default=[200, 800])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cpu = platform.processor() or platform.machine()
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}")
    times = help_latency(args.repeat + 2)
    print(f"judgebench --help: median {statistics.median(times) * 1000:.0f} ms over {len(times)} runs")
    fixture = ROOT / "data" / "bcr-fixture"
    rss = [peak_rss_of_stats(fixture)[0] for _ in range(args.repeat)]
    print(f"data stats on bcr-fixture (36 rows): peak RSS median {statistics.median(rss):.0f} MiB")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.rows:
            path = Path(tmp) / f"big-{n}.parquet"
            built = subprocess.run([sys.executable, __file__, "--build", str(n), str(path)], capture_output=True,
                                   text=True, check=True)
            size = int(built.stdout.strip().splitlines()[-1])
            runs = [peak_rss_of_stats(path) for _ in range(args.repeat)]
            rss_mib = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            print(f"data stats on {n} rows ({size / 2**20:.0f} MiB parquet): peak RSS median {rss_mib:.0f} MiB, "
                  f"wall median {wall:.1f} s")
            path.unlink()


if __name__ == "__main__":
    main()
