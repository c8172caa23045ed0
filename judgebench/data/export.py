"""Writes normalized records so a Hub download is read once and reused offline.

Output is written to a temporary file beside the target and renamed into place only when complete:
an interrupted export (Ctrl-C, full disk) never leaves a truncated file that looks finished.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from judgebench.data.errors import DatasetError, RowError
from judgebench.data.normalized import battle_to_dict
from judgebench.records import Battle

PARQUET_BATCH_ROWS = 256


def _parquet_schema():  # type: ignore[no-untyped-def]
    import pyarrow as pa

    round_type = pa.struct([
        ("number", pa.int64()), ("language", pa.string()), ("environment", pa.string()),
        ("code", pa.string()), ("dependencies", pa.list_(pa.string())), ("stdout", pa.string()),
        ("stderr", pa.string()), ("success", pa.bool_()), ("screenshot_base64", pa.large_string()),
    ])
    side_type = pa.struct([
        ("model", pa.string()),
        ("messages", pa.list_(pa.struct([("role", pa.string()), ("content", pa.string())]))),
        ("rounds", pa.list_(round_type)),
    ])
    return pa.schema([
        ("schema", pa.string()), ("id", pa.string()), ("instruction", pa.string()),
        ("category", pa.string()), ("vote", pa.string()), ("source", pa.string()),
        ("side_a", side_type), ("side_b", side_type),
    ])


def export_battles(items: Iterable[Battle | RowError], out: Path) -> tuple[int, list[RowError]]:
    """Returns (rows written, row errors seen). The format follows the suffix: .jsonl or .parquet."""
    suffix = out.suffix.lower()
    if suffix not in (".jsonl", ".parquet"):
        raise DatasetError(f"Export to .jsonl or .parquet, not {out.name!r}.")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.partial-{os.getpid()}")
    errors: list[RowError] = []
    try:
        writer = _write_jsonl if suffix == ".jsonl" else _write_parquet
        written = writer(items, tmp, errors)
        os.replace(tmp, out)
    except OSError as exc:
        raise DatasetError(f"Could not write {out}: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return written, errors


def _write_jsonl(items: Iterable[Battle | RowError], tmp: Path, errors: list[RowError]) -> int:
    written = 0
    with open(tmp, "w", encoding="utf-8") as handle:
        for item in items:
            if isinstance(item, RowError):
                errors.append(item)
                continue
            handle.write(json.dumps(battle_to_dict(item), ensure_ascii=False) + "\n")
            written += 1
        handle.flush()
        os.fsync(handle.fileno())
    return written


def _write_parquet(items: Iterable[Battle | RowError], tmp: Path, errors: list[RowError]) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _parquet_schema()
    written = 0
    batch: list[dict] = []
    with pq.ParquetWriter(tmp, schema) as writer:
        for item in items:
            if isinstance(item, RowError):
                errors.append(item)
                continue
            batch.append(battle_to_dict(item))
            if len(batch) >= PARQUET_BATCH_ROWS:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                written += len(batch)
                batch = []
        if batch:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            written += len(batch)
    return written
