"""Nupairoj1998's claims the testbed computes without a network: the thesis's tables and
examples in the t_hold/t_end model (the basic trees, the flow model, MPI-F's block-based
binomial tree, OPT-Tree, OPT-Mesh, OPT-Min, head-of-line blocking). The other papers' pure
claims: pure_coll, pure_tseng, pure_siebert. The thesis's numbers are copied here (marker R:
read in the text; I: inferred from it)."""

from __future__ import annotations

import math
from typing import Any

from collectives.contention import opt_mesh, opt_min, u_mesh
from collectives.trees import (
    Channel,
    PointToPoint,
    binomial_tree,
    block_binomial_tree,
    build,
    critical_destinations,
    flow_latencies,
    hol_latency,
    hol_times,
    multiport_table,
    opt_table,
    predict,
)

from .claims import Claim, Context, PaperFigure
from .verdict import DIFFERS, REPRODUCED, TRANSFER, Outcome

T_HOLD, T_END = 20.0, 55.0  # Nupairoj1998's running example (us)


def agree(matches: dict[str, bool], testbed: str, values: dict, what: str) -> Outcome:
    """Reproduced when every named match holds; otherwise differs, naming the ones that do
    not (the figures are the paper's own model or rules, computed: a difference lies in the
    paper's arithmetic or in how its text is read)."""
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
    return agree(matches, f"all {len(matches)} latencies (k = 2..32) follow the formulas",
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
    return agree(matches, text, {"us": {f"{s} {a}": v for (s, a), v in got.items()},
                                  "opt_tree_us": opt}, "cells")


# ---- Table 4.3: OPT-Tree's table, k = 9 ------------------------------------------------
T43 = {"t": (0, 55, 75, 95, 110, 115, 130, 130, 135), "j": (1, 2, 3, 3, 4, 5, 5, 6)}


def table_4_3(ctx: Context) -> Outcome:
    tab = opt_table(9, T_HOLD, T_END)
    t, j = tuple(tab.t[1:]), tuple(tab.j[2:])
    return agree({"t[1..9]": t == T43["t"], "j_2..j_9": j == T43["j"]},
                  f"t = {', '.join(f'{x:g}' for x in t)}; j = {', '.join(map(str, j))}",
                  {"t": t, "j": j}, "columns")


# ---- Table 4.4: the 3-port OPT table, k = 12 -------------------------------------------
T44 = {"t": (0, 55, 65, 75, 77, 87, 97, 99, 109, 110, 119, 120),
       "j": (1, 1, 1, 2, 3, 4, 5, 6, 6, 7, 7)}


def table_4_4(ctx: Context) -> Outcome:
    tab = multiport_table(12, 22.0, T_END, 10.0, 3)
    t, j = tuple(tab.t[1:]), tuple(tab.j[2:])
    return agree({"t[1..12]": t == T44["t"], "j_2..j_12": j == T44["j"]},
                  f"t = {', '.join(f'{x:g}' for x in t)}; j = {', '.join(map(str, j))}",
                  {"t": t, "j": j}, "columns")


# ---- chapter 3's example: 4 nodes, t_hold 2, t_end 5 ------------------------------------
CH3 = {"sequential": 9, "binomial": 10, "chain": 15}


def chapter_3(ctx: Context) -> Outcome:
    p = PointToPoint.constant(2.0, 5.0)
    got = {a: predict(build(a, 4), p) for a in CH3}
    return agree({a: math.isclose(got[a], w) for a, w in CH3.items()},
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
    return agree({a: math.isclose(got[a], w) for a, w in MESH.items()},
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
    return agree(matches, text, {"fig_6_1": row, "fig_6_4": seq, "added": added},
                  "timings")


# ---- section 3.3.1, Fig. 3.5: flow latencies when the nodes call at different times --------
# P0 (the root), P1, P2, P3 call at 0, 2, 5, 3; the flow latencies are 7, 7 and 10 and P3 is
# the critical destination (R). The figure (lost) draws the tree and times: chapter 3's
# example, t_hold 2 and t_end 5, and the binomial tree fit every number (I).
FIG_3_5: dict[str, Any] = {"calls": (0, 2, 5, 3), "flow": {1: 7, 2: 7, 3: 10}, "critical": [3]}


def flow_model(ctx: Context) -> Outcome:
    """The 4-node binomial tree at t_hold 2, t_end 5 with the figure's call times
    (collectives.trees.flow): each destination's flow latency and the critical one."""
    flow = flow_latencies(binomial_tree(4), 2.0, 5.0, FIG_3_5["calls"])
    critical = critical_destinations(flow)
    matches = {f"P{d}": math.isclose(flow[d], w) for d, w in FIG_3_5["flow"].items()}
    matches["D_c"] = critical == FIG_3_5["critical"]
    return agree(matches, ", ".join(f"t_f(P0, P{d}) = {t:g}" for d, t in flow.items())
                  + f"; D_c = {{{', '.join(f'P{d}' for d in critical)}}}",
                  {"flow": flow, "critical": critical}, "flow latencies")


# ---- section 3.4, Fig. 3.7: MPI-F's block-based binomial tree, 9 nodes, blocksize 3 -------
# P0 -> P3 first, then each leader serves its block, then P0, P1, P2 -> P6, P7, P8; P8 is
# the critical destination (R). Its latencies are the IBM/SP's, measured (lost with the
# figure); here the model's at the SP's 1-byte t_hold and t_end (Table 2.1: 19.150 + 0.02 m
# and 53.295 + 0.07 m us).
FIG_3_7 = {0: [3, 1, 2, 6], 3: [4, 5], 1: [7], 2: [8]}
FIG_3_7_CRITICAL = [8]
SP = PointToPoint(19.150, 0.02, 53.295, 0.07)


def block_binomial(ctx: Context) -> Outcome:
    """The block-based binomial tree (collectives.trees.block_binomial) against the figure's
    sends, and its flow latencies in the model at 1 byte: the critical destination."""
    tree = block_binomial_tree(9, 3)
    flow = flow_latencies(tree, SP.t_hold(1), SP.t_end(1))
    critical = critical_destinations(flow)
    matches = {"sends": tree == FIG_3_7, "critical destination": critical == FIG_3_7_CRITICAL}
    text = ("sends " + "; ".join(f"P{p} -> " + ", ".join(f"P{c}" for c in kids)
                                 for p, kids in tree.items())
            + "; flow latencies (us) " + ", ".join(f"P{d} {t:.1f}" for d, t in flow.items())
            + f"; critical: {', '.join(f'P{d}' for d in critical)}")
    return agree(matches, text, {"tree": tree, "flow_us": flow, "critical": critical},
                  "tree or critical destination")


# ---- section 5.3: the OPT-Min example ------------------------------------------------------
# a 16-node bidirectional butterfly MIN, turnaround routing, t_hold 20, t_end 55; source 0011
# and the chain 0001, 0011, 0110, 0111, 1010, 1100, 1101 (the text prints "1011, 1011" for
# 1010: the six destinations of section 5.1, I); j_7 = 5, j_5 = 3; 0011 sends first to 1100,
# then (t_hold later) to 0111, and 1100 sends to 1101 at t_end; latency
# max{t_hold + 2 t_end, 3 t_hold + t_end} = 130 (R)
OPT_MIN_NODES, OPT_MIN_SOURCE = (0b0001, 0b0011, 0b0110, 0b0111, 0b1010, 0b1100, 0b1101), 0b0011
OPT_MIN: dict[str, Any] = {"latency": 130, "j7": 5, "j5": 3,
           "sends": [(0, 0b0011, 0b1100), (20, 0b0011, 0b0111), (55, 0b1100, 0b1101)]}


def opt_min_example(ctx: Context) -> Outcome:
    """OPT-Min (collectives.contention.trees.opt_min) on the example: the split sizes, the
    sends the text names and the latency."""
    tree = opt_min(OPT_MIN_NODES, OPT_MIN_SOURCE, 2, 4, T_HOLD, T_END)
    table = opt_table(7, T_HOLD, T_END)
    sends = [(s.start, s.sender, s.receiver) for s in tree.sends]
    formula = max(T_HOLD + 2 * T_END, 3 * T_HOLD + T_END)
    matches = {"latency": math.isclose(tree.latency, OPT_MIN["latency"]),
               "formula": math.isclose(formula, OPT_MIN["latency"]),
               "j_7": table.j[7] == OPT_MIN["j7"], "j_5": table.j[5] == OPT_MIN["j5"]}
    matches |= {f"{s:04b} -> {r:04b} at {t:g}": (t, s, r) in sends
                for t, s, r in OPT_MIN["sends"]}
    text = (f"latency {tree.latency:g}; j_7 = {table.j[7]}, j_5 = {table.j[5]}; sends "
            + ", ".join(f"{t:g}: {s:04b} -> {r:04b}" for t, s, r in sends))
    return agree(matches, text, {"latency": tree.latency, "sends": sends}, "values")

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
    Claim("nupairoj.flow-model", N, "Flow latencies and the critical destination when the "
          "nodes call the multicast at different times", PaperFigure(
              "section 3.3.1, Fig. 3.5", "4 nodes calling at 0, 2, 5, 3: flow latencies 7, 7, "
              "10; D = {P1, P2, P3}, D_c = {P3} (the tree and times: the binomial tree, "
              "t_hold 2, t_end 5, chapter 3's example, fit every number)",
              {"calls": list(FIG_3_5["calls"]), "flow": FIG_3_5["flow"],
               "critical": FIG_3_5["critical"]}, marker="I"),
          "every flow latency equal; the same critical destination", flow_model),
    Claim("nupairoj.block-binomial", N, "MPI-F's block-based binomial tree on 9 nodes, "
          "blocksize 3: its sends, and P8 the critical destination", PaperFigure(
              "section 3.4, Fig. 3.7", "blocks {P0, P1, P2} and {P3, P4, P5}; P0 -> P3, then "
              "each leader serves its block, then P0, P1, P2 -> P6, P7, P8; P8 is the last "
              "node (measured on the IBM/SP at 1 byte; here the model at Table 2.1's 1-byte "
              "t_hold 19.17 and t_end 53.37 us)", {"tree": FIG_3_7, "critical": [8]}),
          "the same sends in the same order; the same critical destination", block_binomial),
    Claim("nupairoj.opt-min", N, "OPT-Min on a 16-node BMIN example", PaperFigure(
              "section 5.3", "t_hold 20, t_end 55, source 0011 and six destinations: j_7 = 5, "
              "j_5 = 3; 0011 -> 1100 at 0, 0011 -> 0111 at 20, 1100 -> 1101 at 55; latency "
              "max{t_hold + 2 t_end, 3 t_hold + t_end} = 130", OPT_MIN),
          "every value equal", opt_min_example),
)
