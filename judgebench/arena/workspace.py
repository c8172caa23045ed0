"""Where an arena's files live: one folder per prompt set, shared by every model and judge.

runs/arena/<prompt set>/
  prompts.jsonl, manifest.json
  answers/<model>.sqlite         one record per prompt uid (+ <model>.json: how it was produced)
  executions/<model>.sqlite      one record per prompt uid; screenshots stored once under artifacts/
  artifacts/<sha256>.png
  judgments/<judge>/vs-<baseline>/<model>.sqlite   one record per (uid, game)
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebench.arena.prompts import PromptSet
from judgebench.data.errors import DatasetError
from judgebench.runner.kvstore import RecordStore
from judgebench.runner.manifest import environment, now_iso
from judgebench.runner.store import write_json_atomic


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "model"


@dataclass(frozen=True)
class ArenaWorkspace:
    root: Path
    prompts: PromptSet

    @classmethod
    def open(cls, runs_dir: Path, prompts: PromptSet) -> ArenaWorkspace:
        root = runs_dir / "arena" / slug(prompts.name)
        root.mkdir(parents=True, exist_ok=True)
        manifest_path = root / "manifest.json"
        if manifest_path.exists():
            manifest = json.loads(manifest_path.read_text())
            if manifest.get("prompts_fingerprint") != prompts.fingerprint:
                raise DatasetError(f"{root} was made with a different prompt set ({manifest.get('prompts_fingerprint')}"
                                   f" vs {prompts.fingerprint}); use another --runs-dir")
        else:
            write_json_atomic(manifest_path, {"prompts": prompts.spec, "prompts_fingerprint": prompts.fingerprint,
                                              "created": now_iso(), "environment": environment()})
            with open(root / "prompts.jsonl", "w", encoding="utf-8") as handle:
                for p in prompts.prompts:
                    handle.write(json.dumps({"uid": p.uid, "category": p.category, "instruction": p.instruction})
                                 + "\n")
        return cls(root, prompts)

    def _answers_path(self, model: str) -> Path:
        return self.root / "answers" / f"{slug(model)}.sqlite"

    def _executions_path(self, model: str) -> Path:
        return self.root / "executions" / f"{slug(model)}.sqlite"

    def _judgments_path(self, judge: str, baseline: str, model: str) -> Path:
        return self.root / "judgments" / slug(judge) / f"vs-{slug(baseline)}" / f"{slug(model)}.sqlite"

    def answers(self, model: str) -> RecordStore:
        return RecordStore(self._answers_path(model))

    def answer_records(self, model: str) -> dict[str, dict[str, Any]]:
        return RecordStore.read_all(self._answers_path(model))

    def execution_records(self, model: str) -> dict[str, dict[str, Any]]:
        return RecordStore.read_all(self._executions_path(model))

    def judgment_records(self, judge: str, baseline: str, model: str) -> dict[str, dict[str, Any]]:
        return RecordStore.read_all(self._judgments_path(judge, baseline, model))

    def models(self) -> list[str]:
        folder = self.root / "answers"
        return sorted(p.stem for p in folder.glob("*.sqlite")) if folder.exists() else []

    def executions(self, model: str) -> RecordStore:
        return RecordStore(self._executions_path(model))

    def judgments(self, judge: str, baseline: str, model: str) -> RecordStore:
        return RecordStore(self._judgments_path(judge, baseline, model))

    def judged_pairs(self) -> list[tuple[str, str, str]]:
        """(judge, baseline, model) for every stored judgment table."""
        folder = self.root / "judgments"
        if not folder.exists():
            return []
        return sorted((p.parent.parent.name, p.parent.name.removeprefix("vs-"), p.stem) for p in folder.glob(
            "*/vs-*/*.sqlite"))

    def write_model_manifest(self, model: str, payload: dict[str, Any]) -> None:
        path = self.root / "answers" / f"{slug(model)}.json"
        previous = json.loads(path.read_text()) if path.exists() else {"sessions": []}
        previous.update({k: v for k, v in payload.items() if k != "session"})
        if "session" in payload:
            previous["sessions"].append(payload["session"])
        write_json_atomic(path, previous)

    def store_artifact(self, data: bytes, suffix: str = ".png") -> str:
        """Content-addressed: the same screenshot is stored once, whoever produced it."""
        digest = hashlib.sha256(data).hexdigest()
        folder = self.root / "artifacts"
        folder.mkdir(exist_ok=True)
        path = folder / f"{digest}{suffix}"
        if not path.exists():
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            tmp.replace(path)
        return f"artifacts/{path.name}"

    def artifact(self, relative: str) -> bytes:
        return (self.root / relative).read_bytes()
