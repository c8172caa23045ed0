"""The upstream `bigcode/bigcodereward` row schema -> Battle records.

Schema facts this code relies on (see shared/data/README.md): round keys are strings "1".."8" that
must be ordered as numbers; rounds that did not happen are null; later rounds lack some fields;
messages are [role, content] pairs; the top-level execution_* columns flatten one round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from judgebench.data.errors import RowFormatError
from judgebench.records import Battle, ExecutionRound, Message, Screenshot, ScreenshotError, Side, Vote

SOURCE = "bigcode/bigcodereward"

VOTE_LABELS: dict[str, Vote] = {
    "vote_model_A": Vote.A,
    "vote_model_B": Vote.B,
    "vote_tie": Vote.TIE,
    "vote_both_bad": Vote.BOTH_BAD,
}


def is_upstream_row(row: Mapping[str, Any]) -> bool:
    return "states" in row and "chat_session_id" in row


def _text(value: Any, what: str, *, required: bool = False) -> str:
    if value is None:
        if required:
            raise RowFormatError(f"{what} is missing")
        return ""
    if not isinstance(value, str):
        raise RowFormatError(f"{what} should be a string, got {type(value).__name__}")
    if required and not value.strip():
        raise RowFormatError(f"{what} is empty")
    return value


def parse_vote(label: Any) -> Vote | None:
    if label is None or label == "":
        return None
    if not isinstance(label, str) or label not in VOTE_LABELS:
        raise RowFormatError(f"unknown vote label {label!r} (expected one of {sorted(VOTE_LABELS)})")
    return VOTE_LABELS[label]


def screenshot_from_field(value: Any, what: str) -> Screenshot | None:
    """Accepts base64 text, a data URI, raw bytes or a datasets Image dict {bytes, path}.

    Only the first bytes are decoded here (enough to check the image signature); the rest stays
    encoded until a judge needs the pixels.
    """
    if value is None or value == "":
        return None
    if isinstance(value, Mapping):
        value = value.get("bytes")
        if not value:
            return None
    if isinstance(value, bytes | str):
        shot = Screenshot(value) if isinstance(value, bytes) else Screenshot.from_base64(value)
    else:
        raise RowFormatError(f"{what} should be base64 text or image bytes, got {type(value).__name__}")
    _check_signature(shot, what)
    return shot


def _check_signature(shot: Screenshot, what: str) -> None:
    head = Screenshot(shot.encoded[:24]) if isinstance(shot.encoded, str) else shot
    try:
        head.mime_type  # noqa: B018 - property access is the check
    except ScreenshotError as exc:
        raise RowFormatError(f"{what}: {exc}") from None


def _dependencies(value: Any) -> tuple[str, ...]:
    """Upstream stores [[python deps...], [npm deps...]]; the split is not needed downstream."""
    if not value:
        return ()
    flat: list[str] = []
    for group in value:
        if isinstance(group, str):
            flat.append(group)
        elif isinstance(group, list | tuple):
            flat.extend(str(dep) for dep in group if dep)
    return tuple(flat)


def _round(number: int, log: Mapping[str, Any], what: str) -> ExecutionRound:
    state = log.get("sandbox_state") or {}
    if not isinstance(state, Mapping):
        raise RowFormatError(f"{what}.sandbox_state should be an object, got {type(state).__name__}")
    success = state.get("execution_success")
    if success is not None and not isinstance(success, bool):
        raise RowFormatError(f"{what}.execution_success should be a boolean, got {success!r}")
    environment = state.get("sandbox_environment") or state.get("auto_selected_sandbox_environment")
    return ExecutionRound(
        number=number,
        language=_text(state.get("code_language"), f"{what}.code_language"),
        environment=_text(environment, f"{what}.sandbox_environment"),
        code=_text(state.get("code_to_execute"), f"{what}.code_to_execute"),
        dependencies=_dependencies(state.get("code_dependencies")),
        stdout=_text(state.get("sandbox_output"), f"{what}.sandbox_output"),
        stderr=_text(state.get("sandbox_error"), f"{what}.sandbox_error"),
        success=success,
        screenshot=screenshot_from_field(state.get("screenshot_base64"), f"{what}.screenshot_base64"),
    )


def _rounds(logs: Any, what: str) -> tuple[ExecutionRound, ...]:
    if logs is None:
        return ()
    if not isinstance(logs, Mapping):
        raise RowFormatError(f"{what} should be an object keyed by round number")
    numbered: list[tuple[int, Mapping[str, Any]]] = []
    for key, log in logs.items():
        if log is None:
            continue
        try:
            number = int(key)
        except (TypeError, ValueError):
            raise RowFormatError(f"{what} has a non-numeric round key {key!r}") from None
        if not isinstance(log, Mapping):
            raise RowFormatError(f"{what}[{key}] should be an object, got {type(log).__name__}")
        numbered.append((number, log))
    numbered.sort(key=lambda pair: pair[0])
    return tuple(_round(n, log, f"{what}[{n}]") for n, log in numbered)


def _messages(state: Mapping[str, Any], what: str) -> tuple[Message, ...]:
    raw = state.get("messages")
    if raw is None:
        return ()
    if not isinstance(raw, list | tuple):
        raise RowFormatError(f"{what}.messages should be a list of [role, content] pairs")
    roles = state.get("roles") or []
    user_role = roles[0] if roles else "user"
    messages = []
    for i, pair in enumerate(raw):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise RowFormatError(f"{what}.messages[{i}] should be a [role, content] pair")
        role, content = pair
        role = _text(role, f"{what}.messages[{i}].role", required=True)
        normalized = "user" if role in (user_role, "user", "human") else "assistant"
        messages.append(Message(normalized, _text(content, f"{what}.messages[{i}].content")))
    return tuple(messages)


def _side(row: Mapping[str, Any], letter: str) -> Side:
    states = row.get("states")
    if not isinstance(states, Mapping):
        raise RowFormatError("states is missing or not an object")
    state = states.get(f"model_{letter}")
    if not isinstance(state, Mapping):
        raise RowFormatError(f"states.model_{letter} is missing")
    what = f"states.model_{letter}"
    model = _text(row.get(f"model_{letter}") or state.get("model_name"), f"model_{letter}", required=True)
    rounds = _rounds(state.get("sandbox_logs_by_round"), f"{what}.sandbox_logs_by_round")
    if not any(r.executed for r in rounds):
        flat = _flattened_round(row, letter)
        if flat is not None:
            rounds = (*rounds, flat)
    return Side(model=model, messages=_messages(state, what), rounds=rounds)


def _flattened_round(row: Mapping[str, Any], letter: str) -> ExecutionRound | None:
    """Falls back on the top-level execution_* copy when no per-round log survived."""
    stdout = _text(row.get(f"execution_output_{letter}"), f"execution_output_{letter}")
    stderr = _text(row.get(f"execution_error_{letter}"), f"execution_error_{letter}")
    shot = screenshot_from_field(row.get(f"execution_screenshot_{letter}"), f"execution_screenshot_{letter}")
    if not (stdout or stderr or shot):
        return None
    return ExecutionRound(number=0, language="", environment="", code="", stdout=stdout, stderr=stderr,
                          screenshot=shot)


def battle_from_upstream(row: Mapping[str, Any], source: str = SOURCE) -> Battle:
    """Raises RowFormatError with a reason a person can act on."""
    battle_id = _text(row.get("chat_session_id"), "chat_session_id", required=True)
    category = row.get("category_name")
    return Battle(
        id=battle_id,
        instruction=_text(row.get("instruction"), "instruction", required=True),
        category=_text(category, "category_name") or "unknown",
        side_a=_side(row, "A"),
        side_b=_side(row, "B"),
        vote=parse_vote(row.get("human_vote")),
        source=source,
    )


def row_id(row: Any, index: int) -> str:
    if isinstance(row, Mapping):
        for key in ("chat_session_id", "id", "uid"):
            value = row.get(key)
            if isinstance(value, str) and value:
                return value
    return f"#{index}"
