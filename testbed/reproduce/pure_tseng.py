"""Tseng2001's claims in the step model at the report's scale (pure): a 16x16 torus, T_s 300 us,
T_c 1 us per flit, U-torus against the partitioned schemes with dilation 2 and 4, random or
balanced DDN choice (collectives.partitioning.report_scale). Each claim is shaped like its
figure (section 4): Fig. 2 latency against message size, Fig. 3 against the number of
sources at a fixed number of destinations, Fig. 4 against the hot-spot factor p. The report
prints no numbers, so every figure here is the model's; Fig. 4 is judged over SEEDS
random workloads by the distribution-free interval of the median (testbed.reproduce.seeds),
Fig. 3 by the bootstrap interval over the seeds of its two ends (FEW_SEEDS at the fewest
sources).
"""

from __future__ import annotations

import itertools
import math
import os
from statistics import median
from typing import Any

from collectives.partitioning import (
    HOT_SPOT_FACTORS,
    TSENG2001,
    TSENG2001_SCHEMES,
    Workload,
    costs,
    latency_us,
    tseng2001_model,
)

from .claims import Claim, Context, PaperFigure
from .seeds import judge_seeds
from .verdict import (
    DIFFERS,
    LEVEL,
    REPRODUCED,
    TRANSFER,
    UNDECIDED,
    Judged,
    Outcome,
    Part,
    combined,
    intervals,
    judge,
)

T = "Tseng2001"
SEEDS = tuple(range(6))  # 6 random workloads: their minimum and maximum cover the median at 96.9 %
# Fig. 3's fewest sources: as many workloads as the claim's time allows (0.3 s of CPU a seed
# for both panels, where one of 240 sources takes 5 s): with 6 the verdict followed the draw
FEW_SEEDS = tuple(range(96))
FLITS = 32  # |M_d| of Figs 3 and 4
# Fig. 3: (a) 80 and (b) 176 destinations; the sources vary over the study's 16-240 (section
# 4: "m = |D_i| = 16 to 240"); the figure gives no hot-spot factor: the study's lowest (I)
BALANCE_DESTS, QUICK_BALANCE_DESTS = (80, 176), (80,)
# the judged ends and 80 between (shown; 160 cost 20 s of CPU more than it showed)
BALANCE_SOURCES, QUICK_BALANCE_SOURCES = (16, 80, 240), (16, 240)
BALANCE_FACTOR = 0.25
# Fig. 4: (a) 80 and (b) 112 sources and destinations, p = 25, 50, 80, 100 %
HOT_SOURCES, QUICK_HOT_SOURCES = (80, 112), (80,)
# Fig. 2: (a) 80 and (b) 176 sources and destinations, 32 to 1024 flits
SIZE_SOURCES, QUICK_SIZE_SOURCES = (80, 176), (80,)
NAMES = {"u-torus": "U-torus", "2R": "2 random", "2B": "2 balanced", "4R": "4 random",
         "4B": "4 balanced"}
WHY_MODEL = (" in the step model (the report gives no numbers, and never describes its "
             "partition types, so its partitions may differ from these)")


def workers() -> int:
    """The model's processes: every core (the pure claims run before any network)."""
    return os.cpu_count() or 1


def _judged(parts: list[Judged], text: str, values: dict[str, Any], differs: str,
            listed: int = 4, undecided: str = "") -> Outcome:
    """The claim's verdict combined over its parts (testbed.reproduce.seeds); with more
    than `listed` parts the words count them and name those not reproduced (every interval
    is in values["intervals"]); `differs` or `undecided` appended to the reason."""
    values["intervals"] = intervals(parts)
    verdict = combined([j.verdict for j in parts])
    if len(parts) <= listed:
        text += "; " + ", ".join(j.text() for j in parts)
        why = "; ".join(j.why() for j in parts if j.why())
    else:
        count = {v: [j for j in parts if j.verdict == v] for v in (REPRODUCED, UNDECIDED,
                                                                   DIFFERS)}
        text += (f"; of {len(parts)} judged figures {len(count[REPRODUCED])} above the "
                 f"margin in every seed, {len(count[DIFFERS])} below it in every seed, "
                 f"{len(count[UNDECIDED])} mixed")
        why = "; ".join([j.why() for j in count[DIFFERS]]
                        + ([f"{len(count[UNDECIDED])} more straddle it ("
                            + ", ".join(j.text() for j in count[UNDECIDED]) + ")"]
                           if count[UNDECIDED] else []))
    if verdict == REPRODUCED:
        return Outcome(REPRODUCED, text, values=values)
    why += differs if verdict == DIFFERS else undecided if verdict == UNDECIDED else ""
    return Outcome(verdict, text, why, values=values, kind=TRANSFER if verdict == DIFFERS
                   else "")


# ---- Fig. 2: the gain over U-torus grows with message size --------------------------------
def size_gain(ctx: Context) -> Outcome:
    """U-torus over the best partitioned scheme at 32 and 1024 flits, per sources (Fig. 2's
    panels; (a) only with --quick) and hot-spot factor, at the report's seed."""
    sources = QUICK_SIZE_SOURCES if ctx.quick else SIZE_SOURCES
    ctx.progress(f"reproduce: Tseng2001's step model, {', '.join(map(str, sources))} sources")
    gains: dict[tuple[int, float], dict[int, float]] = {}
    for r in tseng2001_model(workers(), sources):
        lat = r["latency_us"]
        best = min(v for k, v in lat.items() if k != "u-torus")
        gains.setdefault((r["sources"], r["factor"]), {})[r["flits"]] = lat["u-torus"] / best
    small, large = TSENG2001["flits"]
    grows = {k: v[large] > v[small] for k, v in gains.items()}
    text = f"gain over U-torus, {small} -> {large} flits: " + "; ".join(
        f"{n} sources, p {p:g}: {v[small]:.2f} -> {v[large]:.2f}" for (n, p), v in gains.items())
    values = {"gain": [[n, p, v[small], v[large]] for (n, p), v in gains.items()],
              "plot": {"xlabel": "message size, flits", "ylabel": "U-torus / best partitioned",
                       "series": {f"{n} sources, p {p:g}": sorted(v.items())
                                  for (n, p), v in gains.items()}}}
    if all(grows.values()):
        return Outcome(REPRODUCED, text, values=values)
    return Outcome(DIFFERS, text, "the gain does not grow for " + ", ".join(
        f"{n} sources at p {p:g}" for (n, p), ok in grows.items() if not ok) + WHY_MODEL,
        values=values, kind=TRANSFER)


# ---- Fig. 3: balancing the DDN choice helps more with fewer sources --------------------------
def balance(ctx: Context) -> Outcome:
    """Per panel (destinations) and dilation h: the benefit of balancing, hR / hB at 32
    flits, against the number of sources; judged per panel by the median benefit with the
    fewest sources over that with the most (above 1: it helps more with fewer), its
    bootstrap interval over the seeds of each end, the benefit a seed the geometric mean of
    the two dilations' (the report states it of balancing, not of one dilation; alone,
    dilation 2's effect of a few percent straddled 1 on one set of seeds and not on
    another, 2026-12-06: shown per dilation). The fewest sources' workloads are drawn
    FEW_SEEDS times: 16 multicasts are cheap to price and one draw of them differs from
    another by more than the effect (per seed 0.93-1.35 around 1.07 at 80 destinations,
    dilation 2, 200 seeds, 2026-12-06); 240 multicasts average over themselves."""
    dests = QUICK_BALANCE_DESTS if ctx.quick else BALANCE_DESTS
    sources = QUICK_BALANCE_SOURCES if ctx.quick else BALANCE_SOURCES
    few, many = sources[0], sources[-1]

    def seeds(n: int) -> tuple[int, ...]:
        return FEW_SEEDS if n == few else SEEDS

    ctx.progress(f"reproduce: Tseng2001's Fig. 3 in the step model, {len(FEW_SEEDS)} seeds "
                 f"with {few} sources, {len(SEEDS)} with more")
    loads = {(d, n, s): Workload(n, d, BALANCE_FACTOR, s) for d in dests
             for n in sources for s in seeds(n)}
    schemes = [k for k in TSENG2001_SCHEMES if k != "u-torus"]
    got = costs(((w, k) for w in loads.values() for k in schemes), workers())

    def benefit(d: int, n: int, h: str) -> list[float]:
        return [latency_us(got[(loads[(d, n, s)], f"{h}R")], FLITS)
                / latency_us(got[(loads[(d, n, s)], f"{h}B")], FLITS) for s in seeds(n)]

    panels = [(d, h) for d in dests for h in "24"]
    ends = {(d, h): {"few": benefit(d, few, h), "many": benefit(d, many, h)}
            for d, h in panels}
    for d in dests:  # the panel's figure per seed: the geometric mean over the dilations
        ends[(d, "")] = {k: [math.sqrt(a * b) for a, b in zip(ends[(d, "2")][k],
                                                             ends[(d, "4")][k], strict=True)]
                         for k in ("few", "many")}

    def judged(d: int, h: str) -> Judged:
        what = (f"benefit with {few} over {many} sources, {d} destinations, "
                + (f"dilation {h}" if h else "dilations 2 and 4"))
        return judge(ends[(d, h)], [Part(what, lambda m: m["few"] / m["many"], lo=1.0,
                                         fmt=".3f")])[0]

    parts = [judged(d, "") for d in dests]
    shown = [judged(d, h) for d, h in panels]
    curves = {f"{d} destinations, dilation {h}": [(n, median(benefit(d, n, h)))
                                                  for n in sources] for d, h in panels}
    text = (f"random / balanced DDN choice, {FLITS} flits, p {BALANCE_FACTOR:g}, median of "
            f"{len(FEW_SEEDS)} seeds with {few} sources and {len(SEEDS)} with more, at "
            f"{', '.join(map(str, sources))} sources: "
            + "; ".join(f"{k} " + ", ".join(f"{v:.3f}" for _, v in c)
                        for k, c in curves.items())
            + f" (intervals: bootstrap over the seeds of each end, {LEVEL:.0%}); judged per "
            "panel on the geometric mean of the two dilations' benefits a seed; shown per "
            "dilation: " + ", ".join(j.text() for j in shown))
    values: dict[str, Any] = {"benefit": curves, "seeds": {str(few): len(FEW_SEEDS),
                                                           "others": len(SEEDS)},
                              "per_dilation": intervals(shown),
                              "plot": {"xlabel": "sources",
                                       "ylabel": "random / balanced latency (median of seeds)",
                                       "series": curves}}
    spread = [f"{d} destinations, dilation {h}: with {few} sources per seed "
              f"{min(e['few']):.2f}-{max(e['few']):.2f}, with {many} "
              f"{min(e['many']):.2f}-{max(e['many']):.2f}"
              for (d, h), e in ends.items() if h]
    return _judged(parts, text, values, ": balancing does not help more with fewer sources"
                   + WHY_MODEL, undecided=" (the benefit against one random workload's "
                   "difference from another's: " + "; ".join(spread) + ")")


# ---- Fig. 4: a larger hot-spot factor raises the latency -------------------------------------
def hot_spot(ctx: Context) -> Outcome:
    """Every scheme's latency at 32 flits against p, per panel (sources = destinations):
    judged per scheme and per step from one p to the next by the latency's rise per seed
    (above 1: monotone over every p)."""
    sources = QUICK_HOT_SOURCES if ctx.quick else HOT_SOURCES
    ctx.progress(f"reproduce: Tseng2001's Fig. 4 in the step model, {len(SEEDS)} seeds")
    ps = HOT_SPOT_FACTORS
    loads = {(n, p, s): Workload(n, n, p, s) for n in sources for p in ps for s in SEEDS}
    got = costs(((w, k) for w in loads.values() for k in TSENG2001_SCHEMES), workers())

    def lat(n: int, p: float, s: int, k: str) -> float:
        return latency_us(got[(loads[(n, p, s)], k)], FLITS)

    parts = [judge_seeds(f"{NAMES[k]}, {n} sources, p {a:g} -> {b:g}",
                         [lat(n, b, s, k) / lat(n, a, s, k) for s in SEEDS], lo=1.0)
             for n in sources for k in TSENG2001_SCHEMES for a, b in itertools.pairwise(ps)]
    curves = {f"{NAMES[k]}, {n} sources": [(p, median([lat(n, p, s, k) for s in SEEDS]) / 1e3)
                                          for p in ps] for n in sources for k in TSENG2001_SCHEMES}
    text = (f"latency (ms, median of {len(SEEDS)} seeds), {FLITS} flits, at p "
            + ", ".join(f"{p:g}" for p in ps) + ": "
            + "; ".join(f"{k} " + " -> ".join(f"{v:.1f}" for _, v in c)
                        for k, c in curves.items()))
    values: dict[str, Any] = {"latency_ms": curves, "seeds": list(SEEDS),
                              "plot": {"xlabel": "hot-spot factor p",
                                       "ylabel": f"latency, ms ({FLITS} flits, median of seeds)",
                                       "series": curves}}
    return _judged(parts, text, values, ": the latency does not rise with p"
                   + WHY_MODEL + "; in the one-port step model a hot destination "
                   "receives one message from each source whatever p: a larger p adds hot "
                   "destinations, not load on each")


SCALE = "16x16 torus, T_s 300 us, T_c 1 us per flit"
CLAIMS = (
    Claim("tseng.size-gain", T, "Partitioned multi-node multicast gains more over U-torus "
          "as messages grow", PaperFigure(
              "section 4, figure 2", f"the gain over U-torus grows with message size ({SCALE}, "
              "(a) 80 and (b) 176 sources and destinations)", {}),
          "U-torus over the best partitioned scheme larger at 1024 flits than at 32, for "
          "every number of sources and hot-spot factor (the step model at the report's "
          "scale and seed; panel (a) only with --quick)", size_gain),
    Claim("tseng.balance", T, "Balancing the DDN choice helps more when there are fewer "
          "sources", PaperFigure("section 4, figure 3", "balancing helps more with fewer "
                                 f"sources ({SCALE}, |M_d| 32; (a) 80 and (b) 176 "
                                 "destinations)", {}),
          f"per panel, the median over the seeds of random / balanced latency (a seed's the "
          f"geometric mean over dilations 2 and 4; each dilation shown) "
          f"with {BALANCE_SOURCES[0]} sources ({len(FEW_SEEDS)} seeds) over that with "
          f"{BALANCE_SOURCES[-1]} ({len(SEEDS)} seeds; {BALANCE_SOURCES[1]} shown), p "
          f"{BALANCE_FACTOR:g} (the figure gives none): its bootstrap interval over the seeds "
          f"of each end ({LEVEL:.0%}) above 1 (the step model; with --quick panel (a) only)",
          balance),
    Claim("tseng.hot-spot", T, "A larger hot-spot factor raises every scheme's latency",
          PaperFigure("section 4, figure 4", "latency rises with the hot-spot factor p = 25, "
                      f"50, 80, 100 % ({SCALE}, |M_d| 32; (a) 80 and (b) 112 sources and "
                      "destinations)", {"p": list(HOT_SPOT_FACTORS)}),
          f"every scheme's latency rising from each p to the next: per step the latency "
          f"ratio over {len(SEEDS)} seeds, the 96.9 % interval of its median above 1 (the "
          "step model; panel (a) only with --quick)", hot_spot),
)
