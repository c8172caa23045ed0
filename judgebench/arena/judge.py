"""Arena games: each model answer against the baseline's answer to the same prompt, in both orders.

Game 1 shows the baseline as A, game 2 shows the model as A. The judge sees both answers, their
execution results and screenshots, and ends with a verdict [[A>>B]] .. [[B>>A]] (the last one in the
text counts). Answers without runnable code lose without a judge call; judge failures are stored as
failures and counted, never turned into verdicts.
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgebench.arena.workspace import ArenaWorkspace
from judgebench.judges.spec import JudgeSpec
from judgebench.prompts import IMAGE_TOKEN_ESTIMATE, cut, fill_template, load_template
from judgebench.records import FailureKind, Screenshot
from judgebench.runner.cache import ResponseCache
from judgebench.runner.calls import bounded_gather, cached_call
from judgebench.runner.limits import Limits
from judgebench.runner.llm_call import RetryPolicy

TEMPLATE = "arena_judge"
LABELS = ("A>>B", "A>B", "A=B", "B>A", "B>>A")
_VERDICT = re.compile(r"\[\[\s*([AB])\s*(>>|>|=|<<|<)\s*([AB])\s*\]\]")
ANSWER_LIMIT = 20_000
OUTPUT_LIMIT = 3_000


def parse_arena_verdict(text: str) -> str | None:
    """The last well-formed verdict in the text, normalised to one of LABELS; None if there is none."""
    found = None
    for left, op, right in _VERDICT.findall(text or ""):
        if left == right:
            continue
        if op in ("<", "<<"):  # [[A<B]] is [[B>A]]
            left, right, op = right, left, op.replace("<", ">")
        label = "A=B" if op == "=" else f"{left}{op}{right}"
        if label in LABELS:
            found = label
    return found


def swap(label: str) -> str:
    return {"A>>B": "B>>A", "A>B": "B>A", "A=B": "A=B", "B>A": "A>B", "B>>A": "A>>B"}[label]


def _execution_text(execution: dict[str, Any] | None) -> str:
    if not execution:
        return "(not executed)"
    lines = [f"status: {execution['status']}" + (f" ({execution['detail']})" if execution.get("detail") else ""),
             f"environment: {execution.get('environment') or '-'}"]
    if execution.get("stdout"):
        lines.append("output:\n" + cut(execution["stdout"], OUTPUT_LIMIT, marker=True))
    if execution.get("stderr"):
        lines.append("errors:\n" + cut(execution["stderr"], OUTPUT_LIMIT, marker=True))
    return "\n".join(lines)


def _score(answer: dict[str, Any] | None, execution: dict[str, Any] | None) -> int:
    if not answer or not answer.get("code", {}).get("has_code"):
        return -1
    if not execution:
        return 0
    return 2 if execution["status"] == "ok" else 0


def reference_verdict(name: str, a: tuple[dict, dict | None], b: tuple[dict, dict | None], key: str,
                      seed: int) -> str:
    """No-LLM judges, as floors: exec-success compares whether each answer ran; longer prefers length."""
    if name == "always-a":
        return "A>B"
    if name == "random":
        return random.Random(f"{seed}:{key}").choice(LABELS)
    if name == "longer":
        la, lb = len(a[0].get("answer") or ""), len(b[0].get("answer") or "")
        return "A>B" if la > lb else "B>A" if lb > la else "A=B"
    sa, sb = _score(*a), _score(*b)
    if sa == sb:
        return "A=B"
    strong = abs(sa - sb) >= 2
    return ("A>>B" if strong else "A>B") if sa > sb else ("B>>A" if strong else "B>A")


def games_for(prompt_uids: list[str]) -> list[tuple[str, int]]:
    return [(uid, game) for uid in prompt_uids for game in (1, 2)]


async def judge_model(ws: ArenaWorkspace, spec: JudgeSpec, baseline: str, model: str, *, cache_path: Path | None,
                      policy: RetryPolicy | None = None, seed: int = 0, retry_failed: bool = False,
                      on_progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    template = load_template(TEMPLATE)
    answers = {m: ws.answer_records(m) for m in (baseline, model)}
    executions = {m: ws.execution_records(m) for m in (baseline, model)}
    store = ws.judgments(spec.name, baseline, model)
    stored = dict(store.items())
    todo = [(uid, g) for uid, g in games_for([p.uid for p in ws.prompts.prompts])
            if f"{uid}|{g}" not in stored or (stored[f"{uid}|{g}"].get("failure") == FailureKind.API_ERROR.value)
            or (retry_failed and stored[f"{uid}|{g}"].get("failure"))]
    cache = ResponseCache(cache_path if spec.kind == "llm" else None)
    limits = Limits(spec.concurrency, spec.rpm, spec.tpm)
    rng = random.Random(seed)
    prompts = ws.prompts.by_uid()
    counts: Counter[str] = Counter()
    started = time.monotonic()

    async def one(uid: str, game: int) -> None:
        first, second = (baseline, model) if game == 1 else (model, baseline)
        a = (answers[first].get(uid), executions[first].get(uid))
        b = (answers[second].get(uid), executions[second].get(uid))
        record: dict[str, Any] = {"uid": uid, "game": game, "a": first, "b": second, "judge": spec.name,
                                  "template_hash": template.hash}
        if any(side[0] is None or side[0].get("failure") for side in (a, b)):
            record.update(failure="missing_answer", detail="an answer is missing or its generation failed")
        elif not (a[0].get("code", {}).get("has_code") and b[0].get("code", {}).get("has_code")):
            # The rule, not a judge: no runnable code loses outright; neither side having code is a tie.
            ha, hb = a[0]["code"]["has_code"], b[0]["code"]["has_code"]
            record.update(label="A=B" if ha == hb else ("A>>B" if ha else "B>>A"), rule="no_code")
        elif spec.kind == "reference":
            record.update(label=reference_verdict(spec.name, a, b, f"{uid}|{game}", spec.seed), rule="reference")
        else:
            record.update(await _ask(spec, template, prompts[uid].instruction, a, b, ws, cache, limits,
                                     policy or RetryPolicy(), rng))
        store.put(f"{uid}|{game}", record)
        counts["judged"] += 1
        counts["failed"] += "failure" in record
        if on_progress:
            on_progress(counts["judged"], len(todo))

    try:
        await bounded_gather(todo, one, 2 * spec.concurrency)
    finally:
        store.close()
        cache.close()
    return {"judge": spec.name, "baseline": baseline, "model": model, "games": len(todo), **counts,
            "wall_s": round(time.monotonic() - started, 2)}


async def _ask(spec: JudgeSpec, template: Any, instruction: str, a: tuple, b: tuple, ws: ArenaWorkspace,
               cache: ResponseCache, limits: Limits, policy: RetryPolicy, rng: random.Random) -> dict[str, Any]:
    fields = {"instruction": cut(instruction, 5_000, marker=True)}
    images: dict[str, Screenshot | None] = {}
    for slot, (answer, execution) in (("a", a), ("b", b)):
        fields[f"answer_{slot}"] = cut(answer.get("answer") or "", ANSWER_LIMIT, marker=True)
        fields[f"execution_{slot}"] = _execution_text(execution)
        shot = execution.get("screenshot") if execution else None
        images[f"screenshot_{slot}"] = Screenshot(ws.artifact(shot)) if shot else None
    content, shown, _omitted, chars = fill_template(template, fields, images, vision=spec.vision)
    messages = [{"role": "user", "content": content}]
    extra = {}
    if spec.constrained:
        extra["json_schema"] = {"type": "object", "properties": {
            "reasoning": {"type": "string", "maxLength": 300},
            "verdict": {"type": "string", "enum": [f"[[{label}]]" for label in LABELS]}},
            "required": ["reasoning", "verdict"]}
    result = await cached_call(spec, messages, cache=cache, limits=limits, policy=policy, rng=rng,
                               key_parts=(template.hash, "arena"), estimated_tokens=chars // 4 + shown *
                               IMAGE_TOKEN_ESTIMATE, extra_params=extra)
    out: dict[str, Any] = {k: v for k, v in result.to_dict().items() if k != "text"}
    out["raw_text"] = result.text or ""
    if result.failure is not None:
        out["failure"] = result.failure.value
        return out
    label = parse_arena_verdict(result.text or "")
    if label is None:
        out.update(failure=FailureKind.UNPARSEABLE.value, detail="no [[A>B]]-style verdict in the answer")
    else:
        out.pop("failure", None)
        out["label"] = label
    return out
