"""The step model (partitioning.step_model) at Tseng2001's own scale: a 16x16 torus, 80 and 176
sources with as many destinations each, hot-spot factors p, dilations 2 and 4, T_s = 300 us,
T_c = 1 us per flit, messages of 32 and 1024 flits (section 4 of the report). Pure: the
benchmarks and `mcastlab reproduce` read Tseng's qualitative figures off it."""

from __future__ import annotations

import functools
from typing import Any, TypedDict

from .grid import Partition, Torus
from .hotspot_sets import HOT_SPOT_FACTORS, hotspot_multicasts
from .plans import direct_plan, partitioned_plan
from .step_model import plan_cost


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


@functools.cache
def _rows() -> tuple[dict[str, Any], ...]:
    m = TSENG2001
    torus = Torus(m["side"], m["side"])
    rows = []
    for n in m["sources"]:
        for p in HOT_SPOT_FACTORS:
            pairs = hotspot_multicasts(torus, n, n, p, seed=m["seed"])
            costs = {"u-torus": plan_cost(direct_plan(torus, pairs))}
            for h in m["dilations"]:
                for choice in ("random", "balanced"):
                    costs[f"{h}{choice[0].upper()}"] = plan_cost(partitioned_plan(
                        Partition(torus, h), pairs, choice, seed=m["seed"]))
            for flits in m["flits"]:
                rows.append({"sources": n, "factor": p, "flits": flits, "latency_us": {
                    k: c.latency(flits, m["t_s_us"], m["t_c_us"]) for k, c in costs.items()}})
    return tuple(rows)


def tseng2001_model() -> list[dict[str, Any]]:
    """Latency (us) of U-torus and every partitioned scheme ("2R" = dilation 2, random DDN;
    "4B" = dilation 4, balanced), per sources, p and size (about 10 s, once a process)."""
    return [dict(r) for r in _rows()]
