"""Candidate answers: generated through litellm (same runner pieces as judging), or imported."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgebench.arena.workspace import ArenaWorkspace
from judgebench.data.errors import DatasetError
from judgebench.execution.extract import extract
from judgebench.judges.spec import JudgeSpec
from judgebench.prompts import load_template
from judgebench.records import FailureKind
from judgebench.runner.cache import ResponseCache
from judgebench.runner.calls import bounded_gather, cached_call
from judgebench.runner.limits import Limits
from judgebench.runner.llm_call import RetryPolicy
from judgebench.runner.manifest import now_iso

SYSTEM_TEMPLATE = "arena_generation_system"


def describe_code(answer: str | None) -> dict[str, Any]:
    code = extract(answer or "")
    if code is None:
        return {"has_code": False}
    return {"has_code": True, "language": code.language, "environment": code.environment,
            "dependencies": list(code.dependencies), "blocks": code.blocks}


def pending(ws: ArenaWorkspace, model: str, retry_failed: bool = False) -> list[str]:
    store = ws.answers(model)
    try:
        done = {k for k, r in store.items() if r.get("failure") is None
                or (r["failure"] != FailureKind.API_ERROR.value and not retry_failed)}
    finally:
        store.close()
    return [p.uid for p in ws.prompts.prompts if p.uid not in done]


async def generate(ws: ArenaWorkspace, spec: JudgeSpec, name: str, *, cache_path: Path | None,
                   policy: RetryPolicy | None = None, seed: int = 0, retry_failed: bool = False,
                   on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Answers every pending prompt; each answer is stored the moment it arrives (resumable)."""
    template = load_template(SYSTEM_TEMPLATE)
    todo = pending(ws, name, retry_failed)
    store = ws.answers(name)
    cache = ResponseCache(cache_path)
    limits = Limits(spec.concurrency, spec.rpm, spec.tpm)
    rng = random.Random(seed)
    prompts = ws.prompts.by_uid()
    counts = {"done": 0, "failed": 0, "cached": 0, "no_code": 0, "cost_usd": 0.0}
    started = time.monotonic()
    ws.write_model_manifest(name, {"model": name, "kind": "generated", "spec": spec.public(),
                                   "system_prompt": {"name": template.name, "hash": template.hash}})

    async def one(uid: str) -> None:
        messages = [{"role": "system", "content": template.text}, {"role": "user", "content": prompts[uid].instruction}]
        result = await cached_call(spec, messages, cache=cache, limits=limits, policy=policy or RetryPolicy(),
                                   rng=rng, key_parts=(template.hash, "answer"),
                                   estimated_tokens=len(prompts[uid].instruction) // 4 + len(template.text) // 4)
        record = {"uid": uid, "model": name, "answer": result.text, **result.to_dict(),
                  "code": describe_code(result.text) if result.failure is None else {"has_code": False}}
        record.pop("text", None)
        store.put(uid, record)
        counts["done"] += 1
        counts["failed"] += result.failure is not None
        counts["cached"] += result.cached
        counts["no_code"] += result.failure is None and not record["code"]["has_code"]
        counts["cost_usd"] += 0.0 if result.cached else result.cost_usd
        if on_progress:
            on_progress(counts["done"], len(todo))

    try:
        await bounded_gather(todo, one, 2 * spec.concurrency)
    finally:
        store.close()
        cache.close()
        ws.write_model_manifest(name, {"session": {"finished": now_iso(), "requested": len(todo), **counts,
                                                   "wall_s": round(time.monotonic() - started, 2)}})
    return {"model": name, "requested": len(todo), **counts}


def import_answers(ws: ArenaWorkspace, path: Path, name: str) -> dict[str, Any]:
    """Recorded answers ({"uid", "answer"} per line) join the arena as model `name`."""
    if not path.exists():
        raise DatasetError(f"No such file: {path}")
    known = ws.prompts.by_uid()
    store = ws.answers(name)
    imported, unknown, bad = 0, [], []
    try:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                bad.append(n)
                continue
            text = row.get("answer", row.get("output")) if isinstance(row, dict) else None
            if not isinstance(text, str) or not isinstance(row.get("uid"), str):
                bad.append(n)
                continue
            if row["uid"] not in known:
                unknown.append(row["uid"])
                continue
            store.put(row["uid"], {"uid": row["uid"], "model": name, "answer": text, "failure": None, "detail": "",
                                   "cached": False, "imported_from": str(path), "code": describe_code(text)})
            imported += 1
        missing = len(known) - len(store)
    finally:
        store.close()
    ws.write_model_manifest(name, {"model": name, "kind": "imported", "source": str(path)})
    if bad:
        raise DatasetError(f"{path}: lines {bad[:10]} are not JSON objects with string uid and answer "
                           f"({imported} other answers were imported)")
    return {"model": name, "imported": imported, "unknown_uids": unknown[:20], "prompts_without_answer": missing}
