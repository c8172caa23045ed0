"""Arena prompt sets: bundled, local JSONL (a file or a folder of them), or the Hub."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from judgebench.data import bundled, hub
from judgebench.data.errors import DatasetError

DEFAULT_PROMPTS = "arena-mini"


@dataclass(frozen=True)
class ArenaPrompt:
    uid: str
    instruction: str
    category: str


@dataclass(frozen=True)
class PromptSet:
    name: str
    spec: str
    prompts: tuple[ArenaPrompt, ...]
    fingerprint: str

    def by_uid(self) -> dict[str, ArenaPrompt]:
        return {p.uid: p for p in self.prompts}


def _parse(rows: list[tuple[str, object]]) -> tuple[ArenaPrompt, ...]:
    prompts, seen, problems = [], set(), []
    for where, row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("uid"), str) or not isinstance(
                row.get("instruction"), str) or not row["instruction"].strip():
            problems.append(f"{where}: needs string fields uid and instruction")
            continue
        if row["uid"] in seen:
            problems.append(f"{where}: duplicate uid {row['uid']!r}")
            continue
        seen.add(row["uid"])
        prompts.append(ArenaPrompt(row["uid"], row["instruction"], str(row.get("category") or "unknown")))
    if problems:
        raise DatasetError("unreadable prompts:\n  " + "\n  ".join(problems[:20]))
    return tuple(prompts)


def _read_jsonl(files: list[Path]) -> list[tuple[str, object]]:
    rows: list[tuple[str, object]] = []
    for file in files:
        for n, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    rows.append((f"{file.name}:{n}", json.loads(line)))
                except json.JSONDecodeError as exc:
                    rows.append((f"{file.name}:{n} ({exc.msg})", None))
    return rows


def _fingerprint(prompts: tuple[ArenaPrompt, ...]) -> str:
    import hashlib

    digest = hashlib.sha256()
    for p in prompts:
        digest.update(json.dumps([p.uid, p.instruction, p.category]).encode())
    return "sha256:" + digest.hexdigest()[:16]


def load_prompts(spec: str | None = None, split: str = "train") -> PromptSet:
    spec = spec or DEFAULT_PROMPTS
    if spec.startswith("hf:"):
        repo, _, revision = spec[3:].partition("@")
        hub.probe(repo, revision or None)
        import datasets

        ds = datasets.load_dataset(repo, split=split, revision=revision or None, streaming=True)
        prompts = _parse([(f"row {i}", dict(r)) for i, r in enumerate(ds)])
        return PromptSet(repo.split("/")[-1], spec, prompts, _fingerprint(prompts))
    path = Path(spec)
    if not path.exists():
        folder = bundled.bundled_path(spec)
        if folder is None or not (folder / "prompts.jsonl").exists():
            names = ", ".join(bundled.bundled_names("prompts")) or "none"
            raise DatasetError(f"No prompt set {spec!r} (bundled prompt sets: {names}; or a JSONL file/folder, "
                               "or hf:bigcode/autocodearena-v0)")
        path = folder / "prompts.jsonl"
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        raise DatasetError(f"{spec} holds no .jsonl prompt files")
    prompts = _parse(_read_jsonl(files))
    name = path.parent.name if path.name == "prompts.jsonl" else path.stem
    return PromptSet(name, spec, prompts, _fingerprint(prompts))
