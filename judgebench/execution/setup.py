"""`judgebench setup`: install the pinned toolchains that sandboxed runs use, ahead of time.

Runs never install anything; this is the one place that does. Debian packages through apt (root
only), npm packages pinned to exact versions under TOOLCHAIN_ROOT.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from judgebench.execution.languages import TOOLCHAIN_ROOT, TYPESCRIPT_VERSION

APT_PACKAGES = {"bubblewrap": "/usr/bin/bwrap", "golang-go": "/usr/bin/go", "rustc": "/usr/bin/rustc",
                "gcc": "/usr/bin/gcc", "g++": "/usr/bin/g++",
                # Python programs' usual visual libraries, for Debian's python3 inside the sandbox
                "python3-numpy": "/usr/lib/python3/dist-packages/numpy",
                "python3-matplotlib": "/usr/lib/python3/dist-packages/matplotlib",
                "python3-pygame": "/usr/lib/python3/dist-packages/pygame",
                "python3-plotly": "/usr/lib/python3/dist-packages/plotly"}
APT_WEB = {"chromium": "/usr/bin/chromium", "python3-venv": "/usr/share/doc/python3-venv"}
# Streamlit and Gradio answers run with these, in a venv over Debian's python3 (sees numpy/matplotlib).
APP_PACKAGES = ("streamlit==1.67.0", "gradio==6.31.0", "playwright==1.65.2")
NPM_PACKAGES = {"node": {"typescript": TYPESCRIPT_VERSION}}
NPM_WEB = {"web": {"react": "18.3.1", "react-dom": "18.3.1", "@babel/standalone": "7.26.4", "vue": "3.5.13",
                   "mermaid": "11.4.1"}}


@dataclass(frozen=True)
class Step:
    description: str
    argv: tuple[str, ...]
    cwd: str | None = None


def plan(web: bool) -> list[Step]:
    steps: list[Step] = []
    apt = {**APT_PACKAGES, **(APT_WEB if web else {})}
    missing = [pkg for pkg, path in apt.items() if not Path(path).exists()]
    if missing:
        steps.append(Step("refresh Debian package lists", ("apt-get", "update")))
        steps.append(Step(f"install Debian packages: {' '.join(missing)}",
                          ("apt-get", "install", "-y", "--no-install-recommends", *missing)))
    if web:
        pyenv = TOOLCHAIN_ROOT / "pyenv"
        if not (pyenv / "bin" / "python").exists():
            steps.append(Step(f"create the sandbox's app Python at {pyenv}",
                              ("/usr/bin/python3", "-m", "venv", "--system-site-packages", str(pyenv))))
        site = sorted(pyenv.glob("lib/python3*/site-packages"))
        installed = {"==".join(p.name.removesuffix(".dist-info").split("-")[:2]).lower()
                     for folder in site for p in folder.glob("*.dist-info")}
        wanted = [pkg for pkg in APP_PACKAGES if pkg not in installed]
        if wanted:
            steps.append(Step(f"install app frameworks: {' '.join(wanted)}",
                              (str(pyenv / "bin" / "pip"), "install", "--quiet", *wanted)))
    for folder, packages in {**NPM_PACKAGES, **(NPM_WEB if web else {})}.items():
        target = TOOLCHAIN_ROOT / folder
        wanted = [f"{name}@{version}" for name, version in packages.items()
                  if not (target / "node_modules" / name / "package.json").exists()]
        if wanted:
            steps.append(Step(f"install npm packages into {target}: {' '.join(wanted)}",
                              ("npm", "install", "--no-audit", "--no-fund", "--save-exact", *wanted), str(target)))
    return steps


def run_plan(steps: list[Step], on_step=print) -> None:  # type: ignore[no-untyped-def]
    for step in steps:
        on_step(step.description)
        if step.argv[0] == "apt-get" and shutil.which("apt-get") is None:
            raise RuntimeError("apt-get not found: install the Debian packages listed above by hand")
        if step.cwd:
            Path(step.cwd).mkdir(parents=True, exist_ok=True)
            package_json = Path(step.cwd) / "package.json"
            if not package_json.exists():
                package_json.write_text('{"name": "judgebench-toolchain", "private": true}\n')
        subprocess.run(step.argv, cwd=step.cwd, check=True)
