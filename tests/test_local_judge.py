"""The embedded SmolLM2 judge judges real battles, through litellm's custom-provider path."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgebench.judges.local import local_available
from judgebench.records import FailureKind
from judgebench.reward.pipeline import RewardOptions, run_reward
from judgebench.runner.store import JudgmentStore

REASON = local_available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"embedded judge unavailable: {REASON}")


def small_run(tmp_path: Path, runs: str):  # type: ignore[no-untyped-def]
    return run_reward(RewardOptions(judge="smollm2-local", dataset="bcr-fixture", limit=3, modes=("with",),
                                    runs_dir=tmp_path / runs, cache_path=tmp_path / "cache.sqlite"))


def test_smollm2_judges_a_few_battles_with_parseable_verdicts(tmp_path: Path) -> None:
    result = small_run(tmp_path, "runs")
    store = JudgmentStore(result.results[0].run_dir)
    stored = list(store)
    store.close()
    assert len(stored) == 6
    for j in stored:
        # Constrained decoding: every answer parses; a failure here could only be an honest overflow.
        assert j.ok or j.failure is FailureKind.CONTEXT_OVERFLOW, (j.failure, j.raw_text)
        assert j.input_tokens > 0 and j.attempts == 1 and not j.cached
    assert sum(j.ok for j in stored) >= 4
    again = small_run(tmp_path, "again")
    assert again.results[0].progress.calls == 0  # second identical run: all from the cache
