"""Playing many deals for a simulation: spread over processes, and the 95% interval of a mean.

Shared by ``sasaki simulate`` for both games (cli/simulate.py, cli/simulate_sasku.py) and
the bot benchmarks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pool
from typing import TypeVar

__all__ = ["Interval", "over_deals"]

R = TypeVar("R")


def over_deals(play_one: Callable[[int], R], deals: int, jobs: int = 1) -> list[R]:
    """``play_one(deal)`` for every deal number, in order, in ``jobs`` processes
    (``play_one`` must pickle: a module-level function or a partial of one)."""
    if jobs <= 1 or deals <= 1:
        return [play_one(deal) for deal in range(deals)]
    with Pool(min(jobs, deals)) as pool:
        return pool.map(play_one, range(deals), chunksize=max(1, min(16, deals // (4 * jobs))))


@dataclass(frozen=True)
class Interval:
    """A mean with a normal 95% confidence interval, from per-deal values."""

    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, values: list[float]) -> Interval:
        n = len(values)
        mean = sum(values) / n if n else 0.0
        if n < 2:
            return cls(mean, -math.inf, math.inf, n)
        variance = sum((v - mean) ** 2 for v in values) / (n - 1)
        half = 1.96 * math.sqrt(variance / n)
        return cls(mean, mean - half, mean + half, n)

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.mean:+.3f} [{self.low:+.3f}, {self.high:+.3f}]"
