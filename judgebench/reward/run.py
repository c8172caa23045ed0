"""Running a judge over a dataset: resumable, concurrent, cached, accounted for.

One run directory per (dataset, judge, prompt style, mode) holds the manifest and the judgments.
Work is streamed: battles are read from the dataset as workers need them, so memory does not grow
with the dataset (screenshots dominate the real data).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgebench.data.errors import DatasetError, RowError
from judgebench.data.sources import DatasetSource, iter_battles
from judgebench.judges.parse import UnparseableVerdict, parse_json_verdict
from judgebench.judges.reference import REFERENCE_FUNCTIONS
from judgebench.judges.spec import JudgeSpec
from judgebench.prompts import PromptTemplate, load_template, render
from judgebench.records import Battle, FailureKind, Judgment, Order
from judgebench.reward.plan import (
    Selection,
    context_window,
    explicit_pricing,
    litellm_pricing,
    run_dir_for,
    template_name,
)
from judgebench.runner.cache import ResponseCache
from judgebench.runner.calls import cached_call
from judgebench.runner.limits import Limits
from judgebench.runner.llm_call import FatalJudgeError, RetryPolicy
from judgebench.runner.manifest import environment, now_iso
from judgebench.runner.store import JudgmentStore, write_json_atomic


class RunConflictError(DatasetError):
    """A run directory already holds judgments made under different settings."""


@dataclass
class ProgressSnapshot:
    mode: str
    total: int
    done: int = 0
    failed: int = 0
    cached: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    started: float = field(default_factory=time.monotonic)
    failures: Counter[str] = field(default_factory=Counter)


@dataclass
class ModeResult:
    mode: str
    run_dir: Path
    status: str
    progress: ProgressSnapshot
    stored: int


ProgressCallback = Callable[[ProgressSnapshot], None]


@dataclass
class RewardJob:
    source: DatasetSource
    selection: Selection
    spec: JudgeSpec
    modes: tuple[str, ...]
    orders: tuple[Order, ...]
    runs_dir: Path
    cache_path: Path | None
    retry_failed: bool = False
    policy: RetryPolicy = field(default_factory=RetryPolicy)

    def run_dir(self, mode: str) -> Path:
        return run_dir_for(self.runs_dir, self.source, self.spec, mode)

    @property
    def pricing(self) -> dict[str, float]:
        """Per-call prices for litellm. Given explicitly, litellm skips its price-map search (a few ms
        of CPU per call for a model it does not know)."""
        return explicit_pricing(self.spec)

    def template(self, mode: str) -> PromptTemplate:
        return load_template(template_name(self.spec.prompt_style, mode))


def check_or_start_manifest(job: RewardJob, mode: str) -> dict[str, Any]:
    """Refuses to mix judgments made with a different judge, prompt or dataset into one run dir."""
    import json

    run_dir = job.run_dir(mode)
    path = run_dir / "manifest.json"
    template = job.template(mode)
    identity = {
        "dataset_fingerprint": job.source.fingerprint(),
        "judge_fingerprint": job.spec.answer_fingerprint(),
        "template_hash": template.hash,
    }
    if path.exists():
        manifest = json.loads(path.read_text())
        for key, value in identity.items():
            if manifest.get(key) != value:
                raise RunConflictError(
                    f"{run_dir} holds a run with a different {key.replace('_', ' ')} "
                    f"({manifest.get(key)} vs {value}). Use another --runs-dir, or move that directory away.")
        return manifest
    return {
        **identity,
        "kind": "bigcodereward",
        "created": now_iso(),
        "dataset": {"spec": job.source.spec, "describe": job.source.describe(), "split": job.source.split},
        "judge": job.spec.public(),
        "mode": mode,
        "template": {"name": template.name, "hash": template.hash},
        "sessions": [],
    }


def finished_keys(job: RewardJob) -> dict[str, set[tuple[str, str]]]:
    result = {}
    for mode in job.modes:
        path = job.run_dir(mode) / JudgmentStore.FILE
        if not path.exists():
            result[mode] = set()
            continue
        store = JudgmentStore(job.run_dir(mode))
        result[mode] = store.finished_keys(retry_failed=job.retry_failed)
        store.close()
    return result


class _ModeRunner:
    """Runs one mode: a producer streams battles, workers judge and store each (battle, order)."""

    def __init__(self, job: RewardJob, mode: str, limits: Limits, cache: ResponseCache,
                 on_progress: ProgressCallback | None) -> None:
        self.job, self.mode, self.limits, self.cache = job, mode, limits, cache
        self.template = job.template(mode)
        self.store = JudgmentStore(job.run_dir(mode))
        self.skip = self.store.finished_keys(retry_failed=job.retry_failed)
        wanted = set(job.selection.battle_ids)
        total = sum(1 for b in wanted for o in job.orders if (b, o.value) not in self.skip)
        self.progress = ProgressSnapshot(mode=mode, total=total)
        self.on_progress = on_progress
        self.window = context_window(job.spec)
        self.rng = random.Random(job.selection.seed)
        self.parity = job.spec.prompt_style == "parity"
        self.pricing, self.free = litellm_pricing(job.pricing)

    def _emit(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.progress)

    async def run(self) -> None:
        spec = self.job.spec
        workers = spec.concurrency if spec.kind == "llm" else 1
        queue: asyncio.Queue[tuple[Battle, Order] | None] = asyncio.Queue(maxsize=workers * 2)
        wanted = set(self.job.selection.battle_ids)
        self._emit()

        async def produce() -> None:
            iterator = iter(iter_battles(self.job.source))
            sentinel = object()
            while True:
                item = await asyncio.to_thread(next, iterator, sentinel)
                if item is sentinel:
                    break
                if isinstance(item, RowError) or item.id not in wanted:  # type: ignore[union-attr]
                    continue
                for order in self.job.orders:
                    if (item.id, order.value) not in self.skip:  # type: ignore[union-attr]
                        await queue.put((item, order))  # type: ignore[arg-type]
            for _ in range(workers):
                await queue.put(None)

        async def work() -> None:
            while (entry := await queue.get()) is not None:
                battle, order = entry
                judgment = await self.judge(battle, order)
                self.store.put(judgment)
                self._account(judgment)

        tasks = [asyncio.create_task(produce())] + [asyncio.create_task(work()) for _ in range(workers)]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    def _account(self, judgment: Judgment) -> None:
        p = self.progress
        p.done += 1
        if judgment.failure is not None:
            p.failed += 1
            p.failures[judgment.failure.value] += 1
        if judgment.cached:
            p.cached += 1
        elif judgment.attempts:
            p.calls += judgment.attempts
        p.input_tokens += judgment.input_tokens
        p.output_tokens += judgment.output_tokens
        p.cost_usd += judgment.cost_usd if not judgment.cached else 0.0
        self._emit()

    def _base(self, battle: Battle, order: Order) -> dict[str, Any]:
        return {"battle_id": battle.id, "mode": self.mode, "order": order, "judge": self.job.spec.name,
                "template_hash": self.template.hash}

    async def judge(self, battle: Battle, order: Order) -> Judgment:
        spec = self.job.spec
        if spec.kind == "reference":
            presented = REFERENCE_FUNCTIONS[spec.name](battle, order, spec.seed, self.mode == "with")
            return Judgment(**self._base(battle, order), presented_verdict=presented,
                            verdict=order.to_original(presented))
        vision = spec.vision and self.mode == "with"
        needs_pixels = vision and any(s.latest_execution and s.latest_execution.screenshot for s in battle.sides)
        if needs_pixels:  # image decoding and JPEG encoding stay off the event loop
            rendered = await asyncio.to_thread(render, self.template, battle, order, vision=vision,
                                               parity=self.parity)
        else:  # text only: cheaper than a thread hop
            rendered = render(self.template, battle, order, vision=vision, parity=self.parity)
        base = {**self._base(battle, order), "prompt_hash": rendered.hash}
        max_out = int(spec.params.get("max_tokens") or 0)
        if self.window and rendered.estimated_tokens + max_out > self.window:
            return Judgment(**base, failure=FailureKind.CONTEXT_OVERFLOW,
                            detail=f"estimated {rendered.estimated_tokens} prompt tokens + {max_out} output "
                                   f"exceed the {self.window}-token window; not sent")
        extra = {}
        if spec.constrained:
            from judgebench.judges.local import verdict_schema

            extra["json_schema"] = verdict_schema(allow_both_bad=not self.parity)
        outcome = await cached_call(spec, rendered.as_list(), cache=self.cache, limits=self.limits,
                                    policy=self.job.policy, rng=self.rng, key_parts=(self.template.hash, order.value),
                                    estimated_tokens=rendered.estimated_tokens, extra_params=extra,
                                    call_only_params=self.pricing)
        common = {"input_tokens": outcome.input_tokens, "output_tokens": outcome.output_tokens,
                  "cost_usd": 0.0 if self.free else outcome.cost_usd, "latency_s": outcome.latency_s,
                  "attempts": outcome.attempts, "cached": outcome.cached}
        if outcome.failure is not None:
            return Judgment(**base, **common, failure=outcome.failure, detail=outcome.detail,
                            raw_text=outcome.text or "")
        return self._verdict(base, order, outcome.text or "", common)

    def _verdict(self, base: dict[str, Any], order: Order, text: str, common: dict[str, Any]) -> Judgment:
        try:
            verdict = parse_json_verdict(text, allow_both_bad=not self.parity)
        except UnparseableVerdict as exc:
            return Judgment(**base, **common, failure=FailureKind.UNPARSEABLE, detail=str(exc), raw_text=text)
        return Judgment(**base, **common, raw_text=text, presented_verdict=verdict.winner,
                        verdict=order.to_original(verdict.winner), detail=verdict.reasoning[:2000])

    def close(self) -> None:
        self.store.close()


BATTLES_FILE = "battles.jsonl"


def write_battle_index(run_dir: Path, selection: Selection) -> None:
    """Human votes and battle metadata beside the judgments: scoring never re-reads the dataset.

    Merged with earlier sessions' index, so a later run over a different selection keeps the older items.
    """
    import json
    import os

    path = run_dir / BATTLES_FILE
    known: dict[str, dict] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                known[row["id"]] = row
    for row in selection.metadata:
        known[row["id"]] = row
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as handle:
        for row in known.values():
            handle.write(json.dumps(row, sort_keys=True) + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


async def run_job(job: RewardJob, on_progress: ProgressCallback | None = None) -> list[ModeResult]:
    """Runs every mode in turn. The manifest records each session, including interrupted ones."""
    limits = Limits(job.spec.concurrency, job.spec.rpm, job.spec.tpm)
    cache = ResponseCache(job.cache_path if job.spec.kind == "llm" else None)
    results: list[ModeResult] = []
    try:
        for mode in job.modes:
            manifest = check_or_start_manifest(job, mode)
            runner = _ModeRunner(job, mode, limits, cache, on_progress)
            session: dict[str, Any] = {"started": now_iso(), "environment": environment(),
                                       "selection": job.selection.describe(),
                                       "orders": [o.value for o in job.orders], "status": "running"}
            manifest["sessions"].append(session)
            write_json_atomic(job.run_dir(mode) / "manifest.json", manifest)
            write_battle_index(job.run_dir(mode), job.selection)
            status = "interrupted"
            try:
                await runner.run()
                status = "finished"
            except FatalJudgeError as exc:
                status = f"stopped: {exc}"
                raise
            finally:
                p = runner.progress
                session.update({"finished": now_iso(), "status": status, "judged": p.done, "failed": p.failed,
                                "failures": dict(p.failures), "cached": p.cached, "calls": p.calls,
                                "input_tokens": p.input_tokens, "output_tokens": p.output_tokens,
                                "cost_usd": round(p.cost_usd, 6), "wall_s": round(time.monotonic() - p.started, 3)})
                manifest["stored_judgments"] = runner.store.count()
                write_json_atomic(job.run_dir(mode) / "manifest.json", manifest)
                results.append(ModeResult(mode, job.run_dir(mode), status, p, manifest["stored_judgments"]))
                runner.close()
    finally:
        cache.close()
    return results
