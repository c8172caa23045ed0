"""Live progress for judge runs: done, failed, cached, tokens, dollars, ETA."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn


class RunProgress:
    """Adapter from the runner's ProgressSnapshot callbacks to a rich Progress display."""

    def __init__(self, console: Console) -> None:
        self.progress = Progress(
            TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("failed {task.fields[failed]}  cached {task.fields[cached]}  "
                       "tokens {task.fields[tokens]}  ${task.fields[cost]}"),
            TimeRemainingColumn(), console=console, transient=False, refresh_per_second=4)
        self.tasks: dict[str, Any] = {}
        self._last = 0.0

    def __enter__(self) -> RunProgress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, snap: Any) -> None:
        if snap.mode not in self.tasks:
            self.tasks[snap.mode] = self.progress.add_task(f"{snap.mode} execution", total=snap.total, failed=0,
                                                           cached=0, tokens=0, cost="0.00")
        now = time.monotonic()
        if snap.done < snap.total and now - self._last < 0.1:
            return
        self._last = now
        self.progress.update(self.tasks[snap.mode], completed=snap.done, total=snap.total, failed=snap.failed,
                             cached=snap.cached, tokens=f"{snap.input_tokens + snap.output_tokens:,}",
                             cost=f"{snap.cost_usd:.2f}")
