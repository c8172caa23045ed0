"""Rich renderables for the terminal. Built here, printed only by the CLI."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table


def counts_table(title: str, counts: Mapping[str, int], total: int | None = None) -> Table:
    table = Table(title=title, title_justify="left", show_edge=False, pad_edge=False)
    table.add_column(title.split(" (")[0].lower(), overflow="fold")
    table.add_column("n", justify="right")
    if total:
        table.add_column("%", justify="right")
    for key, n in counts.items():
        row = [key, str(n)]
        if total:
            row.append(f"{100 * n / total:.1f}")
        table.add_row(*row)
    return table


def key_value_table(title: str, values: Mapping[str, Any]) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, show_edge=False, pad_edge=False)
    table.add_column(style="bold")
    table.add_column(overflow="fold")
    for key, value in values.items():
        table.add_row(key, str(value))
    return table


def stats_view(stats: Mapping[str, Any]) -> Group:
    battles = stats["battles"]
    summary = {
        "rows read": stats["rows"],
        "battles": battles,
        "unreadable rows": stats["errors"],
        "rows with a screenshot": stats["rows_with_screenshot"],
        "rows with execution output": stats["rows_with_execution_output"],
        "sides executed": stats["sides_executed"],
        "sides whose latest run succeeded": stats["sides_latest_round_succeeded"],
    }
    parts: list[Any] = [key_value_table("Dataset", summary)]
    for key, title, total in (
        ("votes", "Votes", battles),
        ("categories", "Categories", battles),
        ("turns", "User turns", battles),
        ("languages", "Languages (per side)", 2 * battles),
        ("environments", "Environments (per side)", 2 * battles),
        ("executed_rounds_per_side", "Executed rounds (per side)", 2 * battles),
        ("models", "Models (per side)", 2 * battles),
    ):
        parts.append(counts_table(title, stats[key], total))
    return Group(*parts)
