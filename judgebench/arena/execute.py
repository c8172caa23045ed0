"""Every stored answer runs once in the sandbox (or the browser); results are stored per answer,
screenshots as content-addressed files beside them."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from judgebench.arena.workspace import ArenaWorkspace
from judgebench.execution.extract import extract
from judgebench.execution.run_answer import AnswerExecution, execute_answer
from judgebench.execution.sandbox import Sandbox

OUTPUT_LIMIT = 5_000


def _record(ws: ArenaWorkspace, uid: str, done: AnswerExecution) -> dict[str, Any]:
    rec = done.record
    shot = ws.store_artifact(rec.screenshot.data) if rec is not None and rec.screenshot is not None else None
    return {"uid": uid, "status": done.status, "detail": done.detail, "wall_s": round(done.wall_s, 3),
            "language": done.extracted.language if done.extracted else None,
            "environment": done.extracted.environment if done.extracted else None,
            "stdout": rec.stdout[-OUTPUT_LIMIT:] if rec else "", "stderr": rec.stderr[-OUTPUT_LIMIT:] if rec else "",
            "screenshot": shot}


def execute_model(ws: ArenaWorkspace, model: str, sandbox: Sandbox, renderer: Any | None, *, workers: int = 2,
                  on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Runs the answers not executed yet. Web answers go through the single warm browser in this
    thread; programs run `workers` at a time in their sandboxes."""
    answers = ws.answers(model)
    results = ws.executions(model)
    try:
        done_keys = results.keys()
        todo = [(uid, rec) for uid, rec in answers.items() if uid not in done_keys and rec.get("failure") is None]
        statuses: Counter[str] = Counter()
        started = time.monotonic()
        # Pages, and Plotly figures (written as pages), go through the one browser in this thread.
        web = [(u, r) for u, r in todo if (code := extract(r.get("answer") or "")) is not None
               and (code.web_kind or "plotly" in code.dependencies)]
        programs = [(u, r) for u, r in todo if (u, r) not in web]
        finished = 0

        def store(uid: str, done: AnswerExecution) -> None:
            nonlocal finished
            results.put(uid, _record(ws, uid, done))
            statuses[done.status] += 1
            finished += 1
            if on_progress:
                on_progress(finished, len(todo))

        with ThreadPoolExecutor(max(1, workers)) as pool:
            futures = [(uid, pool.submit(execute_answer, rec.get("answer") or "", sandbox, None))
                       for uid, rec in programs]
            for uid, rec in web:
                store(uid, execute_answer(rec.get("answer") or "", sandbox, renderer))
            for uid, future in futures:
                store(uid, future.result())
        return {"model": model, "executed": len(todo), "statuses": dict(statuses),
                "wall_s": round(time.monotonic() - started, 2)}
    finally:
        answers.close()
        results.close()
