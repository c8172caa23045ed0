"""The arena steps as plain functions (the CLI renders their results), and `arena run` chaining them."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgebench.arena.execute import execute_model
from judgebench.arena.generate import generate, import_answers, pending
from judgebench.arena.judge import judge_model
from judgebench.arena.prompts import load_prompts
from judgebench.arena.score import ArenaScoreSettings, score_arena
from judgebench.arena.workspace import ArenaWorkspace, slug
from judgebench.data.bundled import data_root
from judgebench.data.errors import DatasetError
from judgebench.judges.spec import JudgeSpec, resolve_judge
from judgebench.reward.plan import model_info
from judgebench.runner.cache import DEFAULT_CACHE
from judgebench.runner.llm_call import RetryPolicy

DEFAULT_CONTESTANTS = ("smollm2-greedy", "smollm2-sampled")
DEFAULT_BASELINE = "smollm2-greedy"
DEFAULT_JUDGE = "exec-success"
REFERENCE_ANSWERS = "reference-answers"

Progress = Callable[[str, int, int], None]


@dataclass
class ArenaOptions:
    prompts: str | None = None
    runs_dir: Path = Path("runs")
    cache_path: Path | None = DEFAULT_CACHE
    models: tuple[str, ...] = ()
    imports: tuple[tuple[str, Path], ...] = ()
    baseline: str | None = None
    judge: str | None = None
    api_base: str | None = None
    concurrency: int | None = None
    seed: int = 0
    unsafe_no_sandbox: bool = False
    retry_base_delay_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def workspace(options: ArenaOptions) -> ArenaWorkspace:
    return ArenaWorkspace.open(options.runs_dir, load_prompts(options.prompts))


def model_spec(value: str, options: ArenaOptions) -> JudgeSpec:
    spec = resolve_judge(value)
    if spec.kind != "llm":
        raise DatasetError(f"{value} is a reference judge, not a model that can answer prompts")
    return spec.with_overrides(api_base=options.api_base if "/" in value else None,
                               concurrency=options.concurrency)


def policy(options: ArenaOptions, spec: JudgeSpec) -> RetryPolicy:
    if options.retry_base_delay_s is not None:
        return RetryPolicy(max_attempts=spec.max_attempts, base_delay_s=options.retry_base_delay_s)
    return RetryPolicy(max_attempts=spec.max_attempts)


def generation_estimate(ws: ArenaWorkspace, spec: JudgeSpec, name: str) -> dict[str, Any]:
    todo = pending(ws, name)
    prompts = ws.prompts.by_uid()
    tokens_in = sum(len(prompts[u].instruction) // 4 + 350 for u in todo)
    tokens_out = len(todo) * int(spec.params.get("max_tokens") or 1024)
    info = model_info(spec.model)
    usd = None
    if info.get("input_cost_per_token") is not None and info.get("output_cost_per_token") is not None:
        usd = tokens_in * info["input_cost_per_token"] + tokens_out * info["output_cost_per_token"]
    return {"model": name, "calls": len(todo), "input_tokens": tokens_in, "max_output_tokens": tokens_out, "usd": usd}


def run_generate(ws: ArenaWorkspace, value: str, options: ArenaOptions, name: str | None = None,
                 confirm: Callable[[dict[str, Any]], bool] | None = None,
                 progress: Progress | None = None) -> dict[str, Any]:
    spec = model_spec(value, options)
    name = slug(name or spec.name)
    estimate = generation_estimate(ws, spec, name)
    if confirm is not None and estimate["calls"] and not confirm(estimate):
        raise DatasetError(f"declined at the cost estimate for {name}; nothing was sent")
    return asyncio.run(generate(ws, spec, name, cache_path=options.cache_path, policy=policy(options, spec),
                                seed=options.seed,
                                on_progress=(lambda d, t: progress(f"generate {name}", d, t)) if progress else None))


def run_execute(ws: ArenaWorkspace, options: ArenaOptions, models: list[str] | None = None,
                progress: Progress | None = None) -> list[dict[str, Any]]:
    from judgebench.execution.sandbox import Sandbox, SandboxUnavailable
    from judgebench.execution.web import WebRenderer, web_available

    try:
        sandbox = Sandbox(unsafe_no_sandbox=options.unsafe_no_sandbox)
    except SandboxUnavailable as exc:
        raise DatasetError(str(exc)) from None
    names = models or ws.models()
    results = []

    def each(renderer: Any) -> None:
        for model in names:
            results.append(execute_model(ws, model, sandbox, renderer, on_progress=(
                lambda d, t, m=model: progress(f"execute {m}", d, t)) if progress else None))

    if web_available() is None:
        with WebRenderer() as renderer:
            each(renderer)
    else:
        each(None)
    return results


def run_judge(ws: ArenaWorkspace, options: ArenaOptions, judge: str, baseline: str,
              models: list[str] | None = None, progress: Progress | None = None) -> list[dict[str, Any]]:
    spec = resolve_judge(judge)
    if spec.kind == "llm":
        spec = spec.with_overrides(api_base=options.api_base if "/" in judge else None,
                                   concurrency=options.concurrency)
    baseline = slug(baseline)
    if baseline not in ws.models():
        raise DatasetError(f"baseline {baseline!r} has no answers in {ws.root} (models: {', '.join(ws.models())})")
    names = [m for m in (models or ws.models()) if m != baseline]
    return [asyncio.run(judge_model(ws, spec, baseline, m, cache_path=options.cache_path, policy=policy(options, spec),
                                    seed=options.seed, on_progress=(lambda d, t, m=m: progress(
                                        f"judge {m}", d, t)) if progress else None)) for m in names]


def run_score(ws: ArenaWorkspace, judge: str, baseline: str, settings: ArenaScoreSettings) -> dict[str, Any]:
    score = score_arena(ws, slug(resolve_judge(judge).name), slug(baseline), settings)
    if not any(not r.get("baseline") for r in score["models"]):
        raise DatasetError(f"no judgments by {judge} against {baseline} in {ws.root}; run `judgebench arena judge`")
    return score


def reference_answers_path() -> Path | None:
    root = data_root()
    path = root / "arena-mini" / "reference-answers.jsonl" if root else None
    return path if path and path.exists() else None


def run_all(options: ArenaOptions, *, confirm: Callable[[dict[str, Any]], bool] | None = None,
            progress: Progress | None = None, settings: ArenaScoreSettings | None = None) -> dict[str, Any]:
    """generate -> import -> execute -> judge -> score. With no options: the offline default."""
    ws = workspace(options)
    models = options.models
    imports = list(options.imports)
    if not models and not imports:
        from judgebench.judges.local import local_available

        problem = local_available()
        if problem:
            raise DatasetError(f"the offline arena's contestants are the embedded model: {problem}. "
                               "Or name contestants with --model / --import.")
        models = DEFAULT_CONTESTANTS
        ref = reference_answers_path()
        if ref is not None and (options.prompts in (None, "arena-mini")):
            imports.append((REFERENCE_ANSWERS, ref))
    steps: dict[str, Any] = {"generate": [], "import": [], "timings_s": {}}
    clock = time.monotonic()

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        steps["timings_s"][name] = round(steps["timings_s"].get(name, 0.0) + now - clock, 2)
        clock = now

    for value in models:
        steps["generate"].append(run_generate(ws, value, options, confirm=confirm, progress=progress))
    for name, path in imports:
        steps["import"].append(import_answers(ws, path, slug(name)))
    lap("generate")
    steps["execute"] = run_execute(ws, options, progress=progress)
    lap("execute")
    baseline = options.baseline or (DEFAULT_BASELINE if not options.models else slug(resolve_judge(
        options.models[0]).name))
    judge = options.judge or DEFAULT_JUDGE
    steps["judge"] = run_judge(ws, options, judge, baseline, progress=progress)
    lap("judge")
    steps["score"] = run_score(ws, judge, baseline, settings or ArenaScoreSettings(seed=options.seed))
    lap("score")
    steps["calls"] = sum(g.get("requested", 0) - g.get("cached", 0) for g in steps["generate"]) + sum(
        j.get("judged", 0) for j in steps["judge"] if resolve_judge(judge).kind == "llm")
    steps["workspace"] = str(ws.root)
    return steps
