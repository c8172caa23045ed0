"""`judgebench reward run` as one function: resolve, select, estimate, confirm, run, summarise."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgebench.data.sources import open_dataset
from judgebench.judges.spec import resolve_judge
from judgebench.records import Order
from judgebench.reward.plan import Estimate, Selection, estimate, select_battles
from judgebench.reward.run import ModeResult, ProgressCallback, RewardJob, finished_keys, run_job
from judgebench.reward.summary import summarize_run
from judgebench.runner.cache import DEFAULT_CACHE
from judgebench.runner.llm_call import RetryPolicy


@dataclass(frozen=True)
class RewardOptions:
    judge: str
    dataset: str | None = None
    split: str = "train"
    modes: tuple[str, ...] = ("with", "without")
    single_order: bool = False
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    categories: tuple[str, ...] = ()
    runs_dir: Path = Path("runs")
    cache_path: Path | None = DEFAULT_CACHE
    concurrency: int | None = None
    rpm: float | None = None
    tpm: float | None = None
    api_base: str | None = None
    prompt_style: str | None = None
    retry_failed: bool = False
    strict: bool = False
    retry_base_delay_s: float | None = None
    max_attempts: int | None = None


class Declined(Exception):
    """The user declined the cost estimate; nothing was spent."""


@dataclass
class RewardRunResult:
    selection: Selection
    estimate: Estimate
    results: list[ModeResult]
    summaries: list[dict[str, Any]]


def prepare(options: RewardOptions) -> RewardJob:
    spec = resolve_judge(options.judge).with_overrides(
        concurrency=options.concurrency, rpm=options.rpm, tpm=options.tpm, api_base=options.api_base,
        prompt_style=options.prompt_style, max_attempts=options.max_attempts)
    source = open_dataset(options.dataset, options.split)
    selection = select_battles(source, categories=options.categories, limit=options.limit, sample=options.sample,
                               seed=options.seed, strict=options.strict)
    policy = RetryPolicy(max_attempts=spec.max_attempts)
    if options.retry_base_delay_s is not None:
        policy = RetryPolicy(max_attempts=spec.max_attempts, base_delay_s=options.retry_base_delay_s)
    orders = (Order.AB,) if options.single_order else (Order.AB, Order.BA)
    return RewardJob(source=source, selection=selection, spec=spec, modes=options.modes, orders=orders,
                     runs_dir=options.runs_dir, cache_path=options.cache_path, retry_failed=options.retry_failed,
                     policy=policy)


def run_reward(options: RewardOptions, *, confirm: Callable[[Estimate], bool] | None = None,
               on_progress: ProgressCallback | None = None) -> RewardRunResult:
    job = prepare(options)
    est = estimate(job.source, job.selection, job.spec, job.modes, job.orders, finished_keys(job))
    if confirm is not None and not confirm(est):
        raise Declined("declined at the cost estimate; nothing was sent")
    results = asyncio.run(run_job(job, on_progress))
    summaries = [summarize_run(r.run_dir) for r in results]
    return RewardRunResult(job.selection, est, results, summaries)
