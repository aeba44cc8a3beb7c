"""The step model (partitioning.step_model) at Tseng2001's own scale: a 16x16 torus, hot-spot
workloads of m sources with k destinations each, hot-spot factors p, dilations 2 and 4,
T_s = 300 us, T_c = 1 us per flit, messages of 32 and 1024 flits (section 4 of the report).
Pure: `mcastlab reproduce` and the benchmarks read Tseng's qualitative figures off it.

A `Workload` (m, k, p, seed) seeds both the hot-spot sets and the random DDN choice. Its
plans' costs do not depend on the message size (PlanCost.latency prices any size), so each
is computed once a process (`costs`, on several cores when asked) and every claim of a run
reads the same ones.
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any, TypedDict

from .grid import Partition, Torus
from .hotspot_sets import HOT_SPOT_FACTORS, hotspot_multicasts
from .plans import Choice, direct_plan, partitioned_plan
from .step_model import PlanCost, plan_cost

SCHEMES = ("u-torus", "2R", "2B", "4R", "4B")
"""U-torus and every partitioned scheme: "2R" = dilation 2, random DDN; "4B" = dilation 4,
balanced (the report's "HT[B]" without its subnetwork types T, which it never describes)."""


class Scale(TypedDict):
    """The report's scale: torus side, source counts, dilations, T_s and T_c (us), message
    lengths (flits) and the seed of the hot-spot sets."""

    side: int
    sources: tuple[int, ...]
    dilations: tuple[int, ...]
    t_s_us: float
    t_c_us: float
    flits: tuple[int, ...]
    seed: int


TSENG2001: Scale = {"side": 16, "sources": (80, 176), "dilations": (2, 4), "t_s_us": 300.0,
                    "t_c_us": 1.0, "flits": (32, 1024), "seed": 1}


@dataclass(frozen=True, order=True)
class Workload:
    """`sources` multicasts of `destinations` nodes each, hot-spot factor `factor`, drawn
    with `seed` (which also seeds the random DDN choice)."""

    sources: int
    destinations: int
    factor: float
    seed: int


def scheme_cost(w: Workload, scheme: str) -> PlanCost:
    """The cost of `scheme` (one of SCHEMES) on workload `w` on the 16x16 torus."""
    torus = Torus(TSENG2001["side"], TSENG2001["side"])
    pairs = hotspot_multicasts(torus, w.sources, w.destinations, w.factor, seed=w.seed)
    if scheme == "u-torus":
        return plan_cost(direct_plan(torus, pairs))
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; choose from {', '.join(SCHEMES)}")
    choice: Choice = "random" if scheme[1] == "R" else "balanced"
    return plan_cost(partitioned_plan(Partition(torus, int(scheme[0])), pairs, choice,
                                      seed=w.seed))


_COSTS: dict[tuple[Workload, str], PlanCost] = {}


def _cost_of(job: tuple[Workload, str]) -> PlanCost:
    return scheme_cost(*job)


def costs(jobs: Iterable[tuple[Workload, str]], workers: int = 1
          ) -> dict[tuple[Workload, str], PlanCost]:
    """The cost of every (workload, scheme), each computed once a process and kept; those
    not yet known in `workers` processes at once (the largest first)."""
    wanted = list(dict.fromkeys(jobs))
    todo = sorted((j for j in wanted if j not in _COSTS),
                  key=lambda j: -j[0].sources * j[0].destinations)
    if workers > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            _COSTS.update(zip(todo, pool.map(_cost_of, todo), strict=True))
    else:
        _COSTS.update((j, _cost_of(j)) for j in todo)
    return {j: _COSTS[j] for j in wanted}


def latency_us(cost: PlanCost, flits: int) -> float:
    """A plan's latency at the report's T_s and T_c for `flits` flits."""
    return cost.latency(flits, TSENG2001["t_s_us"], TSENG2001["t_c_us"])


def tseng2001_model(workers: int = 1, sources: Iterable[int] | None = None
                    ) -> list[dict[str, Any]]:
    """Latency (us) of U-torus and every partitioned scheme, per sources (as many
    destinations each; default the report's 80 and 176), p and size, at the report's seed
    (about 10 s on one core, once a process)."""
    m = TSENG2001
    loads = [Workload(n, n, p, m["seed"]) for n in (sources or m["sources"])
             for p in HOT_SPOT_FACTORS]
    got = costs(((w, s) for w in loads for s in SCHEMES), workers)
    return [{"sources": w.sources, "factor": w.factor, "flits": flits,
             "latency_us": {s: latency_us(got[(w, s)], flits) for s in SCHEMES}}
            for w in loads for flits in m["flits"]]
