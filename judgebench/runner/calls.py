"""One cached, rate-limited, retried LLM call: the unit both arena steps are built from."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from judgebench.judges.spec import JudgeSpec
from judgebench.records import FailureKind
from judgebench.runner.cache import ResponseCache, cache_key
from judgebench.runner.limits import Limits
from judgebench.runner.llm_call import LLMRequest, RetryPolicy, call_llm


@dataclass
class CallResult:
    text: str | None
    failure: FailureKind | None = None
    detail: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 0
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "failure": self.failure.value if self.failure else None, "detail": self.detail,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens, "cost_usd": self.cost_usd,
                "latency_s": round(self.latency_s, 3), "attempts": self.attempts, "cached": self.cached}


async def bounded_gather(jobs: list[Any], worker: Any, limit: int) -> None:
    """Runs worker(job) for every job with at most `limit` in progress, so prompts are rendered (and
    their images decoded) only shortly before they can be sent, not all up front."""
    import asyncio

    gate = asyncio.Semaphore(max(1, limit))

    async def one(job: Any) -> None:
        async with gate:
            await worker(*job) if isinstance(job, tuple) else await worker(job)

    await asyncio.gather(*(one(job) for job in jobs))


async def cached_call(spec: JudgeSpec, messages: list[dict[str, Any]], *, cache: ResponseCache, limits: Limits,
                      policy: RetryPolicy, rng: random.Random, key_parts: tuple[str, str] = ("", ""),
                      estimated_tokens: int = 0, extra_params: dict[str, Any] | None = None) -> CallResult:
    """key_parts (template hash, order or role) join the cache key; the api key never does."""
    params = {**spec.params, **(extra_params or {})}
    key = cache_key(spec.model, spec.api_base, params, messages, *key_parts)
    hit = cache.get(key)
    if hit is not None:
        return CallResult(hit["text"], None, "", hit.get("input_tokens", 0), hit.get("output_tokens", 0),
                          hit.get("cost_usd", 0.0), 0.0, 0, True)
    request = LLMRequest(spec.model, messages, params, spec.api_base, spec.api_key_env, spec.timeout_s)
    max_out = int(params.get("max_tokens") or 0)
    async with limits.semaphore:
        await limits.admit(estimated_tokens + max_out)
        outcome = await call_llm(request, policy, rng)
    result = CallResult(outcome.text, outcome.failure, outcome.detail, outcome.input_tokens, outcome.output_tokens,
                        outcome.cost_usd, outcome.latency_s, outcome.attempts, False)
    if outcome.failure is None:
        cache.put(key, spec.model, outcome.cache_payload())
    return result
