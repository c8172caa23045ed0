"""Judge answers -> verdicts. Lenient about form, strict about meaning.

Accepted: a JSON object (bare, fenced, or followed by prose), keys in any case, winner labels in the
common spellings. Anything else is unparseable and keeps its raw text; no model is asked to repair
it, because a repaired verdict is a vote nobody cast.
"""

from __future__ import annotations

import json
import re
from typing import Any

from judgebench.records import Verdict, Vote

_WINNERS: dict[str, Vote] = {
    "a": Vote.A, "modela": Vote.A, "assistanta": Vote.A, "responsea": Vote.A,
    "b": Vote.B, "modelb": Vote.B, "assistantb": Vote.B, "responseb": Vote.B,
    "tie": Vote.TIE, "equal": Vote.TIE, "draw": Vote.TIE,
    "bothbad": Vote.BOTH_BAD, "neither": Vote.BOTH_BAD,
}
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


class UnparseableVerdict(ValueError):
    pass


def _normalise_label(value: Any) -> Vote | None:
    if not isinstance(value, str):
        return None
    return _WINNERS.get(re.sub(r"[^a-z]", "", value.lower()))


def _objects(text: str) -> list[Any]:
    """JSON values found in the text: fenced blocks first, then each '{' decoded in place."""
    found: list[Any] = []
    decoder = json.JSONDecoder()
    for block in _FENCE.findall(text):
        try:
            found.append(json.loads(block.strip()))
        except json.JSONDecodeError:
            continue
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        found.append(value)
    return found


def _lower_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k).strip().lower(): _lower_keys(v) for k, v in value.items()}
    return value


def _verdict_from(obj: Any, allow_both_bad: bool) -> Verdict | None:
    obj = _lower_keys(obj)
    if not isinstance(obj, dict):
        return None
    inner = obj.get("overall", obj)
    if not isinstance(inner, dict) or "winner" not in inner:
        return None
    winner = _normalise_label(inner["winner"])
    if winner is None or (winner is Vote.BOTH_BAD and not allow_both_bad):
        return None
    reasoning = inner.get("reasoning", "")
    return Verdict(winner, reasoning if isinstance(reasoning, str) else json.dumps(reasoning))


def parse_json_verdict(text: str, *, allow_both_bad: bool = False) -> Verdict:
    """The first object carrying a readable winner wins; raises UnparseableVerdict otherwise."""
    if not text or not text.strip():
        raise UnparseableVerdict("empty answer")
    for obj in _objects(text):
        verdict = _verdict_from(obj, allow_both_bad)
        if verdict is not None:
            return verdict
    raise UnparseableVerdict("no JSON object with a recognised Overall.winner")
