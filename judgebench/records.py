"""Frozen records shared by every pipeline.

Loaders turn upstream schemas into these; judges, metrics and reports only ever see these. Keeping
them immutable lets a battle be hashed into cache keys and shared across asyncio tasks without
defensive copies.
"""

from __future__ import annotations

import base64
import binascii
import io
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any


class Vote(StrEnum):
    """A pairwise preference. BOTH_BAD is kept apart from TIE because the paper merges them only
    for its headline metric; the 4-class metrics need them distinct."""

    A = "A"
    B = "B"
    TIE = "tie"
    BOTH_BAD = "both_bad"

    @property
    def merged(self) -> Vote:
        """The paper's 3-class view: tie and both_bad are one class."""
        return Vote.TIE if self is Vote.BOTH_BAD else self

    def swapped(self) -> Vote:
        """The same preference seen with the sides presented in the other order."""
        return {Vote.A: Vote.B, Vote.B: Vote.A}.get(self, self)


class ScreenshotError(ValueError):
    """A screenshot's bytes are not a decodable image."""


_MAGIC_TO_MIME = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"RIFF", "image/webp"),
)


@dataclass(frozen=True)
class Screenshot:
    """An image kept in its encoded form until someone needs it.

    The real dataset is ~1.4 GB of screenshots; decoding them while loading would make every pass
    over the data (stats, validation, judging without execution) pay for pixels it never uses.
    """

    encoded: str | bytes = field(repr=False)

    @classmethod
    def from_base64(cls, text: str) -> Screenshot:
        """Accepts plain base64 or a data URI, the two forms seen upstream."""
        if text.startswith("data:"):
            _, _, text = text.partition(",")
        return cls(text.strip())

    @cached_property
    def data(self) -> bytes:
        if isinstance(self.encoded, bytes):
            return self.encoded
        try:
            return base64.b64decode(self.encoded, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ScreenshotError(f"screenshot is not valid base64: {exc}") from None

    @property
    def mime_type(self) -> str:
        head = self.data[:12]
        for magic, mime in _MAGIC_TO_MIME:
            if head.startswith(magic) and (mime != "image/webp" or head[8:12] == b"WEBP"):
                return mime
        raise ScreenshotError("screenshot bytes are not a PNG, JPEG, GIF or WebP image")

    @property
    def encoded_size(self) -> int:
        return len(self.encoded)

    def check(self) -> None:
        """Cheap validity check (base64 + image magic) without decoding pixels."""
        _ = self.mime_type

    def image(self) -> Any:
        """The decoded PIL image (Pillow is imported only here)."""
        from PIL import Image

        try:
            img = Image.open(io.BytesIO(self.data))
            img.load()
        except Exception as exc:  # Pillow raises many types for corrupt data
            raise ScreenshotError(f"screenshot cannot be decoded: {exc}") from None
        return img

    def to_base64(self) -> str:
        if isinstance(self.encoded, str):
            return self.encoded
        return base64.b64encode(self.encoded).decode("ascii")


@dataclass(frozen=True)
class ExecutionRound:
    """One sandbox run of one side. `number` is the upstream round key as an int."""

    number: int
    language: str
    environment: str
    code: str
    dependencies: tuple[str, ...] = ()
    stdout: str = ""
    stderr: str = ""
    success: bool | None = None
    screenshot: Screenshot | None = None

    @property
    def executed(self) -> bool:
        """A round counts as executed if code was sent to the sandbox."""
        return bool(self.code.strip())


@dataclass(frozen=True)
class Message:
    role: str
    content: str


@dataclass(frozen=True)
class Side:
    """One model's part of a battle: the conversation and every execution round, in round order."""

    model: str
    messages: tuple[Message, ...]
    rounds: tuple[ExecutionRound, ...] = ()

    @property
    def final_answer(self) -> str:
        for message in reversed(self.messages):
            if message.role != "user" and message.content:
                return message.content
        return ""

    @property
    def user_turns(self) -> int:
        return sum(1 for m in self.messages if m.role == "user")

    @property
    def latest_execution(self) -> ExecutionRound | None:
        """The executed round with the highest round number (rounds are kept sorted numerically)."""
        for rnd in reversed(self.rounds):
            if rnd.executed:
                return rnd
        return None


@dataclass(frozen=True)
class Battle:
    """A prompt answered by two models, with the human vote when there is one."""

    id: str
    instruction: str
    category: str
    side_a: Side
    side_b: Side
    vote: Vote | None = None
    source: str = ""

    @property
    def sides(self) -> tuple[Side, Side]:
        return (self.side_a, self.side_b)

    @property
    def turns(self) -> int:
        return max(self.side_a.user_turns, self.side_b.user_turns)


class FailureKind(StrEnum):
    """Why a judgment has no verdict. Failures are counted and shown, never turned into votes."""

    API_ERROR = "api_error"
    UNPARSEABLE = "unparseable"
    CONTEXT_OVERFLOW = "context_overflow"
    REFUSED = "refused"


class Order(StrEnum):
    """How a battle was presented: AB shows side_a as "A"; BA shows side_b as "A"."""

    AB = "AB"
    BA = "BA"

    def to_original(self, presented: Vote) -> Vote:
        return presented if self is Order.AB else presented.swapped()


@dataclass(frozen=True)
class Verdict:
    """A parsed judge answer, in the presented order, with the judge's stated reasoning."""

    winner: Vote
    reasoning: str = ""


@dataclass(frozen=True)
class Judgment:
    """One judge call's outcome for one battle in one order and mode: a verdict or a failure."""

    battle_id: str
    mode: str
    order: Order
    judge: str
    verdict: Vote | None = None  # mapped back to the original sides
    presented_verdict: Vote | None = None
    failure: FailureKind | None = None
    detail: str = ""
    raw_text: str = ""
    template_hash: str = ""
    prompt_hash: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 0
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.verdict is not None
