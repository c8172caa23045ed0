"""The judging engine against a scripted OpenAI-compatible server, through the real litellm client."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from judgebench.records import FailureKind, Order, Vote
from judgebench.reward.pipeline import RewardOptions, run_reward
from judgebench.runner.llm_call import FatalJudgeError
from judgebench.runner.store import JudgmentStore
from tests.fake_openai import Reply, fake_openai, image_parts

VERDICT = '{{"Overall": {{"winner": "{}", "reasoning": "r"}}}}'


@pytest.fixture(autouse=True)
def _fake_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake-for-loopback")


def options(tmp_path: Path, api_base: str, **overrides: Any) -> RewardOptions:
    base = {"judge": "openai/fake-judge", "dataset": "bcr-fixture", "api_base": api_base, "runs_dir": tmp_path / "runs",
            "cache_path": None, "limit": 4, "modes": ("with",), "concurrency": 4,
            "retry_base_delay_s": 0.05, "max_attempts": 4}
    base.update(overrides)
    return RewardOptions(**base)


def judgments(run_dir: Path) -> list:
    store = JudgmentStore(run_dir)
    try:
        return list(store)
    finally:
        store.close()


def test_both_orders_are_judged_and_mapped_back(tmp_path: Path) -> None:
    with fake_openai() as server:  # always answers "A" = whichever side is shown first
        result = run_reward(options(tmp_path, server.api_base, limit=6))
    stored = judgments(result.results[0].run_dir)
    assert len(stored) == 12 and len(server.received) == 12
    for j in stored:
        assert j.presented_verdict is Vote.A
        assert j.verdict is (Vote.A if j.order is Order.AB else Vote.B)
        assert j.template_hash.startswith("sha256:") and j.prompt_hash.startswith("sha256:")
    assert {j.order for j in stored} == {Order.AB, Order.BA}


def test_images_sent_with_execution_and_absent_without(tmp_path: Path) -> None:
    with fake_openai() as server:
        run_reward(options(tmp_path, server.api_base, limit=None, modes=("with", "without"), single_order=True))
        bodies = [r.body for r in server.received]
    with_images = [b for b in bodies if image_parts(b)]
    assert with_images, "screenshots must reach the judge in with-execution mode"
    for body in with_images:
        for part in image_parts(body):
            assert part["image_url"]["url"].startswith("data:image/jpeg;base64,")
        assert "execution output" in body["messages"][0]["content"][0]["text"]
    without = [b for b in bodies if isinstance(b["messages"][0]["content"], str)
               and "execution output" not in b["messages"][0]["content"]]
    assert len(without) == 36 and not any(image_parts(b) for b in without)


def test_retry_after_is_honoured_on_429(tmp_path: Path) -> None:
    def script(body: dict, n: int) -> Reply:
        return Reply(status=429, headers={"Retry-After": "1"}, error_message="slow down") if n == 0 else Reply()

    with fake_openai(script) as server:
        result = run_reward(options(tmp_path, server.api_base, limit=1, single_order=True, concurrency=1))
        times = [r.at for r in server.received]
    stored = judgments(result.results[0].run_dir)
    assert len(stored) == 1 and stored[0].ok and stored[0].attempts == 2
    assert len(times) == 2
    assert 1.0 <= times[1] - times[0] < 5.0  # waited what the server asked, not the 0.05 s backoff


def test_5xx_malformed_and_truncated_bodies_are_retried(tmp_path: Path) -> None:
    faults = [Reply(status=500), Reply(raw_body=b"{not json"), Reply(truncate=True), Reply(status=503)]

    def script(body: dict, n: int) -> Reply:
        return faults[n] if n < len(faults) else Reply()

    with fake_openai(script) as server:
        result = run_reward(options(tmp_path, server.api_base, limit=1, single_order=True, concurrency=1,
                                    max_attempts=6))
    stored = judgments(result.results[0].run_dir)
    assert stored[0].ok and stored[0].attempts == 5
    assert len(server.received) == 5


def test_persistent_failure_is_recorded_not_dropped_and_retried_on_resume(tmp_path: Path) -> None:
    with fake_openai(lambda body, n: Reply(status=500)) as server:
        result = run_reward(options(tmp_path, server.api_base, limit=2, single_order=True, max_attempts=3))
        assert len(server.received) == 6  # 2 items x 3 attempts
    stored = judgments(result.results[0].run_dir)
    assert [j.failure for j in stored] == [FailureKind.API_ERROR, FailureKind.API_ERROR]
    assert result.summaries[0]["coverage"] == 0.0
    with fake_openai() as server:  # the API is back: the resume redoes exactly the failed items
        result = run_reward(options(tmp_path, server.api_base, limit=2, single_order=True))
        assert len(server.received) == 2
    assert all(j.ok for j in judgments(result.results[0].run_dir))


def test_hung_request_times_out_and_is_retried(tmp_path: Path) -> None:
    def script(body: dict, n: int) -> Reply:
        return Reply(delay_s=4.0) if n == 0 else Reply()

    spec = tmp_path / "impatient.toml"
    spec.write_text('model = "openai/fake-judge"\ntimeout_s = 1.0\nmax_attempts = 3\nconcurrency = 1\n')
    with fake_openai(script) as server:
        result = run_reward(options(tmp_path, server.api_base, judge=str(spec), limit=1, single_order=True,
                                    max_attempts=None, concurrency=None))
    stored = judgments(result.results[0].run_dir)
    assert stored[0].ok and stored[0].attempts >= 2
    assert stored[0].latency_s < 4.0 + 3.0  # did not wait out the hang


def test_unparseable_answer_keeps_raw_text_and_is_not_a_vote(tmp_path: Path) -> None:
    with fake_openai(lambda body, n: Reply(content="I think the first one is nicer.")) as server:
        result = run_reward(options(tmp_path, server.api_base, limit=2, single_order=True))
    stored = judgments(result.results[0].run_dir)
    assert all(j.failure is FailureKind.UNPARSEABLE and j.verdict is None for j in stored)
    assert stored[0].raw_text == "I think the first one is nicer."


def test_context_overflow_from_provider_and_before_sending(tmp_path: Path) -> None:
    message = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
    with fake_openai(lambda body, n: Reply(status=400, error_message=message)) as server:
        result = run_reward(options(tmp_path, server.api_base, limit=2, single_order=True))
        assert len(server.received) == 2  # not retried
    assert all(j.failure is FailureKind.CONTEXT_OVERFLOW for j in judgments(result.results[0].run_dir))

    spec = tmp_path / "tiny.toml"
    spec.write_text('name = "tiny-window"\nmodel = "openai/fake-judge"\ncontext_window = 300\n')
    with fake_openai() as server:
        result = run_reward(options(tmp_path, server.api_base, judge=str(spec), limit=2, single_order=True))
        assert server.received == []  # detected before sending
    stored = judgments(result.results[0].run_dir)
    assert all(j.failure is FailureKind.CONTEXT_OVERFLOW and "not sent" in j.detail for j in stored)


def test_auth_error_stops_the_run_early(tmp_path: Path) -> None:
    with fake_openai(lambda body, n: Reply(status=401, error_message="invalid api key")) as server:
        with pytest.raises(FatalJudgeError, match="AuthenticationError"):
            run_reward(options(tmp_path, server.api_base, limit=20, concurrency=2))
        assert len(server.received) <= 4  # stopped, not hammered 40 times
    run_dir = next((tmp_path / "runs").rglob("manifest.json")).parent
    assert judgments(run_dir) == []  # nothing recorded as a vote or failure: a resume will redo them
    import json

    assert json.loads((run_dir / "manifest.json").read_text())["sessions"][-1]["status"].startswith("stopped")


def test_second_identical_run_makes_zero_calls(tmp_path: Path) -> None:
    cache = tmp_path / "cache.sqlite"
    with fake_openai() as server:
        first = run_reward(options(tmp_path, server.api_base, limit=5, cache_path=cache))
        calls = len(server.received)
        second = run_reward(options(tmp_path, server.api_base, limit=5, cache_path=cache,
                                    runs_dir=tmp_path / "other-runs"))
        assert len(server.received) == calls == 10
    a, b = judgments(first.results[0].run_dir), judgments(second.results[0].run_dir)
    assert [j.verdict for j in a] == [j.verdict for j in b]
    assert all(j.cached for j in b) and not any(j.cached for j in a)


def test_run_dir_refuses_a_different_judge_setup(tmp_path: Path) -> None:
    from judgebench.data.errors import DatasetError

    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text('name = "mine"\nmodel = "openai/fake-judge"\nparams = { temperature = 0.0 }\n')
    second.write_text('name = "mine"\nmodel = "openai/fake-judge"\nparams = { temperature = 1.0 }\n')
    with fake_openai() as server:
        run_reward(options(tmp_path, server.api_base, judge=str(first), limit=1, single_order=True))
        with pytest.raises(DatasetError, match="different judge fingerprint"):
            run_reward(options(tmp_path, server.api_base, judge=str(second), limit=1, single_order=True))
        assert len(server.received) == 1


def test_store_is_sound_after_runs(tmp_path: Path) -> None:
    with fake_openai() as server:
        result = run_reward(options(tmp_path, server.api_base, limit=8))
    db = sqlite3.connect(result.results[0].run_dir / JudgmentStore.FILE)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    keys = Counter(db.execute("SELECT battle_id, order_ FROM judgments").fetchall())
    assert len(keys) == 16 and set(keys.values()) == {1}
