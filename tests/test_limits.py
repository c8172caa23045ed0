"""Rate limits hold in every 60 s window. Checked on a virtual clock: exact, and no waiting."""

from __future__ import annotations

import asyncio
import bisect

from judgebench.runner.limits import SlidingWindowLimiter


class VirtualClock:
    """Drives asyncio.sleep through a fake clock so minutes of pacing take milliseconds."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


async def _admit_all(limiter: SlidingWindowLimiter, clock: VirtualClock, n: int, units: float = 1.0) -> list[float]:
    times: list[float] = []
    real_sleep = asyncio.sleep

    async def fake_sleep(seconds: float) -> None:
        clock.now += max(seconds, 0.0)
        await real_sleep(0)

    asyncio.sleep = fake_sleep  # type: ignore[assignment]
    try:
        async def one() -> None:
            await limiter.acquire(units)
            times.append(clock.now)

        await asyncio.gather(*(one() for _ in range(n)))
    finally:
        asyncio.sleep = real_sleep  # type: ignore[assignment]
    return sorted(times)


def max_in_any_window(times: list[float], window: float = 60.0) -> int:
    return max(bisect.bisect_left(times, t + window) - i for i, t in enumerate(times))


def test_600_rpm_never_exceeded_in_any_window_and_approached() -> None:
    clock = VirtualClock()
    limiter = SlidingWindowLimiter(600, clock=clock)
    times = asyncio.run(_admit_all(limiter, clock, 3000))
    assert max_in_any_window(times) <= 600
    rate_per_min = (len(times) - 1) / (times[-1] - times[0]) * 60
    assert rate_per_min >= 540  # within 10% of the limit


def test_unpaced_burst_still_respects_the_window() -> None:
    clock = VirtualClock()
    limiter = SlidingWindowLimiter(100, clock=clock, pace=False)
    times = asyncio.run(_admit_all(limiter, clock, 350))
    assert max_in_any_window(times) <= 100
    assert times[99] == 0.0 and times[100] >= 60.0  # a full window, then the next one


def test_tokens_per_minute_counts_units() -> None:
    clock = VirtualClock()
    limiter = SlidingWindowLimiter(10_000, clock=clock, pace=False)
    times = asyncio.run(_admit_all(limiter, clock, 30, units=1_000))
    assert max_in_any_window(times) <= 10  # 10 x 1,000 tokens per window
