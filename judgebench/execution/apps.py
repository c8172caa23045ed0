"""Streamlit and Gradio answers: served on a loopback port inside the sandbox's own network namespace
and screenshotted there by headless Chromium, so the app never sees a real network."""

from __future__ import annotations

import shutil
from pathlib import Path

from judgebench.execution.languages import SHIMS, TOOLCHAIN_ROOT
from judgebench.execution.sandbox import Limits, Mount, RunResult, Sandbox

APP_PYTHON = TOOLCHAIN_ROOT / "pyenv" / "bin" / "python"
DRIVER = Path(__file__).resolve().parent / "app_driver.py"
APP_LIMITS = Limits(wall_s=90, cpu_s=180, memory_mb=3072, processes=512, disk_mb=512, tmp_mb=1024)
PORTS = {"Streamlit": ("streamlit", 8501), "Gradio": ("gradio", 7860)}


def apps_available() -> str | None:
    if not APP_PYTHON.exists():
        return f"{APP_PYTHON} missing (judgebench setup creates it with pinned streamlit and gradio)"
    if not Path("/usr/bin/chromium").exists():
        return "/usr/bin/chromium missing (judgebench setup)"
    return None


def run_app(sandbox: Sandbox, environment: str, code: str) -> tuple[RunResult, bytes | None]:
    kind, port = PORTS[environment]
    work = sandbox.new_workdir("app-")
    try:
        (work / "main.py").write_text(code, encoding="utf-8")
        (work / "driver.py").write_text(DRIVER.read_text(encoding="utf-8"), encoding="utf-8")
        result = sandbox.run(
            [str(APP_PYTHON), "driver.py", kind, str(port), "/work/app.png"], work, APP_LIMITS,
            env={"PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg", "PYTHONPATH": "/opt/judgebench-shims",
                 "HOME": "/work"},
            mounts=(Mount(str(TOOLCHAIN_ROOT), str(TOOLCHAIN_ROOT)), Mount(str(SHIMS), "/opt/judgebench-shims")))
        shot = (work / "app.png").read_bytes() if (work / "app.png").is_file() else None
        return result, shot
    finally:
        shutil.rmtree(work, ignore_errors=True)
