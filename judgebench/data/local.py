"""Local copies: Hub parquet shards (file, glob or folder), JSONL, and `save_to_disk` folders."""

from __future__ import annotations

import glob
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgebench.data.errors import DatasetError, RowFormatError

PARQUET_SUFFIXES = (".parquet",)
JSONL_SUFFIXES = (".jsonl", ".json", ".ndjson")


def undecoded(ds: Any) -> Iterator[dict[str, Any]]:
    """Iterates a datasets IterableDataset with Image features left as bytes (decoded only if used)."""
    yield from ds.decode(False)


def _pick_split(files: list[Path], split: str) -> list[Path]:
    """Hub snapshots name shards `<split>-00000-of-00003.parquet` or keep them in a `<split>/` folder."""
    chosen = [f for f in files if f.name.startswith(f"{split}-") or split in f.parent.name.split("/")]
    return chosen or files


def resolve_files(spec: str, split: str) -> tuple[str, list[Path]]:
    """Returns (kind, files) with kind one of parquet, jsonl, saved; raises DatasetError otherwise."""
    if any(ch in spec for ch in "*?["):
        files = sorted(Path(p) for p in glob.glob(spec, recursive=True))
        if not files:
            raise DatasetError(f"No file matches {spec!r}.")
    else:
        path = Path(spec).expanduser()
        if not path.exists():
            raise DatasetError(f"No such file or folder: {spec}")
        if path.is_dir():
            if (path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists():
                return "saved", [path]
            # In a folder, .json files are metadata (manifests, dataset cards), not rows.
            files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in (*PARQUET_SUFFIXES, ".jsonl",
                                                                                       ".ndjson"))
            if not files:
                raise DatasetError(f"{spec} holds no parquet, JSONL or save_to_disk data.")
        else:
            files = [path]
    parquet = [f for f in files if f.suffix in PARQUET_SUFFIXES]
    jsonl = [f for f in files if f.suffix in JSONL_SUFFIXES]
    if parquet and not jsonl:
        return "parquet", _pick_split(parquet, split)
    if jsonl and not parquet:
        return "jsonl", _pick_split(jsonl, split)
    if parquet and jsonl:
        raise DatasetError(f"{spec} mixes parquet and JSONL files; point --dataset at one kind.")
    raise DatasetError(f"Unsupported file type for {spec} (expected .parquet, .jsonl or a save_to_disk folder).")


# Rows decoded into Python objects per batch: small, because a row of the real data carries
# screenshots (~300 KB on average, several MB at most).
PARQUET_BATCH_ROWS = 8


def parquet_stream_options() -> dict[str, Any]:
    """Builder options that keep memory flat while streaming parquet.

    Arrow's pre-buffering (on by default) keeps whole column chunks alive across batches: measured
    here, peak RSS grew with the file (3.4 GB for a 1.4 GB file). Without it, and with small batches,
    peak RSS stays flat however long the file is (benchmarks/bench_data_layer.py).
    """
    import pyarrow.dataset as pds

    return {"fragment_scan_options": pds.ParquetFragmentScanOptions(pre_buffer=False),
            "batch_size": PARQUET_BATCH_ROWS}


def iter_parquet_rows(files: list[Path]) -> Iterator[dict[str, Any]]:
    import datasets

    ds = datasets.load_dataset("parquet", data_files=[str(f) for f in files], split="train", streaming=True,
                               **parquet_stream_options())
    yield from undecoded(ds)


def iter_saved_rows(folder: Path, split: str) -> Iterator[dict[str, Any]]:
    import datasets

    ds = datasets.load_from_disk(str(folder))
    if isinstance(ds, datasets.DatasetDict):
        if split not in ds:
            raise DatasetError(f"{folder} has splits {sorted(ds)}, not {split!r}; pass --split.")
        ds = ds[split]
    yield from undecoded(ds.to_iterable_dataset())


def iter_jsonl_rows(files: list[Path]) -> Iterator[dict[str, Any] | RowFormatError]:
    """A line that is not a JSON object becomes a RowFormatError naming file and line, not a crash."""
    for file in files:
        with open(file, encoding="utf-8") as handle:
            for line_no, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    yield RowFormatError(f"{file.name}:{line_no}: not valid JSON ({exc.msg})")
                    continue
                if not isinstance(row, dict):
                    yield RowFormatError(f"{file.name}:{line_no}: expected a JSON object")
                    continue
                yield row
