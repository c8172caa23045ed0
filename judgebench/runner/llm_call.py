"""One LLM request through litellm, with the retry policy a paid API deserves.

Retried: 429 (honouring Retry-After), 5xx, timeouts, dropped connections and garbled bodies, with
exponential backoff and jitter. Not retried: context overflow and content refusals (recorded as
such), other 4xx (recorded as api_error). Authentication and unknown-model errors stop the whole
run: every further call would fail the same way and some providers bill for them.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

from judgebench.records import FailureKind


class FatalJudgeError(Exception):
    """A failure that no other item can escape (bad key, unknown model): the run stops."""


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 6
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0
    max_retry_after_s: float = 300.0

    def backoff(self, attempt: int, rng: random.Random) -> float:
        """Exponential with 'equal jitter': between half and all of base * 2^attempt, capped."""
        ceiling = min(self.max_delay_s, self.base_delay_s * (2 ** (attempt - 1)))
        return ceiling * (0.5 + 0.5 * rng.random())


@dataclass(frozen=True)
class LLMRequest:
    model: str
    messages: list[dict[str, Any]]
    params: dict[str, Any] = field(default_factory=dict)
    api_base: str | None = None
    api_key_env: str | None = None
    timeout_s: float = 120.0


@dataclass
class LLMOutcome:
    text: str | None = None
    failure: FailureKind | None = None
    detail: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    latency_s: float = 0.0
    attempts: int = 0
    finish_reason: str = ""
    retry_waits: list[float] = field(default_factory=list)
    cached: bool = False  # answered from the response cache: no call, no cost

    def to_dict(self) -> dict[str, Any]:
        """The record fields arena steps store beside their own."""
        return {"text": self.text, "failure": self.failure.value if self.failure else None, "detail": self.detail,
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens, "cost_usd": self.cost_usd,
                "latency_s": round(self.latency_s, 3), "attempts": self.attempts, "cached": self.cached}

    def cache_payload(self) -> dict[str, Any]:
        return {"text": self.text, "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost_usd": self.cost_usd, "finish_reason": self.finish_reason}


def _retry_after(exc: BaseException) -> float | None:
    headers: Any = None
    response = getattr(exc, "response", None)
    if response is not None:
        headers = getattr(response, "headers", None)
    headers = headers or getattr(exc, "litellm_response_headers", None) or {}
    try:
        value = headers.get("retry-after") or headers.get("Retry-After")
    except AttributeError:
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        from email.utils import parsedate_to_datetime

        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def _short(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text.replace("\n", " ")[:500]


def classify(exc: BaseException) -> str:
    """-> 'retry', 'overflow', 'refused', 'fatal' or 'fail'."""
    import litellm

    if isinstance(exc, litellm.ContextWindowExceededError):
        return "overflow"
    if isinstance(exc, litellm.ContentPolicyViolationError):
        return "refused"
    if isinstance(exc, litellm.AuthenticationError | litellm.PermissionDeniedError | litellm.NotFoundError):
        return "fatal"
    if isinstance(exc, litellm.RateLimitError | litellm.Timeout | litellm.APIConnectionError
                  | litellm.InternalServerError | litellm.ServiceUnavailableError):
        return "retry"
    if isinstance(exc, litellm.BadRequestError | litellm.UnprocessableEntityError):
        text = str(exc).lower()
        if "context length" in text or "context window" in text or "maximum context" in text:
            return "overflow"
        return "fail"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and 400 <= status < 500 and status not in (408, 409, 429):
        return "fail"
    # litellm.APIError without a 4xx status, JSON decode errors from garbled bodies, asyncio timeouts.
    return "retry"


def _usage(response: Any) -> tuple[int, int]:
    usage = getattr(response, "usage", None)
    if usage is None:
        return 0, 0
    return int(getattr(usage, "prompt_tokens", 0) or 0), int(getattr(usage, "completion_tokens", 0) or 0)


def _cost(response: Any) -> float:
    """litellm has already priced the response while logging it; pricing it again costs ~2 ms of CPU."""
    import litellm

    hidden = getattr(response, "_hidden_params", None) or {}
    if hidden.get("response_cost") is not None:
        return float(hidden["response_cost"])
    if hidden:  # litellm tried and found no price: the model is not in its map
        return 0.0
    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown model or price: cost is unknown, shown as 0 with the token counts
        return 0.0


async def call_llm(request: LLMRequest, policy: RetryPolicy, rng: random.Random) -> LLMOutcome:
    import litellm

    litellm.suppress_debug_info = True  # its "Provider List" banner on every error would bury our output
    if request.model.startswith("local/"):
        from judgebench.judges.local import ensure_registered

        ensure_registered()
    outcome = LLMOutcome()
    kwargs: dict[str, Any] = dict(request.params)
    if request.api_base:
        kwargs["api_base"] = request.api_base
    if request.api_key_env:
        key = os.environ.get(request.api_key_env)
        if key:
            kwargs["api_key"] = key
    started = time.monotonic()
    while True:
        outcome.attempts += 1
        try:
            response = await asyncio.wait_for(
                litellm.acompletion(model=request.model, messages=request.messages, timeout=request.timeout_s,
                                    max_retries=0, num_retries=0, **kwargs),
                timeout=request.timeout_s + 5)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # every provider error is classified below
            if isinstance(exc, KeyboardInterrupt | SystemExit):
                raise
            kind = "retry" if isinstance(exc, asyncio.TimeoutError) else classify(exc)
            if kind == "fatal":
                raise FatalJudgeError(_short(exc)) from None
            if kind == "retry" and outcome.attempts < policy.max_attempts:
                wait = _retry_after(exc)
                if wait is None:
                    wait = policy.backoff(outcome.attempts, rng)
                wait = min(wait, policy.max_retry_after_s)
                outcome.retry_waits.append(wait)
                await asyncio.sleep(wait)
                continue
            outcome.failure = {"overflow": FailureKind.CONTEXT_OVERFLOW,
                               "refused": FailureKind.REFUSED}.get(kind, FailureKind.API_ERROR)
            outcome.detail = _short(exc)
            outcome.latency_s = time.monotonic() - started
            return outcome
        break
    outcome.latency_s = time.monotonic() - started
    outcome.input_tokens, outcome.output_tokens = _usage(response)
    outcome.cost_usd = _cost(response)
    choice = response.choices[0] if getattr(response, "choices", None) else None
    message = getattr(choice, "message", None)
    outcome.finish_reason = str(getattr(choice, "finish_reason", "") or "")
    outcome.text = getattr(message, "content", None) or ""
    refusal = getattr(message, "refusal", None)
    if outcome.finish_reason == "content_filter" or (refusal and not outcome.text):
        outcome.failure = FailureKind.REFUSED
        outcome.detail = str(refusal or "content filter")
    return outcome
