"""Summaries of repeated measurements (pure)."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def summarize(samples: Sequence[float]) -> dict[str, float]:
    """Median and spread of a sample; the testbed reports medians, never means alone."""
    xs = sorted(samples)
    if not xs:
        raise ValueError("no samples")
    n = len(xs)

    def q(p: float) -> float:
        k = (n - 1) * p
        lo, hi = int(k), min(int(k) + 1, n - 1)
        return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

    return {"n": n, "median": q(0.5), "min": xs[0], "max": xs[-1], "p10": q(0.1),
            "p90": q(0.9), "mean": statistics.fmean(xs)}
