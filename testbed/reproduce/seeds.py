"""Judging a computed figure over random seeds (pure claims): a model run once per seed gives
one value per seed, and the verdict rests on the median over the seeds with its
distribution-free interval (the order statistics x_(j) and x_(n+1-j) of n values cover the
median with probability 1 - 2 P(Binomial(n, 1/2) < j), whatever the distribution): with
6 to 8 seeds that is their minimum and maximum, at 96.9 % or more."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from .verdict import LEVEL, Judged, Part, against

MIN_SEEDS = 6
"""The fewest seeds whose minimum and maximum cover the median at LEVEL (96.9 %)."""


def coverage(n: int, j: int) -> float:
    """The probability that [x_(j), x_(n+1-j)] of n values covers their median."""
    return 1 - 2 * sum(math.comb(n, i) for i in range(j)) / 2 ** n


def median_interval(values: Sequence[float], level: float = LEVEL) -> tuple[float, float]:
    """The narrowest order-statistic interval [x_(j), x_(n+1-j)] covering the median with
    probability at least `level`; ValueError when there are too few values for that."""
    xs = sorted(values)
    n = len(xs)
    if n == 0 or coverage(n, 1) < level:
        raise ValueError(f"{n} values cannot give a {level:.0%} interval of the median "
                         f"(at least {MIN_SEEDS} are needed)")
    j = 1
    while j + 1 <= (n + 1) // 2 and coverage(n, j + 1) >= level:
        j += 1
    return xs[j - 1], xs[n - j]


def judge_seeds(what: str, values: Sequence[float], lo: float | None = None,
                hi: float | None = None, fmt: str = ".3f") -> Judged:
    """`values` (one per seed) judged against [lo, hi] by the interval of their median."""
    interval = median_interval(values)
    part = Part(what, lambda _m: statistics.median(values), lo, hi, fmt)
    return Judged(part, statistics.median(values), interval, against(interval, lo, hi))
