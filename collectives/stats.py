"""Summaries of repeated measurements (pure): `summarize` (median and spread) and `tails`
(the percentiles a loss costs, each stated only where the sample can bear it).

Both read a quantile the same way, by linear interpolation between order statistics
(`quantile`: rank (n - 1) q, as statistics.quantiles(method="inclusive") and numpy's
default do), so a point's p50 is its median and its p90 the p90 of its summary.

What a sample of n can state (`needed`): the q-quantile only when n (1 - q) >= 1, i.e. when
the sample is expected to hold at least one value at or beyond it. Below that the sample
most likely holds none (from 20 samples none lies beyond the true p99.9 98 % of the time:
0.999^20), so whatever it gave would be its largest value, a lower bound on the tail and
not the tail. So p50 needs 2 samples, p90 10, p99 100, p99.9 1000: the common practice of
latency reporting (Aeron's and HdrHistogram's users report p99.9 from thousands of
samples). At exactly that count the percentile lies between the two largest samples; it
is then a minimum, not a precise estimate: more samples tighten it."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["TAIL_LEVELS", "level_name", "needed", "quantile", "summarize", "tails"]

# the percentiles a point's tail is told by (issue 51: what one loss costs)
TAIL_LEVELS = (0.5, 0.9, 0.99, 0.999)


def quantile(xs: Sequence[float], q: float) -> float:
    """The q-quantile of the sorted, non-empty `xs`, interpolated between the order
    statistics around rank (n - 1) q."""
    n = len(xs)
    k = (n - 1) * q
    lo, hi = int(k), min(int(k) + 1, n - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """Median and spread of a sample; the testbed reports medians, never means alone."""
    xs = sorted(samples)
    if not xs:
        raise ValueError("no samples")
    return {"n": len(xs), "median": quantile(xs, 0.5), "min": xs[0], "max": xs[-1],
            "p10": quantile(xs, 0.1), "p90": quantile(xs, 0.9), "mean": statistics.fmean(xs)}


def level_name(q: float) -> str:
    """"p50", "p99", "p99.9" for 0.5, 0.99, 0.999."""
    return f"p{round(q * 100, 6):g}"


def needed(q: float) -> int:
    """The fewest samples that state the q-quantile: the least n with n (1 - q) >= 1
    (exact: 0.999 is 999/1000, not the float just below it)."""
    if not 0.0 < q < 1.0:
        raise ValueError(f"a quantile is between 0 and 1, not {q!r}")
    return math.ceil(1 / (1 - Fraction(str(q))))


def tails(samples: Sequence[float], levels: Sequence[float] = TAIL_LEVELS
          ) -> dict[str, Any]:
    """The percentiles `levels` of a sample, each its value where the sample states it and
    None where it does not, with `needs` naming the samples each unstated one needs:
    {"n": 20, "p50": .., "p90": .., "p99": None, "p99.9": None,
     "needs": {"p99": 100, "p99.9": 1000}}."""
    xs = sorted(samples)
    if not xs:
        raise ValueError("no samples")
    out: dict[str, Any] = {"n": len(xs)}
    needs: dict[str, int] = {}
    for q in levels:
        name, least = level_name(q), needed(q)
        out[name] = quantile(xs, q) if len(xs) >= least else None
        if len(xs) < least:
            needs[name] = least
    out["needs"] = needs
    return out
