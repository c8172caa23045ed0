"""One cached, rate-limited, retried LLM call: the unit judging and the arena steps are built from."""

from __future__ import annotations

import random
from typing import Any

from judgebench.judges.spec import JudgeSpec
from judgebench.runner.cache import ResponseCache, cache_key
from judgebench.runner.limits import Limits
from judgebench.runner.llm_call import LLMOutcome, LLMRequest, RetryPolicy, call_llm


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
                      estimated_tokens: int = 0, extra_params: dict[str, Any] | None = None,
                      call_only_params: dict[str, Any] | None = None) -> LLMOutcome:
    """Cache lookup, then limits, then the call; successful answers are cached.

    key_parts (template hash, order or role) and extra_params join the cache key; call_only_params
    (per-call prices) are sent but never change the key; the api key never enters it.
    """
    params = {**spec.params, **(extra_params or {})}
    key = cache_key(spec.model, spec.api_base, params, messages, *key_parts)
    hit = cache.get(key)
    if hit is not None:
        return LLMOutcome(text=hit["text"], input_tokens=hit.get("input_tokens", 0),
                          output_tokens=hit.get("output_tokens", 0), cost_usd=hit.get("cost_usd", 0.0), cached=True)
    request = LLMRequest(spec.model, messages, {**params, **(call_only_params or {})}, spec.api_base,
                         spec.api_key_env, spec.timeout_s)
    reserved = estimated_tokens + int(params.get("max_tokens") or 0)
    async with limits.semaphore:
        await limits.admit(reserved)
        outcome = await call_llm(request, policy, rng)
    if limits.tokens is not None and outcome.input_tokens:  # the estimate was a reservation: settle it
        limits.tokens.refund(reserved - outcome.input_tokens - outcome.output_tokens)
    if outcome.failure is None:
        cache.put(key, spec.model, outcome.cache_payload())
    return outcome
