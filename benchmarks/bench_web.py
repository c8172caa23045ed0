"""Screenshots per second of a static HTML page with a warm browser (Chromium inside bubblewrap).

    python benchmarks/bench_web.py --pages 50 --repeat 3
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgebench.execution.web import WebRenderer

PAGE = "<html><body style='background:#fafafa'><h1>Menu</h1><ul>" + "".join(
    f"<li>Item {i}</li>" for i in range(30)) + "</ul></body></html>"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    start = time.perf_counter()
    with WebRenderer() as renderer:
        print(f"browser start: {time.perf_counter() - start:.2f} s")
        renderer.render("html", PAGE)
        rates = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            for _ in range(args.pages):
                assert renderer.render("html", PAGE).ok
            rates.append(args.pages / (time.perf_counter() - t))
    print(f"static HTML, 1024x768 PNG: median {statistics.median(rates):.1f} screenshots/s "
          f"over {args.repeat} x {args.pages} pages")


if __name__ == "__main__":
    main()
