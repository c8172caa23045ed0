"""Requests- and tokens-per-minute limits that hold in every 60 s window, not just on average.

A token bucket lets a full bucket burst and then refill, so a 600 rpm bucket can admit ~1,200
requests in a minute's window. Providers count windows, so we keep a log of what was admitted in
the last 60 s and pace admissions evenly (60/rpm apart) so the limit is approached smoothly.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable

WINDOW_S = 60.0


class SlidingWindowLimiter:
    """Admits units (requests or tokens) so that no 60 s window holds more than `per_minute`."""

    def __init__(self, per_minute: float, *, clock: Callable[[], float] = time.monotonic,
                 pace: bool = True) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self.per_minute = per_minute
        self._clock = clock
        self._pace_s = WINDOW_S / per_minute if pace else 0.0
        self._log: deque[tuple[float, float]] = deque()  # (admitted at, units)
        self._in_window = 0.0
        self._next_slot = 0.0
        self._lock = asyncio.Lock()

    def _expire(self, now: float) -> None:
        while self._log and self._log[0][0] <= now - WINDOW_S:
            _, units = self._log.popleft()
            self._in_window -= units

    async def acquire(self, units: float = 1.0) -> None:
        units = min(units, self.per_minute)  # one oversized request still goes through, alone
        async with self._lock:  # admissions happen one at a time, in arrival order
            while True:
                now = self._clock()
                self._expire(now)
                wait = 0.0
                if self._in_window + units > self.per_minute and self._log:
                    wait = self._log[0][0] + WINDOW_S - now
                wait = max(wait, self._next_slot - now)
                if wait <= 0:
                    break
                await asyncio.sleep(wait)
            self._log.append((now, units))
            self._in_window += units
            self._next_slot = now + self._pace_s * units

    def refund(self, units: float) -> None:
        """Gives back over-reserved tokens (estimate minus actual) to the newest admission."""
        if units <= 0 or not self._log:
            return
        at, reserved = self._log[-1]
        give = min(units, reserved)
        self._log[-1] = (at, reserved - give)
        self._in_window -= give


class Limits:
    """Per-judge limits: concurrency, requests per minute, tokens per minute (0 = unlimited)."""

    def __init__(self, concurrency: int, rpm: float = 0, tpm: float = 0) -> None:
        self.concurrency = max(1, concurrency)
        self.semaphore = asyncio.Semaphore(self.concurrency)
        self.requests = SlidingWindowLimiter(rpm) if rpm else None
        self.tokens = SlidingWindowLimiter(tpm, pace=False) if tpm else None

    async def admit(self, estimated_tokens: int) -> None:
        if self.requests is not None:
            await self.requests.acquire(1)
        if self.tokens is not None:
            await self.tokens.acquire(estimated_tokens)
