"""The papers' claims the testbed computes without a network: Nupairoj1998's tables and
examples (the t_hold/t_end model, OPT-Tree, OPT-Mesh) and Coll2003's Table 1 (the depth of
optimal range-multicast trees around faulty nodes). The papers' numbers are copied here
from the papers (marker R: read in the text; I: inferred from it)."""

from __future__ import annotations

import math
import os
from typing import Any

from collectives.contention.trees import opt_mesh, u_mesh
from collectives.partitioning.report_scale import tseng2001_model
from collectives.range_trees.sensitivity import fault_sensitivity
from collectives.range_trees.trials import hwtree_trials
from collectives.trees.hol import Channel, hol_latency, hol_times
from collectives.trees.latency_model import PointToPoint, predict
from collectives.trees.opttree import multiport_table, opt_table
from collectives.trees.schedules import build

from .claims import Claim, Context, PaperFigure
from .verdict import DIFFERS, REPRODUCED, TRANSFER, Outcome, wilson

T_HOLD, T_END = 20.0, 55.0  # Nupairoj1998's running example (us)


def _agree(matches: dict[str, bool], testbed: str, values: dict, what: str) -> Outcome:
    wrong = [k for k, ok in matches.items() if not ok]
    if not wrong:
        return Outcome(REPRODUCED, testbed, values=values)
    return Outcome(DIFFERS, testbed, f"{what} differ(s): {', '.join(wrong)} (computed from the "
                   "paper's own model, so the difference is in the paper's arithmetic or in "
                   "how its table is read)", values=values, kind=TRANSFER)


# ---- Nupairoj1998, Table 4.2: the basic trees' latencies --------------------------------
def table_4_2(ctx: Context) -> Outcome:
    """Every k from 2 to 32, in both regimes: the model's latency of each tree against the
    table's formula (binomial's for k not a power of two is not printed: derived, I, for
    MPICH's order, whose root sends first to node 2^floor(log2 k) and then to the 2^(lg-1)
    nodes that finish last, t_hold + lg t_end after the call)."""
    fast, slow = PointToPoint.constant(T_HOLD, T_END), PointToPoint.constant(80.0, 10.0)
    matches = {}
    for k in range(2, 33):
        lg = math.floor(math.log2(k))
        want = {"sequential": (k - 2) * T_HOLD + T_END, "chain": (k - 1) * T_END,
                "binomial": lg * T_END + (T_HOLD if k != 2 ** lg else 0.0)}
        for alg, w in want.items():
            matches[f"{alg} k={k}"] = math.isclose(predict(build(alg, k), fast), w)
        matches[f"binomial k={k}, t_hold > t_end"] = math.isclose(
            predict(build("binomial", k), slow), math.floor(math.log2(k - 1)) * 80.0 + 10.0)
    return _agree(matches, f"all {len(matches)} latencies (k = 2..32) follow the formulas",
                  {"checked": len(matches)}, "latencies")


# ---- Table 4.1: no fixed tree is best on every system -----------------------------------
# 8 nodes on two hypothetical systems, t_hold = a + b m and t_end = c + d m (us). The caption
# says a 1-Kbyte message, but every cell fits m = 102400 bytes exactly (I: at 1024 bytes S1
# would give 369.56 and 380.04); OPT-Tree's row is the model's (I: 16514 and 12408).
T41_SYSTEMS = {"S1": (20.0, 0.02, 55.0, 0.07), "S2": (25.0, 0.03, 40.0, 0.04)}
T41_BYTES = 102400
T41 = {("S1", "sequential"): 19631, ("S1", "binomial"): 21669,
       ("S2", "sequential"): 22718, ("S2", "binomial"): 12408}


def table_4_1(ctx: Context) -> Outcome:
    """Each cell from the model at 100 KB, and OPT-Tree (built from each system's t_hold and
    t_end at that size) at least as fast as both fixed trees on both systems."""
    got, opt = {}, {}
    for name, (a, b, c, d) in T41_SYSTEMS.items():
        p2p = PointToPoint(a, b, c, d)
        for alg in ("sequential", "binomial"):
            got[(name, alg)] = predict(build(alg, 8, 0, T41_BYTES), p2p)
        opt[name] = predict(build("opt-tree", 8, 0, T41_BYTES, t_hold=p2p.t_hold(T41_BYTES),
                                  t_end=p2p.t_end(T41_BYTES)), p2p)
    matches = {f"{s} {a}": math.isclose(v, T41[(s, a)], abs_tol=0.5) for (s, a), v in
               got.items()}
    matches |= {f"{s} OPT-Tree no slower": opt[s] <= min(got[(s, a)] for a in
                                                         ("sequential", "binomial")) + 0.5
                for s in T41_SYSTEMS}
    text = "; ".join(f"{s}: sequential {got[(s, 'sequential')]:.0f}, binomial "
                     f"{got[(s, 'binomial')]:.0f}, OPT-Tree {opt[s]:.0f}" for s in T41_SYSTEMS)
    return _agree(matches, text, {"us": {f"{s} {a}": v for (s, a), v in got.items()},
                                  "opt_tree_us": opt}, "cells")


# ---- Table 4.3: OPT-Tree's table, k = 9 ------------------------------------------------
T43 = {"t": (0, 55, 75, 95, 110, 115, 130, 130, 135), "j": (1, 2, 3, 3, 4, 5, 5, 6)}


def table_4_3(ctx: Context) -> Outcome:
    tab = opt_table(9, T_HOLD, T_END)
    t, j = tuple(tab.t[1:]), tuple(tab.j[2:])
    return _agree({"t[1..9]": t == T43["t"], "j_2..j_9": j == T43["j"]},
                  f"t = {', '.join(f'{x:g}' for x in t)}; j = {', '.join(map(str, j))}",
                  {"t": t, "j": j}, "columns")


# ---- Table 4.4: the 3-port OPT table, k = 12 -------------------------------------------
T44 = {"t": (0, 55, 65, 75, 77, 87, 97, 99, 109, 110, 119, 120),
       "j": (1, 1, 1, 2, 3, 4, 5, 6, 6, 7, 7)}


def table_4_4(ctx: Context) -> Outcome:
    tab = multiport_table(12, 22.0, T_END, 10.0, 3)
    t, j = tuple(tab.t[1:]), tuple(tab.j[2:])
    return _agree({"t[1..12]": t == T44["t"], "j_2..j_12": j == T44["j"]},
                  f"t = {', '.join(f'{x:g}' for x in t)}; j = {', '.join(map(str, j))}",
                  {"t": t, "j": j}, "columns")


# ---- chapter 3's example: 4 nodes, t_hold 2, t_end 5 ------------------------------------
CH3 = {"sequential": 9, "binomial": 10, "chain": 15}


def chapter_3(ctx: Context) -> Outcome:
    p = PointToPoint.constant(2.0, 5.0)
    got = {a: predict(build(a, 4), p) for a in CH3}
    return _agree({a: math.isclose(got[a], w) for a, w in CH3.items()},
                  ", ".join(f"{a} {got[a]:g}" for a in CH3), {"latency": got}, "latencies")


# ---- section 5.2: the 6x6 mesh example -------------------------------------------------
MESH_SOURCE, MESH_DESTS = (3, 2), ((1, 5), (2, 1), (3, 4), (4, 3), (4, 4), (5, 1), (5, 4))
MESH = {"opt-mesh": 130, "u-mesh": 165}


def mesh_6x6(ctx: Context) -> Outcome:
    """The thesis writes (x, y) and routes x first; the topologies' XY routing moves along
    the column first, so (x, y) is node y * 6 + x."""
    def node(p: tuple[int, int]) -> int:
        return p[1] * 6 + p[0]

    dests, src = [node(p) for p in MESH_DESTS], node(MESH_SOURCE)
    got = {"opt-mesh": opt_mesh(dests, src, 6, 6, T_HOLD, T_END).latency,
           "u-mesh": u_mesh(dests, src, 6, 6, T_HOLD, T_END).latency}
    return _agree({a: math.isclose(got[a], w) for a, w in MESH.items()},
                  f"OPT-Mesh {got['opt-mesh']:g}, U-Mesh {got['u-mesh']:g}",
                  {"latency": got}, "latencies")


# ---- section 6.2: head-of-line blocking at the sender (Figs 6.1 and 6.4) -----------------
# Fig. 6.1: one message, t_hold = t_send 20, t_out 15, t_net 20, t_recv 20, P0's channel
# taken until t = 50, t_cont 15; Fig. 6.4: the 4-node sequential tree without and with it
FIG_6_1 = {"t_sq": 30, "t_rq": 0, "t_cont": 15, "t_out": 30, "t_hol": 60, "t_send": 50,
           "t_net": 35, "t_recv": 20, "t_hold": 20, "t_end": 105}
FIG_6_4 = {"no contention": 100, "t_cont 15": 135}
HOL_QUIET, HOL_BUSY = Channel(20, 20, 15, 20, 20), Channel(20, 20, 15, 20, 20, 15)


def head_of_line(ctx: Context) -> Outcome:
    """Fig. 6.1's row and Fig. 6.4's two latencies in the chapter-6 model
    (collectives.trees.hol); beside them, shown: how much contention adds to sequential and
    binomial at 4 and 16 nodes (the thesis: high out-degree trees suffer most)."""
    _, (one,) = hol_times(build("sequential", 2), HOL_BUSY, busy_until={0: 50})
    row = {"t_sq": one.t_sq, "t_rq": 0.0, "t_cont": HOL_BUSY.t_cont, "t_out": one.t_out,
           "t_hol": one.t_hol, "t_send": one.t_send, "t_net": one.t_net,
           "t_recv": HOL_BUSY.t_recv, "t_hold": HOL_BUSY.t_hold, "t_end": one.t_end}
    seq = {"no contention": hol_latency(build("sequential", 4), HOL_QUIET),
           "t_cont 15": hol_latency(build("sequential", 4), HOL_BUSY)}
    added = {f"{a} {k}": hol_latency(build(a, k), HOL_BUSY) - hol_latency(build(a, k), HOL_QUIET)
             for k in (4, 16) for a in ("sequential", "binomial")}
    matches = {f"Fig. 6.1 {k}": math.isclose(row[k], w) for k, w in FIG_6_1.items()}
    matches |= {f"Fig. 6.4 {k}": math.isclose(seq[k], w) for k, w in FIG_6_4.items()}
    text = (f"Fig. 6.1: t_sq {row['t_sq']:g}, t_hol {row['t_hol']:g}, t_end {row['t_end']:g}; "
            f"Fig. 6.4: {seq['no contention']:g} and {seq['t_cont 15']:g}; contention adds "
            + ", ".join(f"{v:g} to {k} nodes" for k, v in added.items()))
    return _agree(matches, text, {"fig_6_1": row, "fig_6_4": seq, "added": added},
                  "timings")


# ---- Coll2003, Table 1: depth of the optimal tree around faulty nodes ------------------
FAULTY = (0.002, 0.004, 0.006, 0.008, 0.010)
SIZES = (1024, 2048, 4096)
# share of problems whose optimal tree takes 3 steps (the rest take 2), per (size, faulty)
TABLE_1 = {(n, f): 0.0 for n in SIZES for f in FAULTY} | {(4096, 0.008): 0.002,
                                                          (4096, 0.010): 0.418}
# why 4096 nodes at 1 % is out of reach (measured 2026-11-26 with scripts kept beside the
# issue's note: greedy's 3-step share at 4096 nodes, 300 problems, under every reading)
TABLE_1_WHY = (
    "The optimum is never deeper than the greedy tree, and greedy needs 3 steps in about 7-9 % "
    "of these problems. The rules are the strictest reading consistent with the paper's "
    "Figs 4-6; other readings of the source (first healthy node, no destination, sending "
    "only in step 1), of how faults are drawn (a binomial count) and of the split move "
    "4096 nodes at 1 % by at most 4 points. The paper's jump from 0.2 % to 41.8 % between "
    "33 and 41 faulty nodes would need each fault to cost about 14 sending nodes; in the "
    "model one costs about 4 (the model reaches 41.8 % only near 55 faults): an unstated "
    "detail of the paper's implementation, most likely")


def table_1(ctx: Context) -> Outcome:
    """Per cell, the share of 3-step optima lies between the decided 3-step trials and
    those plus the undecided ones (their optimum is unknown: search budget); a cell agrees
    when the paper's share falls in that range widened by its 95 % Wilson interval."""
    trials = 100 if ctx.quick else 1000
    cells: list[dict[str, Any]] = []
    wrong: list[str] = []
    for n in SIZES:
        for f in FAULTY:
            ctx.progress(f"reproduce: Table 1, {n} nodes, {f:.1%} faulty, {trials} trials")
            # the searches on every core: the pure claims run before any network
            s = hwtree_trials(n, f, trials, seed=0, workers=os.cpu_count() or 1)
            deep = sum(c for d, c in s.optimal.items() if d >= 3)
            lo, hi = wilson(deep, trials)[0], wilson(deep + s.undecided, trials)[1]
            paper = TABLE_1[(n, f)]
            ok = lo <= paper <= hi
            cells.append({"nodes": n, "faulty": f, "trials": trials, "three_steps": deep,
                          "undecided": s.undecided, "range": [lo, hi], "paper": paper,
                          "agrees": ok})
            if not ok:
                wrong.append(f"{n} nodes at {f:.1%} faulty: {paper:.1%} of 3-step optima in "
                             f"the paper, {deep / trials:.1%} here "
                             f"({s.undecided} undecided; 95 % range {lo:.1%}-{hi:.1%})")
    plot: dict[str, Any] = {"xlabel": "faulty nodes (%)",
                            "ylabel": "problems whose optimal tree takes 3 steps", "series": {}}
    for n in SIZES:
        row = [c for c in cells if c["nodes"] == n]
        plot["series"][f"{n} nodes, here"] = [(c["faulty"] * 100, c["three_steps"] / trials)
                                              for c in row]
        plot["series"][f"{n} nodes, paper"] = [(c["faulty"] * 100, c["paper"]) for c in row]
    agree = sum(c["agrees"] for c in cells)
    testbed = f"{agree} of {len(cells)} cells agree ({trials} random problems a cell, seed 0)"
    if not wrong:
        return Outcome(REPRODUCED, testbed, values={"cells": cells, "plot": plot})
    return Outcome(DIFFERS, testbed, "; ".join(wrong) + ". " + TABLE_1_WHY,
                   values={"cells": cells, "plot": plot}, kind=TRANSFER)


# ---- Coll2003, figure 7: depth against the share of faults -------------------------------
GREEDY_OPTIMAL = 0.99  # "greedy is optimal in 99 % of the cases"
MAX_STEPS = 4  # "at most 4 steps" over every configuration tested


def figure_7(ctx: Context) -> Outcome:
    """Over sizes 16-4096 and 0.1-10 % faulty (collectives.range_trees.sensitivity, 20
    random problems a cell): the deepest greedy tree at most MAX_STEPS, and greedy equal to
    the optimum in GREEDY_OPTIMAL of the decided problems, pooled (reproduced when the
    paper's share lies in or below our 95 % Wilson interval); below 1 % faulty, where the
    paper says 100 %, shown."""
    ctx.progress("reproduce: figure 7, depth over sizes 16-4096 and 0.1-10 % faulty")
    cells = fault_sensitivity()
    decided = [c for c in cells if c.trials > c.undecided]
    n = sum(c.trials - c.undecided for c in decided)
    k = sum(round(c.greedy_optimal * (c.trials - c.undecided)) for c in decided)
    low = [c for c in decided if c.faulty_fraction < 0.01]
    n_low = sum(c.trials - c.undecided for c in low)
    k_low = sum(round(c.greedy_optimal * (c.trials - c.undecided)) for c in low)
    lo, hi = wilson(k, n)
    deepest = max(c.deepest_greedy for c in cells)
    undecided = sum(c.undecided for c in cells)
    text = (f"greedy equal to the optimum in {k} of {n} decided problems ({k / n:.1%}, "
            f"95 % {lo:.1%}-{hi:.1%}); below 1 % faulty {k_low} of {n_low}; the deepest "
            f"greedy tree {deepest} steps; {undecided} problems undecided (search budget); "
            f"{len(cells)} cells with a faulty node")
    by_size: dict[int, list[tuple[float, int]]] = {}
    for c in cells:
        by_size.setdefault(c.nodes, []).append((c.faulty_fraction * 100, c.deepest_greedy))
    values = {"cells": [c.to_dict() for c in cells], "greedy_optimal": [k, n],
              "interval": [lo, hi], "deepest_greedy": deepest,
              "plot": {"xlabel": "faulty nodes (%)", "ylabel": "deepest greedy tree, steps",
                       "logx": True, "series": {f"{m} nodes": v for m, v in by_size.items()}}}
    why = ([f"the deepest greedy tree takes {deepest} steps (the paper: at most {MAX_STEPS})"]
           if deepest > MAX_STEPS else []) + (
        [f"greedy equals the optimum in {k / n:.1%} of the problems (95 % up to {hi:.1%}; "
         f"the paper: {GREEDY_OPTIMAL:.0%})"] if hi < GREEDY_OPTIMAL else [])
    if not why:
        return Outcome(REPRODUCED, text, values=values)
    return Outcome(DIFFERS, text, "; ".join(why) + " (computed from the reconstructed "
                   "overlap rules: see coll.table-1)", values=values, kind=TRANSFER)


# ---- Tseng2001: partitioned multi-node multicast, in the step model at the report's scale
def _gains(sizes: tuple[int, ...] | None = None) -> list[dict]:
    """Per row of the model: U-torus over the best partitioned scheme, and balanced over
    random (best of the dilations) per row."""
    out = []
    for r in tseng2001_model():
        lat = r["latency_us"]
        best = min(v for k, v in lat.items() if k != "u-torus")
        rand, bal = (min(v for k, v in lat.items() if k.endswith(c)) for c in "RB")
        out.append({"sources": r["sources"], "p": r["factor"], "flits": r["flits"],
                    "gain": lat["u-torus"] / best, "balance": rand / bal})
    return out


def tseng_size(ctx: Context) -> Outcome:
    rows = _gains()
    pairs: dict[tuple[int, float], dict[int, float]] = {(r["sources"], r["p"]): {} for r in rows}
    for r in rows:
        pairs[(r["sources"], r["p"])][r["flits"]] = r["gain"]
    grows = {k: v[1024] > v[32] for k, v in pairs.items()}
    text = "; ".join(f"{n} sources, p {p:g}: {v[32]:.2f} -> {v[1024]:.2f}"
                     for (n, p), v in pairs.items())
    values = {"gain": [[n, p, v[32], v[1024]] for (n, p), v in pairs.items()]}
    if all(grows.values()):
        return Outcome(REPRODUCED, "gain over U-torus, 32 -> 1024 flits: " + text,
                       values=values)
    return Outcome(DIFFERS, text, "the gain does not grow for " + ", ".join(
        f"{n} sources at p {p:g}" for (n, p), ok in grows.items() if not ok) + " in the step "
        "model (the report gives no numbers or partition types to compute it from)",
        values=values, kind=TRANSFER)


def tseng_hot_spot(ctx: Context) -> Outcome:
    """Every scheme's latency at each hot-spot factor, 32 flits: higher at the largest p than
    at the smallest, for every scheme and number of sources (the model has 80 and 176
    sources; figure 4 plots 80 and 112)."""
    rows = [r for r in tseng2001_model() if r["flits"] == 32]
    ps = sorted({r["factor"] for r in rows})
    lat = {(r["sources"], r["factor"]): r["latency_us"] for r in rows}
    sources = sorted({r["sources"] for r in rows})
    schemes = list(rows[0]["latency_us"])
    rises = {(n, k): lat[(n, ps[-1])][k] > lat[(n, ps[0])][k] for n in sources
             for k in schemes}
    text = "; ".join(f"{n} sources, U-torus " + " -> ".join(
        f"{lat[(n, p)]['u-torus'] / 1e3:.1f}" for p in ps) + f" ms at p {ps[0]:g}..{ps[-1]:g}"
        for n in sources)
    values = {"latency_us": {f"{n} {p:g}": lat[(n, p)] for n in sources for p in ps},
              "plot": {"xlabel": "hot-spot factor p", "ylabel": "latency, ms (32 flits)",
                       "series": {f"{k}, {n} sources": [(p, lat[(n, p)][k] / 1e3) for p in ps]
                                  for n in sources for k in ("u-torus", "4B")}}}
    flat = [f"{k} with {n} sources" for (n, k), ok in rises.items() if not ok]
    if not flat:
        return Outcome(REPRODUCED, text, values=values)
    return Outcome(DIFFERS, text, "latency does not rise with p for " + ", ".join(flat)
                   + " in the step model (the report gives no numbers or partition types to "
                   "compute it from)", values=values, kind=TRANSFER)


def tseng_balance(ctx: Context) -> Outcome:
    rows = [r for r in _gains() if r["flits"] == 32]
    by = {n: [r["balance"] for r in rows if r["sources"] == n] for n in (80, 176)}
    mean = {n: sum(v) / len(v) for n, v in by.items()}
    text = (f"balanced over random, 32 flits, mean over p: 80 sources {mean[80]:.3f}, "
            f"176 sources {mean[176]:.3f}")
    if mean[80] > mean[176]:
        return Outcome(REPRODUCED, text, values={"balance": by})
    return Outcome(DIFFERS, text, "in the step model balancing helps more with more sources "
                   "(the report gives no numbers, and never describes its partition types, so "
                   "its partitions may differ from these)", values={"balance": by},
                   kind=TRANSFER)


T = "Tseng2001"
N = "Nupairoj1998"
CLAIMS = (
    Claim("nupairoj.table-4.1", N, "No fixed tree is best on every system: sequential wins on "
          "one, binomial on the other, OPT-Tree on both",
          PaperFigure("section 4 (motivation), Table 4.1", "8 nodes: S1 (t_hold 20 + 0.02m, "
                      "t_end 55 + 0.07m) sequential 19631, binomial 21669; S2 (25 + 0.03m, "
                      "40 + 0.04m) sequential 22718, binomial 12408 (the caption's 1 KB fits "
                      "no cell; 100 KB fits all four)",
                      {f"{s} {a}": v for (s, a), v in T41.items()}, marker="I"),
          "every cell equal (within 0.5 us); OPT-Tree no slower than either tree on either "
          "system", table_4_1),
    Claim("nupairoj.table-4.2", N, "The basic trees' latencies in the t_hold/t_end model",
          PaperFigure("section 4.1, Table 4.2",
                      "sequential (k-2) t_hold + t_end; chain (k-1) t_end; binomial "
                      "log2(k) t_end (t_hold <= t_end, k a power of two), "
                      "floor(log2(k-1)) t_hold + t_end (t_hold > t_end)", {}),
          "every latency equal", table_4_2),
    Claim("nupairoj.table-4.3", N, "OPT-Tree's table for k = 9, t_hold 20, t_end 55",
          PaperFigure("section 4.2, Table 4.3", "t = 0, 55, 75, 95, 110, 115, 130, 130, 135; "
                      "j = 1, 2, 3, 3, 4, 5, 5, 6", T43), "every entry equal", table_4_3),
    Claim("nupairoj.table-4.4", N, "The 3-port OPT table, k = 12, t_int 10, t_hold 22, "
          "t_end 55", PaperFigure("section 4.5, Table 4.4",
                                  "t = 0, 55, 65, 75, 77, 87, 97, 99, 109, 110, 119, 120", T44),
          "every entry equal", table_4_4),
    Claim("nupairoj.ch3-example", N, "Chapter 3's example: 4 nodes, t_hold 2, t_end 5",
          PaperFigure("section 3.2", "sequential 9, binomial 10, chain 15", CH3),
          "every latency equal", chapter_3),
    Claim("nupairoj.mesh-6x6", N, "OPT-Mesh against U-Mesh on the 6x6 mesh example",
          PaperFigure("section 5.2", "OPT-Mesh 130, U-Mesh 165 (t_hold 20, t_end 55)", MESH),
          "both latencies equal", mesh_6x6),
    Claim("nupairoj.head-of-line", N, "A message that meets contention holds the sender's "
          "channel longer, and the sends queued behind it wait (head-of-line blocking)",
          PaperFigure("section 6.1.2, Fig. 6.1; section 6.2, Fig. 6.4", "Fig. 6.1: t_sq 30, "
                      "t_out 30, t_hol 60, t_send 50, t_net 35, t_end 105; Fig. 6.4: the "
                      "4-node sequential tree takes 100 without contention, 135 with t_cont 15",
                      {**FIG_6_1, **{f"fig 6.4 {k}": v for k, v in FIG_6_4.items()}}),
          "every timing equal", head_of_line),
    Claim("coll.table-1", "Coll2003", "Depth of the optimal range-multicast tree with 0.2-1 % "
          "of the nodes faulty", PaperFigure(
              "section 6, Table 1", "2 steps in every cell but 4096 nodes: 3 steps in 0.2 % "
              "of problems at 0.8 % faulty, in 41.8 % at 1 %",
              {f"{n}/{f:.1%}": p for (n, f), p in TABLE_1.items()}),
          "the paper's share of 3-step optima within the 95 % interval of ours, widened by "
          "the trials whose optimum the search left undecided", table_1),
    Claim("coll.figure-7", "Coll2003", "Greedy finds the optimal range-multicast tree in 99 % "
          "of problems, and no tree takes more than 4 steps", PaperFigure(
              "section 6, figure 7", "16 to 4096 nodes, 0.1 % to 10 % faulty, 1000 problems "
              "each: greedy optimal in 99 % of the cases (100 % below 1 % faulty); at most 4 "
              "steps in the worst case", {"greedy_optimal": GREEDY_OPTIMAL,
                                         "max_steps": MAX_STEPS}),
          "the deepest greedy tree at most 4 steps; the paper's 99 % in or below our 95 % "
          "Wilson interval of greedy's share of optima (20 problems a cell of sizes 16, 64, "
          "256, 1024, 4096 x 0.1, 0.3, 1, 3, 10 % faulty; below 1 % shown)", figure_7),
    Claim("tseng.size-gain", T, "Partitioned multi-node multicast gains more over U-torus "
          "as messages grow", PaperFigure(
              "section 4, figure 2", "the gain over U-torus grows with message size (16x16 "
              "torus, 80 and 176 sources, T_s 300 us, T_c 1 us per flit)", {}),
          "U-torus over the best partitioned scheme larger at 1024 flits than at 32, for "
          "every number of sources and hot-spot factor (the step model at the report's scale)",
          tseng_size),
    Claim("tseng.balance", T, "Balancing the DDN choice helps more when there are fewer "
          "sources", PaperFigure("section 4, figure 3", "balancing helps more with fewer "
                                 "sources (32 flits)", {}),
          "balanced over random larger, on average over p, with 80 sources than with 176 "
          "(the step model at the report's scale)", tseng_balance),
    Claim("tseng.hot-spot", T, "A larger hot-spot factor raises every scheme's latency",
          PaperFigure("section 4, figure 4", "latency rises with the hot-spot factor p "
                      "(80 and 112 sources, 32 flits)", {}),
          "every scheme's latency higher at p 1 than at p 0.25, with 80 and 176 sources "
          "(the step model at the report's scale)", tseng_hot_spot),
)
