"""Judge prompt templates: plain files in prompts/, identified by the hash of their content.

A template is text with `$name` placeholders (string.Template, so JSON braces need no escaping).
`$screenshot_a` / `$screenshot_b` are where image parts go: the text is split there, so the image
sits between the sections that describe it, as a reader would expect.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from string import Template
from typing import Any

from judgebench.records import Battle, Order, Screenshot, Side

_PROMPT_DIRS = (
    Path(__file__).resolve().parent / "_prompts",  # installed wheel
    Path(__file__).resolve().parent.parent / "prompts",  # source checkout
)

# Upstream BigCodeReward limits (characters), kept in parity mode.
INSTRUCTION_LIMIT = 5_000
ANSWER_LIMIT = 20_000
STDOUT_LIMIT = 3_000
STDERR_LIMIT = 3_000
HISTORY_LIMIT = 8_000
SCREENSHOT_BOX = (1024, 768)
JPEG_QUALITY = 85
IMAGE_TOKEN_ESTIMATE = 800  # a 1024x768 image costs ~765 tokens on OpenAI's tiling; others are similar
_IMAGE_SLOT = re.compile(r"\$(screenshot_[ab])\b")


class PromptError(ValueError):
    pass


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    text: str

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(self.text.encode()).hexdigest()[:16]

    @property
    def placeholders(self) -> set[str]:
        return {m.group("named") or m.group("braced") for m in Template.pattern.finditer(self.text)
                if m.group("named") or m.group("braced")}


def prompt_dir() -> Path:
    for candidate in _PROMPT_DIRS:
        if candidate.is_dir():
            return candidate
    raise PromptError("prompt templates not found (neither judgebench/_prompts nor ./prompts exists)")


@cache
def load_template(name: str) -> PromptTemplate:
    path = Path(name) if name.endswith(".txt") and Path(name).exists() else prompt_dir() / f"{name}.txt"
    if not path.exists():
        available = ", ".join(sorted(p.stem for p in prompt_dir().glob("*.txt")))
        raise PromptError(f"unknown prompt template {name!r} (available: {available})")
    return PromptTemplate(path.stem, path.read_text(encoding="utf-8"))


def cut(text: str, limit: int, *, marker: bool) -> str:
    """Parity mode cuts silently like upstream; improved mode tells the judge that text is missing."""
    if len(text) <= limit:
        return text
    if not marker:
        return text[:limit]
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut]"


@lru_cache(maxsize=512)
def _screenshot_data_uri(encoded: str | bytes) -> str:
    """Downscaled to fit 1024x768, re-encoded as JPEG, with the matching MIME type."""
    from PIL import Image

    img = Screenshot(encoded).image()
    if img.mode not in ("RGB", "L"):
        background = Image.new("RGB", img.size, (255, 255, 255))
        background.paste(img.convert("RGBA"), mask=img.convert("RGBA").split()[-1])
        img = background
    img.thumbnail(SCREENSHOT_BOX)
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="JPEG", quality=JPEG_QUALITY)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode()


def _history(side: Side, limit: int) -> str:
    """Every message before the side's final answer except the first request (shown as the task)."""
    messages = list(side.messages)
    if messages and messages[-1].role != "user" and messages[-1].content == side.final_answer:
        messages.pop()
    if messages and messages[0].role == "user":
        messages = messages[1:]
    if not messages:
        return "(none: single-turn conversation)"
    text = "\n\n".join(f"{m.role.capitalize()}: {m.content}" for m in messages)
    return text if len(text) <= limit else f"[... {len(text) - limit} earlier characters cut]\n" + text[-limit:]


@dataclass(frozen=True)
class RenderedPrompt:
    messages: tuple[dict[str, Any], ...]
    template_hash: str
    images: int
    images_omitted: int
    estimated_tokens: int

    @property
    def hash(self) -> str:
        return "sha256:" + hashlib.sha256(json.dumps(self.messages, sort_keys=True).encode()).hexdigest()

    def as_list(self) -> list[dict[str, Any]]:
        return [dict(m) for m in self.messages]


def render(template: PromptTemplate, battle: Battle, order: Order, *, vision: bool = True,
           parity: bool = True) -> RenderedPrompt:
    first, second = battle.sides if order is Order.AB else (battle.side_b, battle.side_a)
    fields: dict[str, str] = {"instruction": cut(battle.instruction, INSTRUCTION_LIMIT, marker=not parity)}
    images: dict[str, Screenshot | None] = {}
    for slot, side in (("a", first), ("b", second)):
        latest = side.latest_execution
        fields[f"answer_{slot}"] = cut(side.final_answer, ANSWER_LIMIT, marker=not parity) or "(no answer)"
        if latest is None:
            fields[f"stdout_{slot}"] = fields[f"stderr_{slot}"] = "(the code was not executed)"
        else:
            fields[f"stdout_{slot}"] = cut(latest.stdout, STDOUT_LIMIT, marker=not parity) or "(no output)"
            fields[f"stderr_{slot}"] = cut(latest.stderr, STDERR_LIMIT, marker=not parity) or "(no errors)"
        fields[f"history_{slot}"] = _history(side, HISTORY_LIMIT)
        images[f"screenshot_{slot}"] = latest.screenshot if latest else None
    content, shown, omitted, text_chars = fill_template(template, fields, images, vision=vision)
    return RenderedPrompt(
        messages=({"role": "user", "content": content},),
        template_hash=template.hash,
        images=shown,
        images_omitted=omitted,
        estimated_tokens=text_chars // 4 + shown * IMAGE_TOKEN_ESTIMATE,
    )


def fill_template(template: PromptTemplate, fields: dict[str, str], images: dict[str, Screenshot | None], *,
                  vision: bool) -> tuple[Any, int, int, int]:
    """-> (message content, images shown, images omitted, text characters). Content is a plain string
    when no image is shown, else a list of text and image_url parts in template order."""
    missing = template.placeholders - set(fields) - set(images)
    if missing:
        raise PromptError(f"template {template.name} uses unknown placeholders: {sorted(missing)}")
    parts: list[dict[str, Any]] = []
    shown = omitted = 0
    for index, chunk in enumerate(_IMAGE_SLOT.split(template.text)):
        if index % 2 == 1:  # an image slot name
            shot = images.get(chunk)
            if shot is None:
                _append_text(parts, "(no screenshot)")
            elif not vision:
                omitted += 1
                _append_text(parts, "(screenshot omitted: this judge reads text only)")
            else:
                shown += 1
                parts.append({"type": "image_url", "image_url": {"url": _screenshot_data_uri(shot.encoded)}})
            continue
        _append_text(parts, Template(chunk).safe_substitute(fields))
    text_chars = sum(len(p["text"]) for p in parts if p["type"] == "text")
    content: Any = parts if shown else "".join(p["text"] for p in parts)
    return content, shown, omitted, text_chars


def _append_text(parts: list[dict[str, Any]], text: str) -> None:
    if parts and parts[-1]["type"] == "text":
        parts[-1] = {"type": "text", "text": parts[-1]["text"] + text}
    else:
        parts.append({"type": "text", "text": text})
