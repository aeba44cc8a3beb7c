"""Partitioned against direct multi-node multicast on the emulated torus
(``mcastlab bench --suite multinode``).

Tseng2001 on this testbed: a 4x4 torus (the controller's shortest-way X-then-Y routing), 10
Mbit/s links, one rank per node. S sources (4 or 8) each multicast to 6 destinations drawn
with hot-spot factor p (25, 50, 80, 100 % of every set common), all at once; U-torus trees
used directly against Tseng2001's partition with dilation 2 (two DDNs, four 2x2 blocks),
the DDN of each source chosen at random or balanced. Median time from the first rank's start
to the last rank's end, and the contention-aware step model (`partitioning.step_model`) priced with
the startup and per-byte cost fitted to the measured point-to-point time on this torus.

Tseng2001's claims to check: partitioning gains more the larger the message, and balancing
the choice of DDN helps more with fewer sources. The same model is also evaluated (no
emulation) at Tseng2001's own scale: a 16x16 torus, 80 and 176 sources each multicasting to as
many destinations, dilation 2 and 4, T_s = 300 us, T_c = 1 us per flit, 32 and 1024 flits.
"""

from __future__ import annotations

from typing import Any

from collectives.partitioning import (
    HOT_SPOT_FACTORS,
    SCHEME_NAMES,
    SCHEMES,
    TSENG2001,
    Torus,
    hotspot_multicasts,
    plan_cost,
    plan_for,
    tseng2001_model,
)
from topologies import parse_spec

from ..emulation.environment import Capabilities
from ..emulation.network import Emulation, Progress
from ..errors import RunFailed
from ..experiments.multinode_run import BY_NAME, DESTS, DILATION, SEED, SHAPE, measured_rows
from ..measure.params import measure_params, point_to_point

TOPO = "torus:rows=4,cols=4,bw=10"
SOURCES = (4, 8)
SIZES = (4096, 65536)
NAMES = SCHEME_NAMES


def model_s(scheme: str, sources: int, p: float, size: int, t_s: float, t_c: float) -> float:
    torus = Torus(*SHAPE)
    plan = plan_for(scheme, torus, DILATION, hotspot_multicasts(torus, sources, DESTS, p, SEED),
                    SEED)
    return plan_cost(plan).latency(size, t_s, t_c)


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    sources = (4,) if quick else SOURCES
    factors = (0.25, 1.0) if quick else HOT_SPOT_FACTORS
    sizes = (65536,) if quick else SIZES
    out: dict[str, Any] = {"topology": TOPO, "dilation": DILATION, "dests": DESTS,
                           "seed": SEED, "rows": []}
    with Emulation(parse_spec(TOPO), caps=caps) as emu:
        progress(f"bench: point-to-point parameters on {TOPO}")
        params = measure_params(emu, list(SIZES), repetitions=3 if quick else 5)
        p2p = point_to_point(params)
        (s0, s1), (e0, e1) = SIZES, (p2p.t_end(SIZES[0]), p2p.t_end(SIZES[1]))
        t_c = (e1 - e0) / (s1 - s0)
        t_s = e0 - s0 * t_c
        out |= {"params": params, "t_startup_s": t_s, "t_byte_s": t_c}
        progress("bench: the step model at Tseng2001's scale (16x16 torus)")
        out["tseng2001_model"] = {**TSENG2001, "rows": tseng2001_model()}
        for n in sources:
            progress(f"bench: {n} sources x {DESTS} destinations, p = "
                     f"{', '.join(map(str, factors))}")
            rows, res = measured_rows(emu, sources=n, sizes=sizes, schemes=SCHEMES,
                                      factors=factors, reps=3 if quick else 8)
            if not rows:
                raise RunFailed(f"multinode_bench printed no row: {res.stderr[-400:]}")
            for row in rows:
                scheme = BY_NAME[row["scheme"]]
                row["model_s"] = model_s(scheme, n, row["factor"], row["size"], t_s, t_c)
                out["rows"].append(row)
    return out


def markdown(res: dict[str, Any]) -> list[str]:
    lines = ["", f"## {res['topology']}, dilation {res['dilation']}, {res['dests']} "
             f"destinations per source (seed {res['seed']})", "",
             f"Model: fitted startup {res['t_startup_s'] * 1e6:.0f} us, "
             f"{res['t_byte_s'] * 1e9:.0f} ns per byte.", "",
             "| sources | p | bytes | " + " | ".join(f"{NAMES[s]} ms" for s in SCHEMES)
             + " | direct / partitioned (best) | model | all correct | fidelity |",
             "|---" * (len(SCHEMES) + 7) + "|"]
    keys = sorted({(r["sources"], r["factor"], r["size"]) for r in res["rows"]})
    for n, p, size in keys:
        rows = {r["scheme"]: r for r in res["rows"]
                if (r["sources"], r["factor"], r["size"]) == (n, p, size)}
        t = {s: rows[NAMES[s]]["t_s"]["median"] for s in SCHEMES if NAMES[s] in rows}
        m = {s: rows[NAMES[s]]["model_s"] for s in SCHEMES if NAMES[s] in rows}
        best = min(t.get("random", float("inf")), t.get("balanced", float("inf")))
        mbest = min(m.get("random", float("inf")), m.get("balanced", float("inf")))
        lines.append(
            f"| {n} | {p:g} | {size} | "
            + " | ".join(f"{t[s] * 1e3:.1f}" if s in t else "-" for s in SCHEMES)
            + f" | {t['direct'] / best:.2f} | {m['direct'] / mbest:.2f} | "
            f"{'yes' if all(r['correct'] for r in rows.values()) else 'NO'} | "
            f"{_flags(rows.values())} |")
    return lines + (tseng2001_markdown(res["tseng2001_model"]) if "tseng2001_model" in res else [])


def _flags(rows: Any) -> str:
    """"kept up", or the flags of a row the emulator did not keep up with (not a result);
    rows of runs before the monitor judged them have no verdict."""
    flags = [f for r in rows for f in (r.get("fidelity") or {}).get("flags", [])]
    if not any("fidelity" in r for r in rows):
        return "not judged"
    return "; ".join(dict.fromkeys(flags)) or "kept up"


def tseng2001_markdown(model: dict[str, Any]) -> list[str]:
    schemes = [k for k in model["rows"][0]["latency_us"] if k != "u-torus"]
    lines = ["", f"## Model only, Tseng2001's scale: {model['side']}x{model['side']} torus, "
             f"T_s = {model['t_s_us']:g} us, T_c = {model['t_c_us']:g} us/flit", "",
             "U-torus latency and its ratio to each partitioned scheme (> 1: partitioning "
             "faster); 2R = dilation 2 with random DDN choice, 4B = dilation 4 balanced.", "",
             "| sources = destinations | p | flits | U-torus (ms) | "
             + " | ".join(schemes) + " |", "|---" * (len(schemes) + 4) + "|"]
    for r in model["rows"]:
        lat = r["latency_us"]
        lines.append(f"| {r['sources']} | {r['factor']:g} | {r['flits']} | "
                     f"{lat['u-torus'] / 1e3:.1f} | "
                     + " | ".join(f"{lat['u-torus'] / lat[k]:.2f}" for k in schemes) + " |")
    return lines
