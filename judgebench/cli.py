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

    try:
        yield
    except DatasetError as exc:
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


if __name__ == "__main__":
    app()
