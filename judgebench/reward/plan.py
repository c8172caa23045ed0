"""Choosing the battles of a run and pricing it before a cent is spent."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

from judgebench.data.errors import RowError
from judgebench.data.sources import DatasetSource, iter_battles
from judgebench.judges.spec import JudgeSpec
from judgebench.prompts import IMAGE_TOKEN_ESTIMATE, load_template, render
from judgebench.records import Battle, Order, Side

MODES = ("with", "without")
ASSUMED_OUTPUT_TOKENS = 300
ASSUMED_LATENCY_S = {"remote": 8.0, "local": 3.0}  # local: SmolLM2 on 2 cores, ~1.5 s measured


def template_name(style: str, mode: str) -> str:
    return f"reward_{style}_{mode}_exec"


@dataclass(frozen=True)
class Selection:
    """Which battles a run covers, and how they were chosen (recorded in the manifest)."""

    battle_ids: tuple[str, ...]
    categories: tuple[str, ...] = ()
    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    unreadable_rows: int = 0
    row_errors: tuple[str, ...] = ()
    metadata: tuple[dict, ...] = ()  # per selected battle: what scoring needs without the dataset

    def describe(self) -> dict[str, object]:
        return {"battles": len(self.battle_ids), "categories": list(self.categories), "limit": self.limit,
                "sample": self.sample, "seed": self.seed, "unreadable_rows": self.unreadable_rows}


@dataclass
class ModeEstimate:
    mode: str
    items: int = 0
    done: int = 0
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    overflow: int = 0

    @property
    def pending(self) -> int:
        return self.items - self.done


@dataclass
class Estimate:
    modes: list[ModeEstimate] = field(default_factory=list)
    usd: float | None = None
    seconds: float = 0.0
    price_known: bool = False

    @property
    def calls(self) -> int:
        return sum(m.calls for m in self.modes)

    @property
    def input_tokens(self) -> int:
        return sum(m.input_tokens for m in self.modes)

    @property
    def output_tokens(self) -> int:
        return sum(m.output_tokens for m in self.modes)


def select_battles(source: DatasetSource, *, categories: tuple[str, ...] = (), limit: int | None = None,
                   sample: int | None = None, seed: int = 0, strict: bool = False) -> Selection:
    ids: list[str] = []
    errors: list[str] = []
    unreadable = 0
    meta: dict[str, dict] = {}
    wanted = {c.lower() for c in categories}
    for item in iter_battles(source, strict=strict):
        if isinstance(item, RowError):
            unreadable += 1
            if len(errors) < 20:
                errors.append(str(item))
            continue
        if wanted and item.category.lower() not in wanted:
            continue
        ids.append(item.id)
        meta[item.id] = battle_metadata(item)
    if sample is not None and sample < len(ids):
        chosen = set(random.Random(seed).sample(ids, sample))
        ids = [i for i in ids if i in chosen]
    if limit is not None:
        ids = ids[:limit]
    return Selection(tuple(ids), tuple(categories), limit, sample, seed, unreadable, tuple(errors),
                     tuple(meta[i] for i in ids))


def battle_metadata(battle: Battle) -> dict:
    def side(s: Side) -> dict:
        latest = s.latest_execution
        return {"model": s.model, "language": latest.language if latest else "",
                "environment": latest.environment if latest else "", "executed": latest is not None}

    return {"id": battle.id, "category": battle.category, "vote": battle.vote.value if battle.vote else None,
            "turns": battle.turns, "a": side(battle.side_a), "b": side(battle.side_b)}


def model_info(model: str) -> dict:
    import litellm

    litellm.suppress_debug_info = True  # otherwise an unknown model prints a banner on stdout
    try:
        return dict(litellm.get_model_info(model))
    except Exception:  # unknown to litellm's price map (local servers, new models)
        return {}


def explicit_pricing(spec: JudgeSpec) -> dict[str, float]:
    """The spec's own prices; for a model litellm does not know on a self-hosted server, zero."""
    if spec.input_cost_per_token is not None and spec.output_cost_per_token is not None:
        return {"input_cost_per_token": spec.input_cost_per_token,
                "output_cost_per_token": spec.output_cost_per_token}
    if spec.kind == "llm" and (spec.api_base or spec.model.startswith("local/")) and not model_info(spec.model):
        return {"input_cost_per_token": 0.0, "output_cost_per_token": 0.0}
    return {}



# litellm runs a "zero cost" diagnostic on every response priced at exactly 0 (~2 ms of CPU per call,
# measured). Self-hosted models are therefore priced at this negligible rate in the call, and their
# recorded cost is set back to exactly 0 by the runner.
NEGLIGIBLE_PRICE = 1e-15


def litellm_pricing(prices: dict[str, float]) -> tuple[dict[str, float], bool]:
    """-> (per-call price arguments for litellm, whether the true price is zero)."""
    if prices and not any(prices.values()):
        return {k: NEGLIGIBLE_PRICE for k in prices}, True
    return prices, False


def context_window(spec: JudgeSpec) -> int | None:
    if spec.context_window:
        return spec.context_window
    if spec.kind != "llm":
        return None
    return model_info(spec.model).get("max_input_tokens")


def estimate(source: DatasetSource, selection: Selection, spec: JudgeSpec, modes: tuple[str, ...],
             orders: tuple[Order, ...], finished: dict[str, set[tuple[str, str]]]) -> Estimate:
    """Streams the selected battles once, rendering text only (images are counted, not decoded)."""
    result = Estimate(modes=[ModeEstimate(m) for m in modes])
    if spec.kind != "llm":
        for est in result.modes:
            est.items = len(selection.battle_ids) * len(orders)
            est.done = sum(1 for k in finished[est.mode] if k[0] in set(selection.battle_ids))
        result.usd, result.price_known = 0.0, True
        return result
    wanted = set(selection.battle_ids)
    templates = {m: load_template(template_name(spec.prompt_style, m)) for m in modes}
    window = context_window(spec)
    max_out = int(spec.params.get("max_tokens") or ASSUMED_OUTPUT_TOKENS)
    for item in iter_battles(source):
        if isinstance(item, RowError) or item.id not in wanted:
            continue
        for est in result.modes:
            for order in orders:
                est.items += 1
                if (item.id, order.value) in finished[est.mode]:
                    est.done += 1
                    continue
                rendered = render(templates[est.mode], item, order, vision=False, parity=spec.prompt_style == "parity")
                shots = sum(1 for s in item.sides if s.latest_execution and s.latest_execution.screenshot)
                images = shots if est.mode == "with" and spec.vision else 0
                tokens = rendered.estimated_tokens + images * IMAGE_TOKEN_ESTIMATE
                if window and tokens + max_out > window:
                    est.overflow += 1
                    continue
                est.calls += 1
                est.input_tokens += tokens
                est.output_tokens += min(max_out, ASSUMED_OUTPUT_TOKENS)
    info = {**model_info(spec.model), **explicit_pricing(spec)}
    in_price, out_price = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if in_price is not None and out_price is not None:
        result.price_known = True
        result.usd = result.input_tokens * in_price + result.output_tokens * out_price
    latency = ASSUMED_LATENCY_S["local" if spec.model.startswith("local/") else "remote"]
    by_concurrency = result.calls * latency / max(1, spec.concurrency)
    by_rpm = result.calls / spec.rpm * 60 if spec.rpm else 0.0
    by_tpm = result.input_tokens / spec.tpm * 60 if spec.tpm else 0.0
    result.seconds = max(by_concurrency, by_rpm, by_tpm)
    return result


def run_dir_for(runs_dir: Path, source: DatasetSource, spec: JudgeSpec, mode: str) -> Path:
    dataset = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in source.name) or "dataset"
    return runs_dir / "reward" / dataset / spec.slug / f"{spec.prompt_style}-{mode}-exec"
