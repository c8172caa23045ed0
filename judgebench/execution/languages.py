"""How each language is compiled and run inside the sandbox, with toolchains installed ahead of time.

Nothing is fetched at run time: every toolchain is a Debian package, an npm package under
TOOLCHAIN_ROOT (pinned, installed by `judgebench setup`), or an existing rustup toolchain mounted
read-only. A missing toolchain is reported as such, never installed on the fly.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from judgebench.execution.sandbox import Limits, Mount, RunResult, Sandbox

SHIMS = Path(__file__).resolve().parent / "shims"
TOOLCHAIN_ROOT = Path(os.environ.get("JUDGEBENCH_TOOLCHAINS", "/opt/judgebench"))
TYPESCRIPT_VERSION = "5.6.3"
COMPILE_LIMITS = Limits(wall_s=90, cpu_s=90, memory_mb=2048, processes=256, disk_mb=512, tmp_mb=1024)


@dataclass(frozen=True)
class Language:
    name: str
    source: str  # file name inside /work
    run: tuple[str, ...]
    compile: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    mounts: tuple[Mount, ...] = ()
    requires: tuple[str, ...] = ()  # host paths that must exist
    run_limits: Limits = field(default_factory=Limits)
    source_name: Callable[[str], str] | None = None  # e.g. Java: the public class decides the file name

    def missing(self) -> list[str]:
        return [p for p in self.requires if not Path(p).exists()]


def _java_file(code: str) -> str:
    match = re.search(r"public\s+(?:final\s+|abstract\s+)*class\s+(\w+)", code)
    return f"{match.group(1) if match else 'Main'}.java"


def _languages() -> dict[str, Language]:
    tsc = TOOLCHAIN_ROOT / "node" / "node_modules" / "typescript" / "bin" / "tsc"
    return {
        # Debian's python3 with Debian's numpy/matplotlib/pygame; the shims capture figures and game frames.
        "python": Language("python", "main.py", ("/usr/bin/python3", "main.py"), requires=("/usr/bin/python3",),
                           env={"PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", "SDL_VIDEODRIVER": "dummy",
                                "SDL_AUDIODRIVER": "dummy", "PYTHONPATH": "/opt/judgebench-shims",
                                "MPLCONFIGDIR": "/tmp/mpl", "PYGAME_HIDE_SUPPORT_PROMPT": "1"},
                           mounts=(Mount(str(SHIMS), "/opt/judgebench-shims"),)),
        "javascript": Language("javascript", "main.js", ("/usr/bin/node", "main.js"), requires=("/usr/bin/node",),
                               run_limits=Limits(memory_mb=1024)),
        "typescript": Language("typescript", "main.ts", ("/usr/bin/node", "out/main.js"),
                               compile=("/usr/bin/node", str(tsc), "--outDir", "out", "--target", "es2020",
                                        "--module", "commonjs", "--skipLibCheck", "main.ts"),
                               mounts=(Mount(str(TOOLCHAIN_ROOT), str(TOOLCHAIN_ROOT)),),
                               requires=("/usr/bin/node", str(tsc)), run_limits=Limits(memory_mb=1024)),
        "c": Language("c", "main.c", ("./main",), compile=("/usr/bin/gcc", "-O2", "-o", "main", "main.c", "-lm"),
                      requires=("/usr/bin/gcc",)),
        "cpp": Language("cpp", "main.cpp", ("./main",),
                        compile=("/usr/bin/g++", "-O2", "-std=c++17", "-o", "main", "main.cpp"),
                        requires=("/usr/bin/g++",)),
        "java": Language("java", "Main.java", ("/usr/bin/java", "-Xmx256m", "-XX:+UseSerialGC", "-cp", ".", "{main}"),
                         compile=("/usr/bin/javac", "-encoding", "UTF-8", "{source}"), requires=("/usr/bin/javac",),
                         run_limits=Limits(memory_mb=1024, wall_s=15), source_name=_java_file),
        "go": Language("go", "main.go", ("./main",), compile=("/usr/bin/go", "build", "-o", "main", "main.go"),
                       env={"GOCACHE": "/tmp/gocache", "GOPATH": "/tmp/gopath", "GO111MODULE": "off",
                            "GOTOOLCHAIN": "local", "GOFLAGS": "-buildvcs=false"},
                       requires=("/usr/bin/go",)),
        # Debian's rustc: a rustup toolchain under a private home directory is not readable in the sandbox.
        "rust": Language("rust", "main.rs", ("./main",), compile=("/usr/bin/rustc", "-O", "-o", "main", "main.rs"),
                         requires=("/usr/bin/rustc",)),
    }


LANGUAGES = _languages()
ALIASES = {"py": "python", "python3": "python", "js": "javascript", "node": "javascript", "ts": "typescript",
           "c++": "cpp", "cxx": "cpp", "cc": "cpp", "golang": "go", "rs": "rust"}


def language(name: str) -> Language | None:
    key = name.lower().strip()
    return LANGUAGES.get(ALIASES.get(key, key))


@dataclass
class ProgramResult:
    language: str
    phase: str  # compile | run | unsupported
    result: RunResult | None
    compile_result: RunResult | None = None
    detail: str = ""

    @property
    def status(self) -> str:
        if self.result is None:
            return "unsupported"
        return self.result.status

    @property
    def ok(self) -> bool:
        return self.phase == "run" and self.result is not None and self.result.ok


def run_program(sandbox: Sandbox, lang_name: str, code: str, *, stdin: bytes | None = None,
                limits: Limits | None = None, workdir: Path | None = None, keep: bool = False) -> ProgramResult:
    """Compiles (if the language needs it) and runs `code`, each step in its own sandboxed process."""
    lang = language(lang_name)
    if lang is None:
        return ProgramResult(lang_name, "unsupported", None, detail=f"no runner for language {lang_name!r}")
    missing = lang.missing()
    if missing:
        return ProgramResult(lang.name, "unsupported", None,
                             detail=f"toolchain missing ({', '.join(missing)}); run `judgebench setup`")
    own_dir = workdir is None
    work = workdir or sandbox.new_workdir()
    try:
        source = lang.source_name(code) if lang.source_name else lang.source
        (work / source).write_text(code, encoding="utf-8")
        fill = {"source": source, "main": Path(source).stem}
        compiled = None
        if lang.compile:
            argv = [part.format(**fill) for part in lang.compile]
            compiled = sandbox.run(argv, work, COMPILE_LIMITS, env=lang.env, mounts=lang.mounts)
            if not compiled.ok:
                return ProgramResult(lang.name, "compile", compiled, compiled, detail="compilation failed")
        argv = [part.format(**fill) for part in lang.run]
        run_limits = limits or lang.run_limits
        if limits is not None and lang.run_limits.memory_mb > limits.memory_mb:
            run_limits = replace(limits, memory_mb=lang.run_limits.memory_mb)
        result = sandbox.run(argv, work, run_limits, env=lang.env, mounts=lang.mounts, stdin=stdin)
        return ProgramResult(lang.name, "run", result, compiled)
    finally:
        if own_dir and not keep:
            shutil.rmtree(work, ignore_errors=True)


def toolchain_report() -> dict[str, str]:
    return {name: ("ok" if not lang.missing() else "missing: " + ", ".join(lang.missing()))
            for name, lang in LANGUAGES.items()}
