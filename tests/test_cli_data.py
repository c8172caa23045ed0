"""The `judgebench data` commands, run as a user runs them: a subprocess with real arguments."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_PARQUET, JUDGEBENCH, ROOT, cli_env, write_jsonl
from tests.hang_server import closed_port, silent_server


def run_cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*JUDGEBENCH, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env or cli_env(), timeout=timeout)


def test_stats_json_counts_on_the_fixture() -> None:
    result = run_cli("data", "stats", "--dataset", str(FIXTURE_PARQUET), "--json")
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert stats["battles"] == 36 and stats["errors"] == 0
    assert stats["votes"] == {"A": 9, "B": 9, "both_bad": 9, "tie": 9}
    assert set(stats["categories"].values()) == {6}
    assert stats["turns"] == {"1": 29, "2": 7}
    assert stats["rows_with_screenshot"] == 18
    assert sum(stats["models"].values()) == 72
    assert stats["environments"]["Python Runner"] == 18


def test_stats_table_by_default_is_the_bundled_dataset() -> None:
    result = run_cli("data", "stats")
    assert result.returncode == 0, result.stderr
    assert "battles" in result.stdout and "164" in result.stdout and "problem_solving" in result.stdout


def test_validate_passes_on_fixture_and_fails_on_broken_rows(tmp_path: Path, rows: list[dict]) -> None:
    ok = run_cli("data", "validate", "--dataset", "bcr-fixture", "--json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["screenshots"] > 0
    rows[2]["human_vote"] = "vote_left"
    broken = run_cli("data", "validate", "--dataset", str(write_jsonl(tmp_path / "b.jsonl", rows)))
    assert broken.returncode == 1
    assert "fx003" in broken.stderr and "vote_left" in broken.stderr
    strict = run_cli("data", "stats", "--strict", "--dataset", str(tmp_path / "b.jsonl"))
    assert strict.returncode == 2 and "fx003" in strict.stderr and "Traceback" not in strict.stderr


def test_export_then_reuse_offline(tmp_path: Path) -> None:
    out = tmp_path / "copy.parquet"
    result = run_cli("data", "export", "--dataset", "bcr-fixture", "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["written"] == 36
    again = run_cli("data", "stats", "--dataset", str(out), "--json")
    assert json.loads(again.stdout)["votes"] == {"A": 9, "B": 9, "both_bad": 9, "tie": 9}


def test_info_names_the_bundled_datasets() -> None:
    result = run_cli("data", "info", "--json")
    info = json.loads(result.stdout)
    assert info["rows"] == 164 and info["fingerprint"].startswith("sha256:")
    assert {"bcr-fixture", "humaneval-pairs"} <= set(info["bundled"]) and info["default"] == "humaneval-pairs"


def test_missing_dataset_is_one_clear_line() -> None:
    result = run_cli("data", "stats", "--dataset", "no/such/place.parquet")
    assert result.returncode == 2
    assert "No such file or folder" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("server", ["refused", "silent"])
def test_unreachable_hub_fails_fast_with_local_copy_advice(server: str) -> None:
    def attempt(port: int) -> tuple[subprocess.CompletedProcess, float]:
        env = cli_env(HF_ENDPOINT=f"http://127.0.0.1:{port}", HF_HUB_ETAG_TIMEOUT="1")
        env.pop("HF_HUB_OFFLINE", None)
        start = time.monotonic()
        result = run_cli("data", "stats", "--dataset", "hf:bigcode/bigcodereward", env=env, timeout=60)
        return result, time.monotonic() - start

    if server == "refused":
        result, elapsed = attempt(closed_port())
    else:
        with silent_server() as port:
            result, elapsed = attempt(port)
    assert result.returncode == 2
    assert "Cannot reach the Hugging Face Hub" in result.stderr
    assert "--dataset" in result.stderr and "Traceback" not in result.stderr
    # datasets' own retry loop takes ~25 s; the probe's 5 s timeout plus interpreter start-up is the bound.
    assert elapsed < 20, elapsed


def test_hub_offline_env_is_respected_immediately() -> None:
    result = run_cli("data", "info", "--dataset", "hf:bigcode/bigcodereward", env=cli_env(HF_HUB_OFFLINE="1"))
    assert result.returncode == 2 and "HF_HUB_OFFLINE" in result.stderr
