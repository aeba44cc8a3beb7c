"""Several jobs of one measured broadcast, as the claims judged with intervals take them
(testbed.reproduce.verdict.judge): each job is a separate MPI run of the same point
(Network.point's `take`), the first one shared with every claim that asks for the point
once. One job's broadcasts lie within a few percent of each other, jobs differ by up to a
quarter (nupairoj.mesh-contention, 2026-11-25): the spread a verdict must survive is the
jobs'."""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

from .verdict import Part, is_result, read

TAKES, QUICK_TAKES = 5, 3  # verdict.coverage: the range of 5 jobs holds a median 94 %, of 3 75 %
NEVER = float("inf")  # a crossover figure (from which size, from how many hosts) not reached
K = TypeVar("K", bound=Hashable)


def takes(quick: bool) -> int:
    return QUICK_TAKES if quick else TAKES


def taken(net: Any, algorithm: str, size: int, hosts: int | list[str], n: int,
          **kwargs: Any) -> list[dict[str, Any]]:
    """`n` jobs of one point (Network.point with take 0..n-1)."""
    return [net.point(algorithm, size, hosts, take=t, **kwargs) for t in range(n)]


def job_ms(by: Mapping[K, Sequence[dict[str, Any]]]) -> dict[K, list[float]]:
    """Every point's jobs' medians (ms), for judge(); only for points all of whose jobs
    are results (no_result first)."""
    return {k: [p["ms"] for p in ps] for k, ps in by.items()}


def medians(by: Mapping[K, Sequence[dict[str, Any]]]) -> dict[K, float]:
    """The median over each point's jobs, for the points all of whose jobs are results."""
    return {k: statistics.median(p["ms"] for p in ps) for k, ps in by.items()
            if ps and all(is_result(p) for p in ps)}


def per_take(by: Mapping[Any, Sequence[dict[str, Any]]], parts: Sequence[Part]
             ) -> tuple[dict[str, list[float]], list[Part]]:
    """Each part's figure computed within each take (the points' take-t jobs: one MPI job,
    or jobs run back to back), and parts that read it: judge() then resamples the takes'
    figures, not each point's jobs apart, which would pair one take's slow job with
    another's fast one (OPT-Min / OPT-Tree at 4 KiB: 0.82-0.89 in each take, [0.74, 1.01]
    from the points' jobs apart, 2026-12-06)."""
    n = min(len(ps) for ps in by.values())
    figures = {p.what: [p.figure({k: ps[t]["ms"] for k, ps in by.items()}) for t in range(n)]
               for p in parts}
    return figures, [Part(p.what, read(p.what), p.lo, p.hi, p.fmt, (p.what,)) for p in parts]
