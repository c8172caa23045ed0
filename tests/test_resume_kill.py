"""Kill -9 in the middle of a run, run again: every item judged exactly once, nothing lost or torn."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

from tests.conftest import JUDGEBENCH, ROOT, cli_env
from tests.fake_openai import Reply, fake_openai

CONCURRENCY = 2


def stored_rows(db_path: Path) -> int:
    if not db_path.exists():
        return 0
    db = sqlite3.connect(db_path, timeout=10)
    try:
        return int(db.execute("SELECT COUNT(*) FROM judgments").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        db.close()


def run_command(api_base: str, runs: Path) -> list[str]:
    return [*JUDGEBENCH, "reward", "run", "--judge", "openai/fake-judge", "--api-base", api_base, "--mode", "with",
            "--dataset", "bcr-fixture", "--runs-dir", str(runs), "--no-cache", "--concurrency", str(CONCURRENCY),
            "--yes", "--json"]


DB = Path("reward") / "bcr-fixture" / "openai_fake-judge" / "parity-with-exec" / "judgments.sqlite"
ENV = {"OPENAI_API_KEY": "sk-fake-for-loopback"}


def start_and_wait(cmd: list[str], db_path: Path, rows: int) -> subprocess.Popen:
    """Starts a run and returns once it has stored `rows` judgments (still running)."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=cli_env(**ENV), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 120
    while stored_rows(db_path) < rows and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert proc.poll() is None, "run finished before it could be stopped"
    return proc


def test_sigkill_midway_then_resume_judges_each_item_once(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    db_path = runs / DB
    with fake_openai(lambda body, n: Reply(delay_s=0.15)) as server:
        cmd = run_command(server.api_base, runs)
        proc = start_and_wait(cmd, db_path, 10)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        at_kill = stored_rows(db_path)
        sent_first = len(server.received)
        assert 10 <= at_kill < 72
        assert sent_first - at_kill <= CONCURRENCY  # only calls in flight were lost

        again = subprocess.run(cmd, cwd=ROOT, env=cli_env(**ENV), capture_output=True, text=True, timeout=300)
        assert again.returncode == 0, again.stderr
        sent_second = len(server.received) - sent_first

    assert sent_second == 72 - at_kill  # resume skipped every stored item
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    keys = db.execute("SELECT battle_id, order_, verdict FROM judgments").fetchall()
    assert len(keys) == 72 and len({(b, o) for b, o, _ in keys}) == 72
    assert all(v in ("A", "B") for _, _, v in keys)
    manifest = json.loads((db_path.parent / "manifest.json").read_text())
    assert manifest["sessions"][-1]["status"] == "finished" and manifest["stored_judgments"] == 72
    assert manifest["sessions"][0]["status"] == "running"  # the killed session could not close itself
    summary = json.loads(again.stdout)
    assert summary["modes"][0]["judgments"] == 72


def test_ctrl_c_stops_cleanly_and_records_the_session(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    db_path = runs / DB
    with fake_openai(lambda body, n: Reply(delay_s=0.15)) as server:
        proc = start_and_wait(run_command(server.api_base, runs), db_path, 6)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    manifest = json.loads((db_path.parent / "manifest.json").read_text())
    session = manifest["sessions"][-1]
    assert session["status"] == "interrupted" and session["judged"] == stored_rows(db_path) < 72
