"""AutoCodeArena end to end against scripted OpenAI-compatible servers, through litellm."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from judgebench.arena.judge import parse_arena_verdict
from judgebench.arena.pipeline import ArenaOptions, run_all, run_execute, run_generate, run_judge, workspace
from judgebench.arena.score import ArenaScoreSettings, prompt_bootstrap, score_arena
from judgebench.execution.sandbox import Sandbox, SandboxUnavailable
from tests.conftest import JUDGEBENCH, ROOT, cli_env
from tests.fake_openai import Reply, fake_openai, prompt_text

REFERENCE = {json.loads(line)["uid"]: json.loads(line)["answer"]
             for line in (ROOT / "data" / "arena-mini" / "reference-answers.jsonl").read_text().splitlines()}
PROMPTS = {json.loads(line)["instruction"]: json.loads(line)["uid"]
           for line in (ROOT / "data" / "arena-mini" / "prompts.jsonl").read_text().splitlines()}
BROKEN = "Here you go:\n```python\nimport sys\nprint('starting')\nsys.exit(3)\n```\n"

try:
    Sandbox()
    SANDBOX_REASON = ""
except SandboxUnavailable as exc:
    SANDBOX_REASON = str(exc)
needs_sandbox = pytest.mark.skipif(bool(SANDBOX_REASON), reason=f"no sandbox: {SANDBOX_REASON}")


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-loopback")


def uid_of(body: dict[str, Any]) -> str:
    user = next(m for m in body["messages"] if m["role"] == "user")
    text = user["content"] if isinstance(user["content"], str) else prompt_text({"messages": [user]})
    return next(uid for instruction, uid in PROMPTS.items() if instruction in text)


def contestants(body: dict[str, Any], n: int) -> Reply:
    """strong answers with working code, weak with crashing code, mute with prose only."""
    model = body["model"]
    if model == "judge":  # prefers the side whose execution succeeded, strongly if the other has errors
        text = prompt_text(body)
        a_part, _, b_part = text.partition("## Assistant B: answer")
        a_ok, b_ok = "status: ok" in a_part, "status: ok" in b_part
        verdict = "[[A=B]]" if a_ok == b_ok else ("[[A>>B]]" if a_ok else "[[B>>A]]")
        return Reply(content=f"Comparing [[A>B]] and [[B>A]] options... final: {verdict}")
    uid = uid_of(body)
    if model == "strong":
        return Reply(content=REFERENCE[uid])
    if model == "weak":
        return Reply(content=BROKEN)
    return Reply(content="I would rather describe the idea in words than write code.")


def options(tmp_path: Path, api_base: str, **kw: Any) -> ArenaOptions:
    return ArenaOptions(runs_dir=tmp_path / "runs", cache_path=None, api_base=api_base, retry_base_delay_s=0.05,
                        **kw)


def test_verdict_parsing_last_match_wins() -> None:
    assert parse_arena_verdict("maybe [[A>B]] ... no, [[B>>A]]") == "B>>A"
    assert parse_arena_verdict("[[A<B]]") == "B>A"
    assert parse_arena_verdict("[[ A = B ]]") == "A=B"
    assert parse_arena_verdict("A is better") is None
    assert parse_arena_verdict("[[A>A]]") is None


def test_prompt_bootstrap_keeps_games_together_and_is_seeded() -> None:
    from judgebench.arena.score import Game

    games = [Game(f"p{i}", g, "c", "e", float(i % 2), 1.0) for i in range(20) for g in (1, 2)]
    first = prompt_bootstrap(games, 500, seed=1)
    assert first == prompt_bootstrap(games, 500, seed=1)
    assert first[0] < 0.5 < first[1]


@needs_sandbox
def test_strong_beats_weak_and_missing_code_loses(tmp_path: Path) -> None:
    with fake_openai(contestants) as server:
        opts = options(tmp_path, server.api_base, models=("openai/strong", "openai/weak", "openai/mute"),
                       baseline="openai_weak", judge="openai/judge")
        steps = run_all(opts, settings=ArenaScoreSettings(rounds=200))
        judge_calls = [r for r in server.received if r.body["model"] == "judge"]
    score = {r["model"]: r for r in steps["score"]["models"]}
    assert score["openai_strong"]["score"] > 0.9 > 0.5 > score["openai_mute"]["score"]
    assert score["openai_weak"].get("baseline")
    # both orders: two games per prompt for each contestant
    assert score["openai_strong"]["games"] == 24 and score["openai_mute"]["games"] == 24
    # prose-only answers lose without a judge call: only the strong model's games reached the judge
    assert len(judge_calls) == 24
    assert score["openai_mute"]["score"] == 0.0 and score["openai_mute"]["answer_failures"] == {"no_code": 12}
    assert score["openai_weak"]["answer_failures"]["execution_error"] == 12
    ws = workspace(opts)
    games = dict(ws.judgments("openai_judge", "openai_weak", "openai_strong").items())
    assert {(g["a"], g["b"]) for g in games.values()} == {("openai_weak", "openai_strong"),
                                                           ("openai_strong", "openai_weak")}
    # the judge saw screenshots as images for web answers
    assert any(isinstance(m["content"], list) and any(p["type"] == "image_url" for p in m["content"])
               for r in judge_calls for m in r.body["messages"])


@needs_sandbox
def test_judge_failures_are_counted_not_dropped(tmp_path: Path) -> None:
    def script(body: dict[str, Any], n: int) -> Reply:
        if body["model"] == "judge":
            return Reply(content="Both are fine, I cannot decide.")
        return contestants(body, n)

    with fake_openai(script) as server:
        opts = options(tmp_path, server.api_base, models=("openai/strong", "openai/weak"), baseline="openai_weak",
                       judge="openai/judge")
        steps = run_all(opts, settings=ArenaScoreSettings(rounds=100))
    strong = next(r for r in steps["score"]["models"] if r["model"] == "openai_strong")
    assert strong["games"] == 0 and strong["judge_failures"] == {"unparseable": 24}


def test_generation_resumes_exactly_after_kill(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    with fake_openai(lambda body, n: Reply(content=REFERENCE[uid_of(body)], delay_s=0.3)) as server:
        cmd = [*JUDGEBENCH, "arena", "generate", "--model", "openai/strong", "--api-base", server.api_base,
               "--runs-dir", str(runs), "--no-cache", "--concurrency", "2", "--yes"]
        env = cli_env(OPENAI_API_KEY="sk-fake-for-loopback")
        db = runs / "arena" / "arena-mini" / "answers" / "openai_strong.sqlite"
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

        def stored() -> int:
            if not db.exists():
                return 0
            try:
                return sqlite3.connect(db).execute("SELECT COUNT(*) FROM records").fetchone()[0]
            except sqlite3.OperationalError:
                return 0

        deadline = time.monotonic() + 120
        while stored() < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        at_kill, sent = stored(), len(server.received)
        assert 4 <= at_kill < 12 and sent - at_kill <= 2
        again = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
        assert len(server.received) - sent == 12 - at_kill
    rows = sqlite3.connect(db).execute("SELECT key, payload FROM records").fetchall()
    assert sorted(k for k, _ in rows) == sorted(REFERENCE)
    assert all(json.loads(p)["answer"] == REFERENCE[k] for k, p in rows)


@needs_sandbox
def test_steps_are_resumable_and_idempotent(tmp_path: Path) -> None:
    with fake_openai(contestants) as server:
        opts = options(tmp_path, server.api_base)
        ws = workspace(opts)
        run_generate(ws, "openai/strong", opts)
        run_generate(ws, "openai/weak", opts)
        first = len(server.received)
        run_generate(ws, "openai/strong", opts)  # nothing pending: no call
        assert len(server.received) == first
        run_execute(ws, opts)
        again = run_execute(ws, opts)
        assert all(r["executed"] == 0 for r in again)
        run_judge(ws, opts, "openai/judge", "openai_weak")
        calls = len(server.received)
        run_judge(ws, opts, "openai/judge", "openai_weak")
        assert len(server.received) == calls
    result = score_arena(ws, "openai_judge", "openai_weak", ArenaScoreSettings(rounds=100))
    assert next(r for r in result["models"] if r["model"] == "openai_strong")["games"] == 24
