"""The data commands as plain functions returning JSON-ready dicts (the CLI only renders them)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from judgebench.data import bundled
from judgebench.data.errors import RowError
from judgebench.data.sources import DatasetSource, iter_battles, open_dataset
from judgebench.records import Battle


def _items(source: DatasetSource, strict: bool, limit: int | None) -> Iterator[Battle | RowError]:
    return islice(iter_battles(source, strict=strict), limit)


def _row_count(source: DatasetSource) -> int | None:
    """Row count from metadata where it is free (parquet footers, saved datasets); None otherwise."""
    if source.kind == "parquet":
        import pyarrow.parquet as pq

        return sum(pq.ParquetFile(f).metadata.num_rows for f in source.files)
    if source.kind == "jsonl":
        count = 0
        for f in source.files:
            with open(f, "rb") as handle:
                count += sum(1 for line in handle if line.strip())
        return count
    return None


def dataset_info(spec: str | None, split: str) -> dict[str, Any]:
    source = open_dataset(spec, split)
    return {
        "dataset": source.describe(),
        "kind": source.kind,
        "split": split,
        "files": [str(f) for f in source.files],
        "size_bytes": source.size_bytes(),
        "rows": _row_count(source),
        "fingerprint": source.fingerprint(),
        "bundled": bundled.bundled_names(),
        "default": bundled.DEFAULT_DATASET,
    }


def dataset_stats(spec: str | None, split: str, *, strict: bool = False, limit: int | None = None) -> dict[str, Any]:
    from judgebench.data.stats import compute_stats

    source = open_dataset(spec, split)
    stats = compute_stats(_items(source, strict, limit)).to_dict()
    return {"dataset": source.describe(), **stats}


def validate_dataset(spec: str | None, split: str, *, strict: bool = False, limit: int | None = None) -> dict[str, Any]:
    from judgebench.data.validate import deep_check

    source = open_dataset(spec, split)
    errors: list[RowError] = []
    battles = screenshots = 0
    for item in _items(source, strict, limit):
        if isinstance(item, RowError):
            errors.append(item)
            continue
        battles += 1
        screenshots += sum(r.screenshot is not None for side in item.sides for r in side.rounds)
        errors.extend(deep_check(item, battles + len(errors) - 1))
    return {"dataset": source.describe(), "battles": battles, "screenshots": screenshots,
            "errors": len(errors), "error_examples": [str(e) for e in errors[:50]]}


def export_dataset(spec: str | None, out: Path, split: str, *, strict: bool = False,
                   limit: int | None = None) -> dict[str, Any]:
    from judgebench.data.export import export_battles

    source = open_dataset(spec, split)
    written, errors = export_battles(_items(source, strict, limit), out)
    return {"dataset": source.describe(), "out": str(out), "written": written, "errors": len(errors),
            "error_examples": [str(e) for e in errors[:50]]}
