"""Per-run memory and process limits through cgroups (v1 or v2), when this process may create them.

cgroups are the only limit that holds for every runtime: RLIMIT_AS breaks V8 and the JVM (they
reserve far more address space than they use) and RLIMIT_NPROC does not bind root. When cgroups
cannot be created (no permission, no controller), the sandbox falls back to rlimits and says so.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
PARENT = "judgebench"


def _v2() -> bool:
    return (ROOT / "cgroup.controllers").exists()


@dataclass
class RunCgroup:
    """The cgroup directories of one run; the launcher writes its pid into each `cgroup.procs`."""

    dirs: list[Path] = field(default_factory=list)
    version: int = 0

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def oom_killed(self) -> bool:
        for d in self.dirs:
            for name in ("memory.oom_control", "memory.events"):
                path = d / name
                if path.exists():
                    for line in path.read_text().splitlines():
                        key, _, value = line.partition(" ")
                        if key == "oom_kill" and int(value or 0) > 0:
                            return True
        return False

    def hit_process_limit(self) -> bool:
        for d in self.dirs:
            events = d / "pids.events"
            if events.exists():
                for line in events.read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key == "max" and int(value or 0) > 0:
                        return True
        return False

    def peak_memory_bytes(self) -> int | None:
        for d in self.dirs:
            for name in ("memory.max_usage_in_bytes", "memory.peak"):
                path = d / name
                if path.exists():
                    return int(path.read_text().split()[0])
        return None

    def kill_all(self) -> None:
        """Kills whatever is left in the run's cgroups (a daemonised child, a sleeping fork)."""
        for d in self.dirs:
            procs = d / "cgroup.procs"
            if not procs.exists():
                continue
            for line in procs.read_text().split():
                with contextlib.suppress(ProcessLookupError, PermissionError, ValueError):
                    os.kill(int(line), signal.SIGKILL)

    def wait_empty(self, timeout_s: float = 5.0) -> bool:
        """SIGKILL is asynchronous: wait until the kernel has really removed every process."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if all(not (d / "cgroup.procs").exists() or not (d / "cgroup.procs").read_text().strip()
                   for d in self.dirs):
                return True
            self.kill_all()
            time.sleep(0.01)
        return False

    def remove(self) -> None:
        for d in self.dirs:
            with contextlib.suppress(OSError):
                d.rmdir()


def create(memory_bytes: int, max_processes: int) -> RunCgroup | None:
    """A fresh cgroup with the limits, or None when this machine does not let us make one."""
    name = f"run-{uuid.uuid4().hex[:12]}"
    try:
        if _v2():
            parent = ROOT / PARENT
            parent.mkdir(exist_ok=True)
            (parent / "cgroup.subtree_control").write_text("+memory +pids")
            d = parent / name
            d.mkdir()
            (d / "memory.max").write_text(str(memory_bytes))
            (d / "memory.swap.max").write_text("0")
            (d / "pids.max").write_text(str(max_processes))
            return RunCgroup([d], 2)
        mem, pids = ROOT / "memory" / PARENT / name, ROOT / "pids" / PARENT / name
        mem.mkdir(parents=True)
        pids.mkdir(parents=True)
        (mem / "memory.limit_in_bytes").write_text(str(memory_bytes))
        swap = mem / "memory.memsw.limit_in_bytes"
        if swap.exists():
            swap.write_text(str(memory_bytes))
        (pids / "pids.max").write_text(str(max_processes))
        return RunCgroup([mem, pids], 1)
    except OSError:
        return None
