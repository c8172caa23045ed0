"""Web answers rendered to PNG in headless Chromium (Debian's), driven by Playwright.

One warm browser serves every render; each render gets a fresh context (no shared storage) whose
every request is refused except local files judgebench put there, so a page cannot reach the
network or a CDN. Readiness is awaited (load, fonts, two animation frames, or the framework's own
"mounted" signal), never slept for.
"""

from __future__ import annotations

import contextlib
import html
import json
import re
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgebench.execution.languages import TOOLCHAIN_ROOT

CHROMIUM = "/usr/bin/chromium"
BROWSER_WRAPPER = Path(__file__).resolve().parent / "chromium-sandbox.sh"
WEB_LIBS = TOOLCHAIN_ROOT / "web" / "node_modules"
LIBS = {
    "react": "react/umd/react.production.min.js",
    "react-dom": "react-dom/umd/react-dom.production.min.js",
    "babel": "@babel/standalone/babel.min.js",
    "vue": "vue/dist/vue.global.prod.js",
    "mermaid": "mermaid/dist/mermaid.min.js",
}
CHROMIUM_ARGS = ["--headless=new", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-extensions", "--mute-audio", "--disable-dev-shm-usage"]
KINDS = ("html", "react", "vue", "mermaid", "javascript")


class WebUnavailable(RuntimeError):
    pass


@dataclass
class WebResult:
    kind: str
    status: str  # ok | error | timeout | sandbox_failure
    png: bytes | None
    console_errors: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def web_available() -> str | None:
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "the Playwright package is not installed (pip install 'judgebench[web]')"
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} not found (judgebench setup installs Debian's chromium)"
    missing = [name for name, rel in LIBS.items() if not (WEB_LIBS / rel).exists()]
    if missing:
        return f"page libraries missing under {WEB_LIBS}: {', '.join(missing)} (run judgebench setup)"
    return None


def _script(name: str) -> str:
    return f'<script src="{(WEB_LIBS / LIBS[name]).as_uri()}"></script>'


_READY = "window.__jbReady = true;"
# Framework errors often fire after mounting (React renders asynchronously): any uncaught error marks
# the render as failed, while the page still gets its screenshot.
_CATCH_ALL = ("<script>window.addEventListener('error', (e) => { window.__jbError = String(e.message || e); });"
              "</script>")
_FAIL = "window.__jbError = String(e && (e.stack || e.message) || e); window.__jbReady = true;"


def _react_page(code: str) -> str:
    """Model-written React modules, made runnable without a bundler: imports of react become globals,
    the default export is mounted into #root."""
    body = re.sub(r"^\s*import\s+[^;]*?from\s+['\"][^'\"]+['\"];?\s*$", "", code, flags=re.MULTILINE)
    body = re.sub(r"^\s*import\s+['\"][^'\"]+['\"];?\s*$", "", body, flags=re.MULTILINE)
    name = "App"
    match = re.search(r"export\s+default\s+(?:function|class)\s+(\w+)", body)
    if match:
        name = match.group(1)
        body = body.replace(match.group(0), match.group(0).replace("export default ", ""), 1)
    else:
        match = re.search(r"export\s+default\s+(\w+)\s*;?", body)
        if match:
            name = match.group(1)
            body = body.replace(match.group(0), "", 1)
    body = re.sub(r"\bexport\s+(?=(const|let|var|function|class)\b)", "", body)
    prelude = ("const {useState, useEffect, useRef, useMemo, useCallback, useReducer, useContext, createContext, "
               "Fragment} = React;\n")
    mount = (f"\ntry {{ ReactDOM.createRoot(document.getElementById('root')).render(React.createElement({name}));"
             f" requestAnimationFrame(() => requestAnimationFrame(() => {{ {_READY} }})); }} catch (e) {{ {_FAIL} }}")
    source = json.dumps(prelude + body + mount)
    return ("<!doctype html><html><head><meta charset='utf-8'>" + _CATCH_ALL + _script("react") + _script("react-dom")
            + _script("babel") + "</head><body><div id='root'></div><script>\n"
            "try { const out = Babel.transform(" + source + ", {presets: ['react'], sourceType: 'script'}).code;"
            f" (0, eval)(out); }} catch (e) {{ {_FAIL} }}\n</script></body></html>")


def _vue_page(code: str) -> str:
    template = re.search(r"<template>([\s\S]*)</template>", code)
    script = re.search(r"<script[^>]*>([\s\S]*?)</script>", code)
    style = "".join(re.findall(r"<style[^>]*>([\s\S]*?)</style>", code))
    component = "{}"
    if script:
        js = re.sub(r"^\s*import\s+[^;]*?;?\s*$", "", script.group(1), flags=re.MULTILINE)
        component = re.sub(r"export\s+default", "const __component =", js, count=1) + "\n__component"
    markup = template.group(1) if template else code
    return ("<!doctype html><html><head><meta charset='utf-8'>" + _CATCH_ALL + _script("vue")
            + f"<style>{style}</style></head>"
            "<body><div id='app'></div><script>\ntry { const comp = (0, eval)(" + json.dumps(component) + ") || {};"
            " const app = Vue.createApp(Object.assign({}, comp, {template: " + json.dumps(markup) + "}));"
            " app.config.errorHandler = (e) => { " + _FAIL + " };"
            " app.mount('#app'); requestAnimationFrame(() => requestAnimationFrame(() => { " + _READY + " }));"
            " } catch (e) { " + _FAIL + " }\n</script></body></html>")


def _mermaid_page(code: str) -> str:
    return ("<!doctype html><html><head><meta charset='utf-8'>" + _script("mermaid") + "</head><body>"
            f"<pre class='mermaid'>{html.escape(code)}</pre><script>\n"
            "mermaid.initialize({startOnLoad: false, securityLevel: 'strict'});"
            " mermaid.run().then(() => { " + _READY + " }).catch((e) => { " + _FAIL + " });\n"
            "</script></body></html>")


def _javascript_page(code: str) -> str:
    return ("<!doctype html><html><head><meta charset='utf-8'></head><body><canvas id='canvas' width='800' "
            "height='600'></canvas><div id='app'></div><script>\n" + code.replace("</script", "<\\/script")
            + "\n</script></body></html>")


def build_page(kind: str, code: str) -> str:
    if kind == "html":
        return code if "<html" in code.lower() or "<body" in code.lower() else f"<!doctype html><body>{code}</body>"
    builders = {"react": _react_page, "vue": _vue_page, "mermaid": _mermaid_page, "javascript": _javascript_page}
    return builders[kind](code)


class WebRenderer:
    """Use as a context manager; `render` may be called many times on the warm browser."""

    def __init__(self, *, viewport: tuple[int, int] = (1024, 768), timeout_s: float = 10.0,
                 bubblewrap: bool = True) -> None:
        problem = web_available()
        if problem:
            raise WebUnavailable(problem)
        self.viewport = {"width": viewport[0], "height": viewport[1]}
        self.timeout_ms = int(timeout_s * 1000)
        self.bubblewrap = bubblewrap
        self._pw: Any = None
        self._browser: Any = None
        self._context: Any = None
        self._page: Any = None
        self._errors: list[str] = []
        self._tmp = Path(tempfile.mkdtemp(prefix="jb-web-"))

    def __enter__(self) -> WebRenderer:
        from playwright.sync_api import sync_playwright

        self._pw = sync_playwright().start()
        # Chromium's own sandbox needs a non-root user; as root it must be off, so the whole browser runs
        # inside bubblewrap instead (no network namespace, read-only system), when bwrap is present.
        args = [*CHROMIUM_ARGS, "--no-sandbox"] if _running_as_root() else CHROMIUM_ARGS
        executable = CHROMIUM
        env = {"PATH": "/usr/bin:/bin", "HOME": str(self._tmp)}  # no API keys reach the browser
        if self.bubblewrap and shutil.which("bwrap"):
            executable = str(BROWSER_WRAPPER)
            env.update({"JB_PAGES": str(self._tmp), "JB_LIBS": str(WEB_LIBS)})
        self._browser = self._pw.chromium.launch(executable_path=executable, args=args, headless=True, env=env)
        return self

    def __exit__(self, *exc: object) -> None:
        self._drop_page()
        if self._browser is not None:
            self._browser.close()
        if self._pw is not None:
            self._pw.stop()
        shutil.rmtree(self._tmp, ignore_errors=True)

    def _allow(self, pages_url: str):  # type: ignore[no-untyped-def]
        allowed_prefixes = (pages_url, WEB_LIBS.as_uri(), "data:", "about:", "blob:")

        def handler(route: Any) -> None:
            url = route.request.url
            if url.startswith(allowed_prefixes):
                route.continue_()
            else:
                route.abort("blockedbyclient")

        return handler

    def _fresh_page(self) -> Any:
        """A warm page is reused across renders (a new renderer process costs ~130 ms); it is replaced
        after any failure, and storage is wiped between renders so one answer cannot affect the next."""
        if self._page is None:
            self._context = self._browser.new_context(viewport=self.viewport, offline=True)
            self._context.route("**/*", self._allow(self._tmp.as_uri()))
            self._page = self._context.new_page()
            self._page.on("console", lambda msg: self._errors.append(msg.text) if msg.type == "error" else None)
            self._page.on("pageerror", lambda exc: self._errors.append(str(exc)))
        return self._page

    def _drop_page(self) -> None:
        if self._context is not None:
            with contextlib.suppress(Exception):  # the browser may already be gone
                self._context.close()
        self._context = self._page = None

    def _reset_page(self, page: Any) -> None:
        page.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
        page.goto("about:blank")
        self._context.clear_cookies()

    def render(self, kind: str, code: str) -> WebResult:
        if kind not in KINDS:
            return WebResult(kind, "error", None, detail=f"unknown web kind {kind!r}")
        started = time.monotonic()
        page_file = self._tmp / f"page-{time.monotonic_ns()}.html"
        page_file.write_text(build_page(kind, code), encoding="utf-8")
        self._errors = []
        healthy = False
        try:
            page = self._fresh_page()
            page.goto(page_file.as_uri(), wait_until="load", timeout=self.timeout_ms)
            if kind in ("react", "vue", "mermaid"):
                page.wait_for_function("window.__jbReady === true", timeout=self.timeout_ms)
                failure = page.evaluate("window.__jbError || null")
                if failure:
                    self._errors.append(failure)
            page.evaluate("() => document.fonts.ready.then(() => new Promise(r => "
                          "requestAnimationFrame(() => requestAnimationFrame(r))))")
            png = page.screenshot(type="png", timeout=self.timeout_ms)
            status = "error" if kind in ("react", "vue", "mermaid") and page.evaluate("!!window.__jbError") else "ok"
            self._reset_page(page)
            healthy = True
            return WebResult(kind, status, png, list(self._errors), time.monotonic() - started)
        except Exception as exc:  # playwright raises its own TimeoutError and Error types
            timeout = "Timeout" in type(exc).__name__
            return WebResult(kind, "timeout" if timeout else "error", None, list(self._errors),
                             time.monotonic() - started, str(exc).splitlines()[0][:300])
        finally:
            if not healthy:
                self._drop_page()  # a hung or crashed page is not reused
            page_file.unlink(missing_ok=True)


def _running_as_root() -> bool:
    import os

    return os.geteuid() == 0
