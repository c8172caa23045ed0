"""Deep checks that loading skips for speed: every screenshot fully decoded as an image."""

from __future__ import annotations

from judgebench.data.errors import RowError
from judgebench.records import Battle, ScreenshotError


def deep_check(battle: Battle, index: int) -> list[RowError]:
    problems: list[RowError] = []
    for letter, side in zip("AB", battle.sides, strict=True):
        for rnd in side.rounds:
            if rnd.screenshot is None:
                continue
            try:
                img = rnd.screenshot.image()
                if img.width == 0 or img.height == 0:
                    raise ScreenshotError("screenshot has no pixels")
            except ScreenshotError as exc:
                problems.append(RowError(index, battle.id, f"side {letter} round {rnd.number}: {exc}"))
    return problems
