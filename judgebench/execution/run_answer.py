"""One model answer -> one execution record: extract the code, run it in the sandbox or render it."""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from judgebench.execution.extract import ExtractedCode, extract
from judgebench.execution.languages import run_program
from judgebench.execution.sandbox import Limits, Sandbox
from judgebench.records import ExecutionRound, Screenshot

APP_ENVIRONMENTS = {"Streamlit", "Gradio"}
VISUAL_FILES = ("pygame_frame.png", "figure_1.png")  # written by the Python shims


@dataclass
class AnswerExecution:
    status: str  # ok | error | timeout | memory | killed | sandbox_failure | no_code | unsupported
    extracted: ExtractedCode | None
    record: ExecutionRound | None
    detail: str = ""
    wall_s: float = 0.0


def _execute_app(code: ExtractedCode, sandbox: Sandbox | None) -> AnswerExecution:
    from judgebench.execution.apps import apps_available, run_app

    problem = apps_available()
    if sandbox is None or problem:
        return AnswerExecution("unsupported", code, None, problem or "no sandbox available")
    result, png = run_app(sandbox, code.environment, code.code)
    record = ExecutionRound(1, code.language, code.environment, code.code, code.dependencies, stdout=result.stdout,
                            stderr=result.stderr, success=result.ok and png is not None,
                            screenshot=Screenshot(png) if png else None)
    return AnswerExecution(result.status, code, record, result.detail, result.wall_s)


def execute_answer(answer: str, sandbox: Sandbox | None, renderer=None, *,  # type: ignore[no-untyped-def]
                   limits: Limits | None = None) -> AnswerExecution:
    """`renderer` is a started WebRenderer, or None to report web answers as unsupported here."""
    code = extract(answer)
    if code is None:
        return AnswerExecution("no_code", None, None, "the answer contains no runnable code block")
    if code.environment in APP_ENVIRONMENTS:
        return _execute_app(code, sandbox)
    if code.web_kind is not None:
        if renderer is None:
            return AnswerExecution("unsupported", code, None, "web rendering is not available")
        page = renderer.render(code.web_kind, code.code)
        record = ExecutionRound(1, code.language, code.environment, code.code, code.dependencies,
                                stdout="", stderr="\n".join(page.console_errors)[:20_000], success=page.ok,
                                screenshot=Screenshot(page.png) if page.png else None)
        return AnswerExecution(page.status, code, record, page.detail, page.wall_s)
    if sandbox is None:
        return AnswerExecution("unsupported", code, None, "no sandbox available")
    work = sandbox.new_workdir("answer-")
    try:
        program = run_program(sandbox, code.language, code.code, limits=limits, workdir=work)
        shot = next((Screenshot((work / name).read_bytes()) for name in VISUAL_FILES if (work / name).is_file()),
                    None)
        figure_page = work / "plotly_figure.html"
        if shot is None and renderer is not None and figure_page.is_file():
            page = renderer.render("html", figure_page.read_text(encoding="utf-8", errors="replace"))
            shot = Screenshot(page.png) if page.png else None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if program.result is None:
        return AnswerExecution("unsupported", code, None, program.detail)
    result = program.result
    stderr = result.stderr if program.phase == "run" else f"[compilation failed]\n{result.stderr}{result.stdout}"
    record = ExecutionRound(1, code.language, code.environment, code.code, code.dependencies,
                            stdout=result.stdout if program.phase == "run" else "", stderr=stderr,
                            success=program.ok, screenshot=shot)
    return AnswerExecution(result.status, code, record, result.detail, result.wall_s)
