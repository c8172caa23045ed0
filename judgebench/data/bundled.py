"""Datasets that ship with judgebench, found both in a source checkout and in an installed wheel."""

from __future__ import annotations

from pathlib import Path

# The wheel carries the repository's data/ folder as judgebench/_data (see pyproject.toml).
_CANDIDATES = (
    Path(__file__).resolve().parent.parent / "_data",
    Path(__file__).resolve().parent.parent.parent / "data",
)

DEFAULT_DATASET = "humaneval-pairs"


def data_root() -> Path | None:
    for candidate in _CANDIDATES:
        if candidate.is_dir():
            return candidate
    return None


def bundled_names(kind: str = "battles") -> list[str]:
    """Bundled battle datasets, or (kind="prompts") prompt sets, which hold a prompts.jsonl."""
    root = data_root()
    if root is None:
        return []
    folders = [p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_"))]
    is_prompts = {p.name: (p / "prompts.jsonl").exists() for p in folders}
    return sorted(name for name, prompts in is_prompts.items() if prompts == (kind == "prompts"))


def bundled_path(name: str) -> Path | None:
    root = data_root()
    if root is None or "/" in name or name.startswith("."):
        return None
    path = root / name
    return path if path.is_dir() else None
