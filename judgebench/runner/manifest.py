"""Run manifests: what produced a result, so every number can be traced back and reproduced."""

from __future__ import annotations

import platform
import subprocess
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from judgebench import __version__


def git_sha() -> str | None:
    """The judgebench checkout's commit, when running from one (None for an installed wheel)."""
    here = Path(__file__).resolve().parent
    try:
        out = subprocess.run(["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    dirty = subprocess.run(["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, timeout=5).stdout.strip()
    return out.stdout.strip() + ("-dirty" if dirty else "")


def _version(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def environment() -> dict[str, Any]:
    return {
        "judgebench": __version__,
        "git_sha": git_sha(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "litellm": _version("litellm"),
        "datasets": _version("datasets"),
        "llama_cpp_python": _version("llama-cpp-python"),
    }


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")
