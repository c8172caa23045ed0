"""Scoring stored runs: deterministic, complete, and runnable from the CLI."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from judgebench.report.bigcodereward import write_report
from judgebench.reward.pipeline import RewardOptions, run_reward
from judgebench.reward.score import ScoreSettings, find_runs, score_runs
from tests.conftest import JUDGEBENCH, ROOT, cli_env


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    for judge in ("exec-success", "always-a", "random"):
        run_reward(RewardOptions(judge=judge, dataset="bcr-fixture", runs_dir=root, cache_path=None))
    return root


def test_scoring_twice_gives_identical_reports(runs_dir: Path, tmp_path: Path) -> None:
    settings = ScoreSettings(rounds=300, seed=5)
    first = write_report(score_runs(find_runs(runs_dir), settings), tmp_path / "one")
    second = write_report(score_runs(find_runs(runs_dir), settings), tmp_path / "two")
    assert first.keys() == second.keys() and {"markdown", "json"} <= set(first)
    for key in first:
        assert first[key].read_bytes() == second[key].read_bytes(), key


def test_scores_are_what_the_votes_say(runs_dir: Path) -> None:
    score = score_runs(find_runs(runs_dir), ScoreSettings(rounds=200))
    by_key = {(r["judge"], r["mode"]): r for r in score["runs"]}
    always = by_key[("always-a", "with")]
    # Both orders -> always-a always flips -> every item is a tie; the fixture is half tie/both_bad.
    assert always["position"]["flip_rate"] == 1.0 and always["position"]["first_slot_rate"] == 1.0
    assert always["agreement_3class_valid"]["accuracy"]["value"] == pytest.approx(0.5)
    assert always["agreement_3class_valid"]["n"] == 36 and always["coverage"] == 1.0
    exec_with = by_key[("exec-success", "with")]["agreement_3class_valid"]["accuracy"]["value"]
    exec_without = by_key[("exec-success", "without")]["agreement_3class_valid"]["accuracy"]["value"]
    assert exec_with > exec_without
    paired = {p["judge"]: p for p in score["paired"]}["exec-success"]["overall"]
    assert paired["n"] == 36 and paired["difference"] == pytest.approx(exec_with - exec_without)
    assert paired["mcnemar_p"] < 0.01
    assert set(by_key[("random", "with")]["by_category"]) == {
        "creative_coding", "diagram_creation", "game_development", "problem_solving", "scientific_computing",
        "web_design"}
    ratings = score["ratings"]["exec-success / parity / with"]
    assert {row["model"] for row in ratings["human_bt"]["models"]} == {row["model"] for row in
                                                                       ratings["judge_bt"]["models"]}
    assert ratings["correlation"]["n_battles"] == 36


def test_cli_report_and_score(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "leaderboards"
    result = subprocess.run([*JUDGEBENCH, "reward", "report", "--runs-dir", str(runs_dir), "--out", str(out),
                             "--rounds", "200"], capture_output=True, text=True, cwd=ROOT, env=cli_env(), timeout=300)
    assert result.returncode == 0, result.stderr
    text = (out / "bigcodereward.md").read_text()
    assert "exec-success (floor)" in text and "McNemar" in text and "Spearman" in text
    data = json.loads((out / "bigcodereward.json").read_text())
    assert len(data["runs"]) == 6
    scored = subprocess.run([*JUDGEBENCH, "reward", "score", str(runs_dir), "--json", "--rounds", "100"],
                            capture_output=True, text=True, cwd=ROOT, env=cli_env(), timeout=300)
    assert scored.returncode == 0, scored.stderr
    assert len(json.loads(scored.stdout)["runs"]) == 6
    empty = subprocess.run([*JUDGEBENCH, "reward", "report", "--runs-dir", str(tmp_path / "nothing")],
                           capture_output=True, text=True, cwd=ROOT, env=cli_env(), timeout=120)
    assert empty.returncode == 2 and "no run directories" in empty.stderr
