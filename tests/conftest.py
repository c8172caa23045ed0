"""Shared fixtures. Everything here is offline: bundled data, ../shared/data, loopback servers."""

from __future__ import annotations

import base64
import copy
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURE_DIR = ROOT / "data" / "bcr-fixture"
FIXTURE_PARQUET = FIXTURE_DIR / "train-00000-of-00001.parquet"
SHARED = ROOT.parent / "shared" / "data"
FEATURES_JSON = SHARED / "bigcodereward" / "features.json"

# Never let a test reach the network by accident.
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


JUDGEBENCH = [sys.executable, "-m", "judgebench.cli"]


def _jsonable(value: Any) -> Any:
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    return value


@pytest.fixture(scope="session")
def upstream_rows() -> list[dict[str, Any]]:
    """The fixture's rows exactly as `datasets` yields them from parquet (images undecoded)."""
    import datasets

    ds = datasets.load_dataset("parquet", data_files=str(FIXTURE_PARQUET), split="train", streaming=True)
    return list(ds.decode(False))


@pytest.fixture
def rows(upstream_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return copy.deepcopy(upstream_rows)


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    with open(path, "w") as handle:
        for row in rows:
            handle.write((row if isinstance(row, str) else json.dumps(_jsonable(row))) + "\n")
    return path
