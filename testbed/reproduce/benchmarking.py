"""Nupairoj1998's chapter 3 as a claim the testbed measures: the ping-based benchmark
(Algorithm 3.3.1: the root times broadcasts called back to back) ranks the trees wrongly,
because a root returns once its own sends are handed over and the broadcasts overlap down
the tree; t_mcast (the root enters last, the last rank's return counts: Algorithm 3.3.2's
quantity, read off the shared clock) ranks them rightly. Figure 3.4 shows it on the IBM SP
for the chain against the binomial tree."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping
from typing import Any

from .claims import Claim, Context, PaperFigure
from .jobs import QUICK_TAKES, TAKES, takes
from .networks import Ask
from .verdict import (
    NO_RESULT,
    TRANSFER,
    Outcome,
    Part,
    judged_outcome,
    no_result,
)

PITFALL_SIZE = 16384  # well past HTB's burst; 16 hosts of chain stay under a second
PITFALL_LOOP = 50  # broadcasts per back-to-back loop: the chain's pipeline fill is 15 of them
PITFALL_TREES = ("chain", "binomial")
Key = tuple[str, str, int]  # (metric, tree, hosts)


def _hosts(quick: bool) -> tuple[int, ...]:
    return (16,) if quick else (8, 16)


def _ratio(metric: str, h: int) -> Callable[[Mapping[Key, float]], float]:
    return lambda m: m[(metric, "chain", h)] / m[(metric, "binomial", h)]


def benchmark_pitfall(ctx: Context) -> Outcome:
    """Chain and binomial at PITFALL_SIZE on 16 hosts (and 8 in the full run), takes() jobs
    each, every job timing both benchmarks: chain over binomial by the root's
    back-to-back time (t_root) must lie below 1 and by t_mcast above 1, each judged by its
    bootstrap interval over the jobs. A chain's root sends one message a broadcast and
    returns once it is in the socket (its fifo wait is between its own sends), so with 50
    of them buffered on the way its t_root can be near 0 (16 hosts, 2026-11-26: 0.01-2.4
    ms a job): the pitfall at its plainest, not a fault of the measurement."""
    net, hosts = ctx.network, _hosts(ctx.quick)
    net.batch([Ask(a, PITFALL_SIZE, h, kwargs={"naive": PITFALL_LOOP}) for h in hosts
               for a in PITFALL_TREES], takes(ctx.quick))
    by = {(a, h, t): net.point(a, PITFALL_SIZE, h, take=t, naive=PITFALL_LOOP)
          for h in hosts for a in PITFALL_TREES for t in range(takes(ctx.quick))}
    points = list(by.values())
    jobs: dict[Key, list[float]] = {}
    for (a, h, _t), p in by.items():
        jobs.setdefault(("root", a, h), []).append(p["naive_ms"])
        jobs.setdefault(("mcast", a, h), []).append(p["ms"])
    med = {k: statistics.median(v) for k, v in jobs.items() if None not in v}
    text = "; ".join(f"{h} hosts: t_root chain {med[('root', 'chain', h)]:.1f} ms, binomial "
                     f"{med[('root', 'binomial', h)]:.1f}; t_mcast chain "
                     f"{med[('mcast', 'chain', h)]:.1f}, binomial "
                     f"{med[('mcast', 'binomial', h)]:.1f}" for h in hosts
                     if all(k in med for k in _keys(h)))
    values: dict[str, Any] = {"median_ms": {"/".join(map(str, k)): v for k, v in med.items()},
                              "plot": _plot(med, hosts)}
    bad = no_result(points, text or "-", values)
    if bad is None and len(med) < len(jobs):
        bad = Outcome(NO_RESULT, text or "-", "the back-to-back loop gave no time",
                      values=values, points=points)
    if bad is not None:
        return bad
    # paired: a take's chain and binomial on h hosts run in one job (the batch above)
    parts = [p for h in hosts for p in (
        Part(f"t_root chain/binomial, {h} hosts", _ratio("root", h), hi=1.0,
             keys=(("root", "chain", h), ("root", "binomial", h)), paired=True),
        Part(f"t_mcast chain/binomial, {h} hosts", _ratio("mcast", h), lo=1.0,
             keys=(("mcast", "chain", h), ("mcast", "binomial", h)), paired=True))]
    return judged_outcome(jobs, parts, text, values=values, points=points, kind=TRANSFER,
                          differs=": the ranking the two benchmarks give does not part here "
                          "(a root that sends one message after the other waits for each "
                          "to leave its host, so its back-to-back rate is its own sends' "
                          "time)")


def _keys(h: int) -> list[Key]:
    return [(m, a, h) for m in ("root", "mcast") for a in PITFALL_TREES]


def _plot(med: Mapping[Key, float], hosts: tuple[int, ...]) -> dict[str, Any]:
    names = {"root": "t_root (Alg. 3.3.1)", "mcast": "t_mcast"}
    return {"xlabel": "hosts", "ylabel": f"broadcast of {PITFALL_SIZE // 1024} KiB, ms",
            "series": {f"{a}, {names[m]}": [(h, med[(m, a, h)]) for h in hosts
                                             if (m, a, h) in med]
                       for m in names for a in PITFALL_TREES}}


CLAIMS: tuple[Claim, ...] = (
    Claim("nupairoj.benchmark-pitfall", "Nupairoj1998", "Timing broadcasts called back to "
          "back at the root (Algorithm 3.3.1) ranks the chain ahead of the binomial tree; "
          "t_mcast ranks them the other way",
          PaperFigure("section 3.3, figure 3.4", "on the IBM SP, t_root made the chain tree "
                      "look better than the binomial tree in latency and scalability, "
                      "\"which is obviously wrong\"", {}),
          f"chain over binomial at {PITFALL_SIZE // 1024} KiB on 16 hosts (8 too in the full "
          f"run), {TAKES} jobs each ({QUICK_TAKES} with --quick): the interval over the jobs "
          f"of the t_root ratio ({PITFALL_LOOP} broadcasts back to back) below 1, of the t_mcast "
          "ratio above 1",
          benchmark_pitfall, network="star16"),
)
