"""Run a command inside bubblewrap with no network, a read-only system and hard limits.

Layers, outermost first:
  sh        as root: joins the run's cgroups (memory, processes), then execs
  setpriv   drops to a throwaway uid with no groups and no new privileges
  prlimit   CPU seconds, file size, open files, no core dumps (and address space if no cgroups)
  bwrap     new user/pid/net/ipc/uts namespaces, read-only /usr and /etc, private /work and /tmp,
            empty environment, dies with its parent
A wall-clock timeout kills the whole process group and sweeps the cgroup, so nothing outlives a run.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judgebench.execution import cgroups


class SandboxUnavailable(RuntimeError):
    """No working bubblewrap: the caller must refuse to run code (unless told to run unsafely)."""


@dataclass(frozen=True)
class Limits:
    wall_s: float = 10.0
    cpu_s: int = 10
    memory_mb: int = 512
    processes: int = 128  # threads count: a JVM starts ~20
    file_size_mb: int = 64
    disk_mb: int = 256  # total bytes written under the work dir
    tmp_mb: int = 256  # the private /tmp (tmpfs)
    output_bytes: int = 1_000_000  # per stream; more and the run is killed


@dataclass(frozen=True)
class Mount:
    source: str
    target: str
    writable: bool = False


@dataclass
class RunResult:
    status: str  # ok | error | timeout | memory | killed | sandbox_failure
    exit_code: int | None
    signal: int | None
    stdout: str
    stderr: str
    wall_s: float
    detail: str = ""
    files: list[tuple[str, int]] = field(default_factory=list)
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    peak_memory_bytes: int | None = None
    limits_backend: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


_MEMORY_ERRORS = ("MemoryError", "std::bad_alloc", "JavaScript heap out of memory", "OutOfMemoryError",
                  "out of memory", "Cannot allocate memory", "memory allocation of")
_UID_BASE = 61000
_uid_counter = itertools.count()
_uid_lock = threading.Lock()


def _next_uid() -> int:
    """A throwaway uid per run, so process limits and kills never touch another run's processes."""
    with _uid_lock:
        return _UID_BASE + (os.getpid() % 97) * 64 + next(_uid_counter) % 64


class _Reader(threading.Thread):
    """Drains a pipe, keeping at most `limit` bytes; signals when the limit is crossed."""

    def __init__(self, stream, limit: int, overflow: threading.Event) -> None:  # type: ignore[no-untyped-def]
        super().__init__(daemon=True)
        self.stream, self.limit, self.overflow = stream, limit, overflow
        self.chunks: list[bytes] = []
        self.size = 0
        self.truncated = False

    def run(self) -> None:
        while chunk := self.stream.read(65536):
            if self.size < self.limit:
                self.chunks.append(chunk[: self.limit - self.size])
            self.size += len(chunk)
            if self.size > self.limit:
                self.truncated = True
                self.overflow.set()
        self.stream.close()

    def text(self) -> str:
        return b"".join(self.chunks).decode("utf-8", errors="replace")


def _dir_size(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
    return total


def _list_files(path: Path, before: set[str]) -> list[tuple[str, int]]:
    out = []
    for root, _dirs, files in os.walk(path):
        for name in files:
            full = os.path.join(root, name)
            rel = os.path.relpath(full, path)
            if rel not in before:
                with contextlib.suppress(OSError):
                    out.append((rel, os.lstat(full).st_size))
    return sorted(out)


class Sandbox:
    """Runs argv in `workdir` (seen inside as /work). One instance can serve many concurrent runs."""

    def __init__(self, *, unsafe_no_sandbox: bool = False, extra_mounts: Sequence[Mount] = ()) -> None:
        self.unsafe = unsafe_no_sandbox
        self.extra_mounts = tuple(extra_mounts)
        self.bwrap = shutil.which("bwrap")
        self.is_root = os.geteuid() == 0
        if not self.unsafe:
            problem = self.self_test()
            if problem:
                raise SandboxUnavailable(
                    f"bubblewrap sandbox does not work here: {problem}. Install it (Debian: apt-get install "
                    "bubblewrap) or, only for code you trust, pass --unsafe-no-sandbox.")

    def new_workdir(self, prefix: str = "run-") -> Path:
        """A fresh work dir the sandbox user can reach: every parent must be traversable by that uid,
        which private temp dirs (pytest's, a 0700 home) are not."""
        root = Path(os.environ.get("JUDGEBENCH_SANDBOX_ROOT", tempfile.gettempdir())) / "judgebench-sandbox"
        root.mkdir(mode=0o711, exist_ok=True)
        os.chmod(root, 0o711)  # traversable, not listable: runs cannot see each other's names
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=root))
        os.chmod(path, 0o711)
        return path

    def self_test(self) -> str | None:
        if self.bwrap is None:
            return "bwrap is not installed"
        try:
            probe = subprocess.run([self.bwrap, "--unshare-all", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin",
                                    "/bin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
                                    "/usr/bin/true"], capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return str(exc)
        return None if probe.returncode == 0 else (probe.stderr.strip() or f"exit {probe.returncode}")

    def _bwrap_args(self, workdir: Path, limits: Limits, env: dict[str, str], mounts: Sequence[Mount]) -> list[str]:
        args = [self.bwrap or "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--hostname", "sandbox",
                "--clearenv", "--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin",
                "/sbin", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--ro-bind", "/etc",
                "/etc", "--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmp_mb * 2**20), "--tmpfs", "/tmp",
                "--bind", str(workdir), "/work", "--chdir", "/work"]
        for mount in (*self.extra_mounts, *mounts):
            if Path(mount.source).exists():
                args += ["--bind" if mount.writable else "--ro-bind", mount.source, mount.target]
        args += ["--remount-ro", "/"]  # the sandbox's own root too: only /work and /tmp are writable
        base_env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/work", "LANG": "C.UTF-8", "TMPDIR": "/tmp"}
        for key, value in {**base_env, **env}.items():
            args += ["--setenv", key, value]
        return [*args, "--"]

    def run(self, argv: Sequence[str], workdir: Path, limits: Limits | None = None, *,
            env: dict[str, str] | None = None, mounts: Sequence[Mount] = (), stdin: bytes | None = None) -> RunResult:
        limits = limits or Limits()
        workdir = workdir.resolve()
        before = {os.path.relpath(os.path.join(r, f), workdir) for r, _d, fs in os.walk(workdir) for f in fs}
        if self.unsafe:
            return self._execute(list(argv), workdir, limits, None, "none (unsafe)", env or {}, before, stdin)
        uid = _next_uid() if self.is_root else os.getuid()
        group = cgroups.create(limits.memory_mb * 2**20, limits.processes) if self.is_root else None
        # Hard CPU limit one second above the soft one: the program gets SIGXCPU (reported as a CPU
        # timeout) before the kernel's SIGKILL.
        prlimit = ["prlimit", f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}", f"--fsize={limits.file_size_mb * 2**20}",
                   "--nofile=256", "--core=0"]
        if group is None:  # no cgroups: address-space and process-count rlimits are the fallback
            prlimit += [f"--as={limits.memory_mb * 2**20 * 4}", f"--nproc={limits.processes}"]
        command = [*prlimit, "--", *self._bwrap_args(workdir, limits, env or {}, mounts), *argv]
        if self.is_root:
            for root, dirs, files in os.walk(workdir):
                for name in [*dirs, *files]:
                    os.lchown(os.path.join(root, name), uid, uid)
            os.chown(workdir, uid, uid)
            command = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--no-new-privs", *command]
        launcher = ["sh", "-c", 'for f in $JB_CGROUP_PROCS; do echo $$ > "$f" || exit 125; done; exec "$@"', "sh",
                    *command]
        launch_env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "JB_CGROUP_PROCS": " ".join(group.procs_files) if group
                      else ""}
        backend = f"cgroup v{group.version}" if group else "rlimit"
        try:
            return self._execute(launcher, workdir, limits, group, backend, launch_env, before, stdin)
        finally:
            if group is not None:
                group.kill_all()
                group.wait_empty()
                group.remove()

    def _execute(self, argv: list[str], workdir: Path, limits: Limits, group: cgroups.RunCgroup | None,
                 backend: str, env: dict[str, str], before: set[str], stdin: bytes | None) -> RunResult:
        started = time.monotonic()
        overflow = threading.Event()
        try:
            proc = subprocess.Popen(argv, cwd=workdir, env=env, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        except OSError as exc:
            return RunResult("sandbox_failure", None, None, "", "", 0.0, f"could not start: {exc}",
                             limits_backend=backend)
        readers = [_Reader(proc.stdout, limits.output_bytes, overflow), _Reader(proc.stderr, limits.output_bytes,
                                                                                overflow)]
        for r in readers:
            r.start()
        if stdin:
            try:
                proc.stdin.write(stdin)  # type: ignore[union-attr]
                proc.stdin.close()  # type: ignore[union-attr]
            except BrokenPipeError:
                pass
        reason = ""
        next_disk_check = 0.0
        while proc.poll() is None:
            now = time.monotonic()
            if now - started > limits.wall_s:
                reason = "timeout"
            elif overflow.is_set():
                reason = "output"
            elif now >= next_disk_check:
                next_disk_check = now + 0.25
                if _dir_size(workdir) > limits.disk_mb * 2**20:
                    reason = "disk"
            if reason:
                self._kill(proc, group)
                break
            time.sleep(0.01)
        proc.wait()
        for r in readers:
            r.join(timeout=5)
        wall = time.monotonic() - started
        stdout, stderr = readers[0].text(), readers[1].text()
        code = proc.returncode
        sig = -code if code is not None and code < 0 else (code - 128 if code is not None and code > 128 else None)
        status, detail = self._classify(code, reason, group, stderr, limits)
        return RunResult(status, code, sig, stdout, stderr, wall, detail, _list_files(workdir, before),
                         readers[0].truncated, readers[1].truncated,
                         group.peak_memory_bytes() if group else None, backend)

    @staticmethod
    def _kill(proc: subprocess.Popen, group: cgroups.RunCgroup | None) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        if group is not None:
            group.kill_all()

    @staticmethod
    def _classify(code: int | None, reason: str, group: cgroups.RunCgroup | None, stderr: str,
                  limits: Limits) -> tuple[str, str]:
        if reason == "timeout":
            return "timeout", f"wall-clock limit of {limits.wall_s:g} s"
        if reason == "output":
            return "killed", f"output over {limits.output_bytes} bytes"
        if reason == "disk":
            return "killed", f"wrote over {limits.disk_mb} MB"
        if group is not None and group.oom_killed():
            return "memory", f"memory limit of {limits.memory_mb} MB"
        if code != 0 and group is not None and group.hit_process_limit():
            return "killed", f"process limit of {limits.processes} reached (fork bomb?)"
        if code == 125 and "cgroup" in stderr:
            return "sandbox_failure", "could not join the run's cgroup"
        if stderr.startswith("bwrap:") or "\nbwrap:" in stderr[:500]:
            return "sandbox_failure", stderr.strip().splitlines()[0][:300]
        if code == 0:
            return "ok", ""
        if code in (-signal.SIGXCPU, 128 + signal.SIGXCPU, 152):
            return "timeout", f"CPU limit of {limits.cpu_s} s"
        if any(marker in stderr for marker in _MEMORY_ERRORS):
            return "memory", "the program ran out of memory"
        if code is not None and (code < 0 or code > 128):
            return "killed", f"terminated by signal {-code if code < 0 else code - 128}"
        return "error", f"exit code {code}"
