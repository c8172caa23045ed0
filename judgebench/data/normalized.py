"""judgebench's own row format: what `data export` writes and every loader reads back.

A downloaded Hub copy exported once in this format is reused offline, and the format is plain JSON
so other tools can read it. Screenshots stay base64 text inside the row.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgebench.data.bigcodereward import screenshot_from_field
from judgebench.data.errors import RowFormatError
from judgebench.records import Battle, ExecutionRound, Message, Side, Vote

SCHEMA = "judgebench.battle/1"


def is_normalized_row(row: Mapping[str, Any]) -> bool:
    return row.get("schema") == SCHEMA


def _round_to_dict(rnd: ExecutionRound) -> dict[str, Any]:
    return {
        "number": rnd.number,
        "language": rnd.language,
        "environment": rnd.environment,
        "code": rnd.code,
        "dependencies": list(rnd.dependencies),
        "stdout": rnd.stdout,
        "stderr": rnd.stderr,
        "success": rnd.success,
        "screenshot_base64": rnd.screenshot.to_base64() if rnd.screenshot else None,
    }


def _side_to_dict(side: Side) -> dict[str, Any]:
    return {
        "model": side.model,
        "messages": [{"role": m.role, "content": m.content} for m in side.messages],
        "rounds": [_round_to_dict(r) for r in side.rounds],
    }


def battle_to_dict(battle: Battle) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "id": battle.id,
        "instruction": battle.instruction,
        "category": battle.category,
        "vote": battle.vote.value if battle.vote else None,
        "source": battle.source,
        "side_a": _side_to_dict(battle.side_a),
        "side_b": _side_to_dict(battle.side_b),
    }


def _require(mapping: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = mapping.get(key)
    if not isinstance(value, kind):
        raise RowFormatError(f"{what}.{key} is missing or has the wrong type ({type(value).__name__})")
    return value


def _round_from_dict(raw: Any, what: str) -> ExecutionRound:
    if not isinstance(raw, Mapping):
        raise RowFormatError(f"{what} should be an object")
    success = raw.get("success")
    if success is not None and not isinstance(success, bool):
        raise RowFormatError(f"{what}.success should be a boolean or null")
    return ExecutionRound(
        number=_require(raw, "number", int, what),
        language=raw.get("language") or "",
        environment=raw.get("environment") or "",
        code=raw.get("code") or "",
        dependencies=tuple(raw.get("dependencies") or ()),
        stdout=raw.get("stdout") or "",
        stderr=raw.get("stderr") or "",
        success=success,
        screenshot=screenshot_from_field(raw.get("screenshot_base64"), f"{what}.screenshot_base64"),
    )


def _side_from_dict(raw: Any, what: str) -> Side:
    if not isinstance(raw, Mapping):
        raise RowFormatError(f"{what} is missing")
    messages = []
    for i, m in enumerate(_require(raw, "messages", list, what)):
        if not isinstance(m, Mapping) or not isinstance(m.get("role"), str):
            raise RowFormatError(f"{what}.messages[{i}] should be {{role, content}}")
        messages.append(Message(m["role"], m.get("content") or ""))
    rounds = [_round_from_dict(r, f"{what}.rounds[{i}]") for i, r in enumerate(raw.get("rounds") or [])]
    rounds.sort(key=lambda r: r.number)
    return Side(model=_require(raw, "model", str, what), messages=tuple(messages), rounds=tuple(rounds))


def battle_from_dict(row: Mapping[str, Any]) -> Battle:
    instruction = _require(row, "instruction", str, "row")
    if not instruction.strip():
        raise RowFormatError("instruction is empty")
    vote = row.get("vote")
    if vote is not None:
        try:
            vote = Vote(vote)
        except ValueError:
            raise RowFormatError(f"unknown vote label {vote!r} (expected one of {[v.value for v in Vote]})") from None
    return Battle(
        id=_require(row, "id", str, "row"),
        instruction=instruction,
        category=row.get("category") or "unknown",
        side_a=_side_from_dict(row.get("side_a"), "side_a"),
        side_b=_side_from_dict(row.get("side_b"), "side_b"),
        vote=vote,
        source=row.get("source") or "",
    )
