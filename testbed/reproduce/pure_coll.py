"""Coll2003's claims the testbed computes without a network (collectives.range_trees): the
worked examples of Figs 2-6, figure 7 (greedy against the optimum over sizes and shares of
faulty nodes) and Table 1 (the depth of the optimal tree around 0.2-1 % faulty nodes, shown
as a curve against the number of faults). The paper's numbers are copied here (marker R:
read in the text; I: inferred from it)."""

from __future__ import annotations

import itertools
import math
import os
from typing import Any

from collectives.range_trees import (
    FIG7_TRIALS,
    Cell,
    HwTreeStats,
    KaryNTree,
    backward_overlap_level,
    capabilities,
    differences,
    fault_sensitivity,
    first_backward_overlap,
    forward_overlap_level,
    greedy_steps,
    greedy_trials,
    needs,
    optimal_steps,
    resolve_backward,
    run_cells,
    split_down,
)

from .claims import Claim, Context, PaperFigure
from .pure import agree
from .verdict import DIFFERS, REPRODUCED, TRANSFER, Outcome, wilson

C = "Coll2003"
Q16 = KaryNTree.for_nodes(16)
BUDGET = 300
"""Search states per optimum: the optimum is searched only where greedy misses the depth
lower bound, and a search that runs out leaves its problem undecided (counted on both sides
of the intervals)."""


def workers() -> int:
    """Every core: the pure claims run before any network."""
    return os.cpu_count() or 1


# ---- Figs 4-6: the overlap rules on the paper's own groups ---------------------------------
FIG4: dict[str, Any] = {
    "source": 8, "groups": [(0, 0), (2, 5), (7, 15)], "overlap_level": 1,
    "right_try": [(2, 5), (7, 7), (8, 15)], "left_try": [(2, 3), (4, 5), (7, 15)],
    "steps": [[(7, 15)], [(0, 0), (2, 5)]]}
FIG5: dict[str, Any] = {
    "source": 2, "groups": [(0, 0), (3, 7), (9, 12)], "sources": [0, 2], "c": (1, 1),
    "n": (2, 0), "d": (-1, 1), "limited_level": 1,
    "splits": [[(3, 3), (4, 7), (9, 12)], [(3, 7), (9, 11), (12, 12)]]}
FIG6: dict[str, dict[str, Any]] = {"[6,7]": {"root_level": 0, "c": (1, 1)},
                                   "[7,8]": {"root_level": 1, "c": (2, 0)}}


def figures_4_6(ctx: Context) -> Outcome:
    """Eq. 1 on Fig. 4's groups and the two lists its resolution explores, the tree of two
    steps; eqs. 2-3 on Fig. 5's sources and groups and its two splits; Fig. 6's root levels
    and capabilities (vectors written top level first, as the paper prints them)."""
    got: dict[str, Any] = {}
    g4 = FIG4["groups"]
    got["fig4 overlap level"] = backward_overlap_level(Q16, g4[1], g4[2])
    overlap = first_backward_overlap(Q16, g4[1:])
    left, right = resolve_backward(Q16, g4[1:], overlap) if overlap else ([], [])
    got["fig4 right_try"], got["fig4 left_try"] = right, left
    dests = [n for lo, hi in g4 for n in range(lo, hi + 1)]
    got["fig4 greedy"] = greedy_steps(Q16, FIG4["source"], dests)
    got["fig4 optimal"] = optimal_steps(Q16, FIG4["source"], dests)
    c5 = capabilities(Q16, FIG5["sources"])[::-1]
    pair = FIG5["groups"][1:]
    n5 = needs(Q16, pair)[::-1]
    got["fig5 c"], got["fig5 n"] = c5, n5
    got["fig5 d"] = differences(c5[::-1], n5[::-1])[::-1]
    got["fig5 limited level"] = forward_overlap_level(Q16, c5[::-1], pair)
    got["fig5 splits"] = [[*pair[:k], *split_down(Q16, pair[k]), *pair[k + 1:]]
                          for k in range(len(pair))]
    for name, (lo, hi) in (("[6,7]", (6, 7)), ("[7,8]", (7, 8))):
        got[f"fig6 {name} root level"] = Q16.root_level(lo, hi)
        got[f"fig6 {name} c"] = capabilities(Q16, range(lo, hi + 1))[::-1]
    want = {"fig4 overlap level": FIG4["overlap_level"], "fig4 right_try": FIG4["right_try"],
            "fig4 left_try": FIG4["left_try"], "fig4 greedy": FIG4["steps"],
            "fig4 optimal": FIG4["steps"], "fig5 c": FIG5["c"], "fig5 n": FIG5["n"],
            "fig5 d": FIG5["d"], "fig5 limited level": FIG5["limited_level"],
            "fig5 splits": FIG5["splits"],
            **{f"fig6 {k} root level": v["root_level"] for k, v in FIG6.items()},
            **{f"fig6 {k} c": v["c"] for k, v in FIG6.items()}}
    matches = {k: _plain(got[k]) == _plain(w) for k, w in want.items()}
    text = (f"Fig. 4: overlap at level {got['fig4 overlap level']}, lists "
            f"{got['fig4 right_try']} and {got['fig4 left_try']}, tree "
            f"{got['fig4 optimal']}; Fig. 5: c {got['fig5 c']}, n {got['fig5 n']}, d "
            f"{got['fig5 d']}, splits {got['fig5 splits']}; Fig. 6: c "
            f"{got['fig6 [6,7] c']} and {got['fig6 [7,8] c']}")
    return agree(matches, text, {"got": _plain(got)}, "values")


def _plain(v: Any) -> Any:
    """Tuples as lists, all the way down (what the report keeps)."""
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    return v


# ---- Figs 2-3: a 13-node group, two steps where a software tree needs four -----------------
FIG2_NODES, FIG2_MEMBERS, FIG2_STEPS, FIG2_PARALLEL = 16, 13, 2, 3


def figures_2_3(ctx: Context) -> Outcome:
    """Every group of 13 of the 16 nodes in four runs of adjacent nodes (three single gaps
    inside the network: the figure's "13 non-adjacent nodes" whose second step has three
    parallel multicasts; the figure's own group is not in the text, I), from every member:
    the optimal range tree's depth and its second step's multicasts, against the
    ceil(log2 13) = 4 steps any tree of point-to-point messages needs."""
    depths: dict[int, int] = {}
    parallel: dict[int, int] = {}
    problems = 0
    for gaps in itertools.combinations(range(1, FIG2_NODES - 1), FIG2_NODES - FIG2_MEMBERS):
        if any(b - a < 2 for a, b in itertools.pairwise(gaps)):
            continue
        members = [n for n in range(FIG2_NODES) if n not in gaps]
        for source in members:
            steps = optimal_steps(Q16, source, members)
            depths[len(steps)] = depths.get(len(steps), 0) + 1
            if len(steps) > 1:
                parallel[len(steps[1])] = parallel.get(len(steps[1]), 0) + 1
            problems += 1
    software = math.ceil(math.log2(FIG2_MEMBERS))
    text = (f"{problems} problems (groups x sources): optimal depth " + ", ".join(
        f"{d} steps in {k}" for d, k in sorted(depths.items())) + "; multicasts in step 2: "
        + ", ".join(f"{m} in {k}" for m, k in sorted(parallel.items()))
        + f"; a point-to-point tree needs {software} steps")
    values = {"depths": depths, "second_step": parallel, "software_steps": software}
    worst = max(depths)
    if worst <= FIG2_STEPS < software and FIG2_PARALLEL in parallel:
        return Outcome(REPRODUCED, text, values=values)
    return Outcome(DIFFERS, text, f"some 13-node groups need {worst} steps (the paper's "
                   f"example: {FIG2_STEPS})", values=values, kind=TRANSFER)


# ---- Table 1: the depth of the optimal tree around 0.2-1 % faulty nodes --------------------
FAULTY = (0.002, 0.004, 0.006, 0.008, 0.010)
SIZES = (1024, 2048, 4096)
TABLE_TRIALS = 200  # random problems a cell (the paper solved 1000)
# beyond the table, at 4096 nodes: where the model's share of 3-step trees rises (shown,
# greedy only: the optimum's share at most; not with --quick)
BEYOND = (0.012, 0.014)
# share of problems whose optimal tree takes 3 steps (the rest take 2), per (size, faulty)
TABLE_1 = {(n, f): 0.0 for n in SIZES for f in FAULTY} | {(4096, 0.008): 0.002,
                                                          (4096, 0.010): 0.418}
TABLE_1_GAP = (
    "Here the share of 3-step trees rises between 41 and 57 faulty nodes (greedy's curve, "
    "the optimum's at most, crosses 41.8 % near 55), the paper's between 33 and 41: an "
    "unstated detail of the paper's capability count, fault draw or implementation makes "
    "its problems harder")
LITERAL = (0.008, 0.010)  # where the paper has 3-step optima: greedy's two split rules there


def _why(row: dict[str, Any], first: dict[int, int]) -> str:
    """Why a 4096-node cell cannot reach the paper's share: the optimum of either reading of
    Algorithm 1 is at most the greedy tree its space holds."""
    n = row["trials"]
    deep = sum(k for d, k in first.items() if d >= 3)
    hi = wilson(deep, n)[1]
    return (f"Algorithm 2 takes 3 steps in {row['greedy_three_steps']} of these {n} problems "
            f"splitting the smallest group on a forward overlap and in {deep} splitting the "
            "first in address order, which the printed pseudo-code of Algorithm 1 always "
            "splits (its forward loop keeps earlier splits); its search space holds that "
            "tree, and the text's space (each split from the list as it was, ours) holds both. "
            f"So the optimum of either reading takes 3 steps in at most {deep / n:.1%} (95 % "
            f"up to {hi:.1%}) of them: with eqs. 1-3 as its Figs 4-6 pin them and its moves "
            "as read here (docs/range-trees.md), no search of Algorithm 1 gives its share")


def _cell_values(s: HwTreeStats) -> dict[str, Any]:
    """One cell: its trials, proved 3-step optima, undecided ones, greedy's 3-step trees and
    the 95 % range of the optimum's 3-step share (the undecided counted on either side)."""
    deep = sum(k for d, k in s.optimal.items() if d >= 3)
    greedy_deep = sum(k for d, k in s.greedy.items() if d >= 3)
    lo, hi = wilson(deep, s.trials)[0], wilson(deep + s.undecided, s.trials)[1]
    return {"nodes": s.nodes, "faulty": s.faulty_fraction, "faulty_nodes": s.faulty_nodes,
            "trials": s.trials, "three_steps": deep, "undecided": s.undecided,
            "greedy_three_steps": greedy_deep, "range": [lo, hi]}


def table_1(ctx: Context) -> Outcome:
    """Per cell, the share of 3-step optima lies between the proved 3-step problems and
    those plus the undecided ones (their optimum is unknown: search budget); a cell agrees
    when the paper's share falls in that range widened by its 95 % Wilson interval. Shown as
    a curve against the number of faulty nodes, the 4096-node row continued past 1 %."""
    further = () if ctx.quick else BEYOND
    ctx.progress(f"reproduce: Table 1, {len(SIZES) * len(FAULTY)} cells and "
                 f"{len(further)} beyond, {TABLE_TRIALS} problems each")
    cells = [Cell(n, f, TABLE_TRIALS, BUDGET) for n in SIZES for f in FAULTY]
    beyond = [Cell(4096, f, TABLE_TRIALS, 0) for f in further]
    stats = run_cells(cells + beyond, seed=0, workers=workers())
    rows = [_cell_values(s) for s in stats]
    wrong = []
    first = {f: greedy_trials(4096, f, TABLE_TRIALS, seed=0, split="first") for f in LITERAL}
    for row in rows[:len(cells)]:
        paper = TABLE_1[(row["nodes"], row["faulty"])]
        row["paper"] = paper
        row["agrees"] = row["range"][0] <= paper <= row["range"][1]
        if not row["agrees"]:
            lo, hi = row["range"]
            wrong.append(f"{row['nodes']} nodes at {row['faulty']:.1%} faulty "
                         f"({row['faulty_nodes']}): {paper:.1%} of 3-step optima in the "
                         f"paper, here {row['three_steps']} proved and {row['undecided']} "
                         f"undecided of {row['trials']} (95 % range {lo:.1%}-{hi:.1%})"
                         + (f". {_why(row, first[row['faulty']])}" if row["nodes"] == 4096
                            and row["faulty"] in first else ""))
    series: dict[str, list] = {}
    for n in SIZES:
        mine = [r for r in rows if r["nodes"] == n]
        series[f"{n} nodes, greedy (optimum at most)"] = [
            (r["faulty_nodes"], r["greedy_three_steps"] / r["trials"]) for r in mine]
        series[f"{n} nodes, paper"] = [(r["faulty_nodes"], r["paper"]) for r in mine
                                       if "paper" in r]
    series["4096 nodes, greedy splitting the first (the literal reading's optimum at most)"] = [
        (round(f * 4096), sum(k for d, k in first[f].items() if d >= 3) / TABLE_TRIALS)
        for f in LITERAL]
    plot = {"xlabel": "faulty nodes", "ylabel": "problems whose optimal tree takes 3 steps",
            "series": series}
    agree = sum(r["agrees"] for r in rows[:len(cells)])
    curve = ", ".join(f"{r['faulty_nodes']}: {r['greedy_three_steps'] / r['trials']:.1%}"
                      for r in rows if r["nodes"] == 4096)
    testbed = (f"{agree} of {len(cells)} cells agree ({TABLE_TRIALS} random problems a cell, "
               f"seed 0); at 4096 nodes greedy's 3-step share (the optimum's at most) by "
               f"faulty nodes: {curve}")
    values = {"cells": rows, "plot": plot,
              "greedy_first_split": {f"4096/{f:.1%}": d for f, d in first.items()}}
    if not wrong:
        return Outcome(REPRODUCED, testbed, values=values)
    return Outcome(DIFFERS, testbed, "; ".join(wrong) + ". " + TABLE_1_GAP, values=values,
                   kind=TRANSFER)


# ---- figure 7: depth against the share of faults ------------------------------------------
GREEDY_OPTIMAL = 0.99  # "greedy is optimal in 99 % of the cases"
MAX_STEPS = 4  # "at most 4 steps" over every configuration tested


def figure_7(ctx: Context) -> Outcome:
    """Over sizes 16-4096 and 0.1-10 % faulty (collectives.range_trees.sensitivity,
    FIG7_TRIALS random problems a cell): the deepest greedy tree at most MAX_STEPS, and the
    share of problems where greedy equals the optimum, pooled: its 95 % Wilson interval
    counts an undecided problem as not optimal at its lower end and as optimal at its upper
    end; reproduced when the paper's share lies in or below it. Below 1 % faulty, where the
    paper says 100 %, shown."""
    ctx.progress(f"reproduce: figure 7, sizes 16-4096 x 0.1-10 % faulty, {FIG7_TRIALS} "
                 "problems a cell")
    cells = fault_sensitivity(workers=workers())
    n = sum(c.trials for c in cells)
    undecided = sum(c.undecided for c in cells)
    k = sum(round(c.greedy_optimal * (c.trials - c.undecided)) for c in cells)
    low = [c for c in cells if c.faulty_fraction < 0.01]
    n_low = sum(c.trials for c in low)
    k_low = sum(round(c.greedy_optimal * (c.trials - c.undecided)) for c in low)
    u_low = sum(c.undecided for c in low)
    lo, hi = wilson(k, n)[0], wilson(k + undecided, n)[1]
    deepest = max(c.deepest_greedy for c in cells)
    text = (f"greedy equal to the optimum in {k} of {n} problems, {undecided} undecided "
            f"(search budget; 95 % {lo:.1%}-{hi:.1%}); below 1 % faulty {k_low} of {n_low}"
            f"{f' ({u_low} undecided)' if u_low else ''}; the deepest greedy tree "
            f"{deepest} steps; {len(cells)} cells with a faulty node")
    by_size: dict[int, list[tuple[float, int]]] = {}
    for c in cells:
        by_size.setdefault(c.nodes, []).append((c.faulty_fraction * 100, c.deepest_greedy))
    values = {"cells": [c.to_dict() for c in cells], "greedy_optimal": [k, n],
              "undecided": undecided, "interval": [lo, hi], "deepest_greedy": deepest,
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


CLAIMS = (
    Claim("coll.figures-2-3", C, "A tree of range multicasts reaches a 13-node group with "
          "gaps in 2 steps, three multicasts in parallel in the second, where a tree of "
          "point-to-point messages needs more", PaperFigure(
              "section 4, figures 2 and 3", "13 non-adjacent nodes of a 16-node network: the "
              "hardware tree takes 2 steps, its second step three parallel multicasts that "
              "share no link; the software tree is deeper",
              {"nodes": FIG2_MEMBERS, "steps": FIG2_STEPS, "parallel": FIG2_PARALLEL}),
          "every 13-node group of the 16-node network in four runs (three single gaps), "
          "from every member: the optimal tree at most 2 steps, three multicasts in step 2 "
          "possible, fewer steps than ceil(log2 13) = 4", figures_2_3),
    Claim("coll.figures-4-6", C, "The overlap rules on the paper's own examples: eq. 1 and "
          "its two resolutions, eqs. 2-3 and the forward splits, the capabilities of two "
          "2-node groups", PaperFigure(
              "section 5.2, figures 4, 5 and 6", "Fig. 4 (source 8; [0,0], [2,5], [7,15]): "
              "backward overlap at level 1, lists ([2,5],[7,7],[8,15]) and "
              "([2,3],[4,5],[7,15]), tree 8->[7,15] then [0,0], [2,5]; Fig. 5 (sources 2 "
              "and 0; [3,7], [9,12]): c (1,1), n (2,0), d (-1,1), splits "
              "([3,3],[4,7],[9,12]) and ([3,7],[9,11],[12,12]); Fig. 6: [6,7] rooted at level "
              "0, c (1,1); [7,8] at level 1, c (2,0)",
              {"fig4": FIG4, "fig5": FIG5, "fig6": FIG6}),
          "every value equal", figures_4_6),
    Claim("coll.table-1", C, "Depth of the optimal range-multicast tree with 0.2-1 % of the "
          "nodes faulty", PaperFigure(
              "section 6, Table 1", "2 steps in every cell but 4096 nodes: 3 steps in 0.2 % "
              "of problems at 0.8 % faulty, in 41.8 % at 1 % (1000 problems a cell)",
              {f"{n}/{f:.1%}": p for (n, f), p in TABLE_1.items()}),
          f"per cell ({TABLE_TRIALS} problems), the paper's share of 3-step optima within "
          "the 95 % interval of ours, widened by the problems whose optimum the search left "
          "undecided; shown against the number of faulty nodes, 4096 nodes continued to "
          "1.4 % (greedy only; not with --quick)", table_1),
    Claim("coll.figure-7", C, "Greedy finds the optimal range-multicast tree in 99 % "
          "of problems, and no tree takes more than 4 steps", PaperFigure(
              "section 6, figure 7", "16 to 4096 nodes, 0.1 % to 10 % faulty, 1000 problems "
              "each: greedy optimal in 99 % of the cases (100 % below 1 % faulty); at most 4 "
              "steps in the worst case", {"greedy_optimal": GREEDY_OPTIMAL,
                                         "max_steps": MAX_STEPS}),
          f"the deepest greedy tree at most 4 steps; the paper's 99 % in or below the 95 % "
          f"Wilson interval of greedy's share of optima, undecided problems counted on "
          f"either side ({FIG7_TRIALS} problems a cell of sizes 16, 64, 256, 1024, 4096 x "
          "0.1, 0.3, 1, 3, 10 % faulty; below 1 % shown)", figure_7),
)
