"""The broadcast tree of each algorithm run, drawn from its schedule (rank 0 on top), with a
note on what the drawing leaves out."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from collectives.algorithms import BCASTS
from collectives.trees import DEFAULT_FRAGMENT, MeasuredPointToPoint, Schedule, Send, build

from .figures import Figure, save_figure
from .points import Point, alg_order, as_int, fmt_size, plural

if TYPE_CHECKING:
    import networkx as nx

MULTICAST_NOTES = {  # what the drawing of root -> all leaves out
    "two-stage": "fragments go out without synchronising, then a fragmented chain over "
                 "point-to-point completes whatever the multicast lost.",
    "nack": "ranks then report missing fragments up a binomial tree and the root repairs "
            "them (re-multicast, the last round point-to-point).",
    "scout-linear": "before it every rank sends a zero-byte scout straight to the root; lost "
                    "fragments are repaired as in nack.",
    "scout-binary": "before it zero-byte scouts are gathered up a binary tree; lost fragments "
                    "are repaired as in nack.",
}
TREE_NOTES = {
    "sequential": "the root sends the whole message to every rank in turn.",
    "binomial": "MPICH's order: a rank sends to its id plus each power of two below its "
                "id's lowest set bit, highest first (the root: 8, 4, 2, 1 of 9).",
    "chain": "each rank forwards the whole message to the next.",
    "binary": "each rank forwards the whole message to two children.",
    "scatter-allgather": "the binomial scatter of one chunk per rank is drawn; a ring "
                         "allgather in k-1 steps (not drawn) then completes the message.",
}
TREE_DEFAULT_TIMES = (1.0, 3.0)  # t_hold, t_end when the run measured no parameters


def _fmt_time(s: float) -> str:
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} µs"


def _measured(params: Any) -> MeasuredPointToPoint | None:
    try:
        order = sorted(range(len(params["sizes"])), key=lambda i: params["sizes"][i])
        return MeasuredPointToPoint(tuple(params["sizes"][i] for i in order),
                                    tuple(params["t_hold_s"][i] for i in order),
                                    tuple(params["t_end_s"][i] for i in order))
    except (KeyError, TypeError, IndexError, ValueError):
        return None


def _opt_params(nbytes: int, config: Mapping[str, Any]) -> tuple[dict[str, float], str]:
    p2p = _measured(config.get("params"))
    if p2p is not None:
        hold, end = p2p.t_hold(nbytes), p2p.t_end(nbytes)
        if hold > 0 and end > 0:
            return {"t_hold": hold, "t_end": end}, (
                f"t_hold = {_fmt_time(hold)} and t_end = {_fmt_time(end)}, interpolated "
                f"from the run's measured point-to-point parameters at {fmt_size(nbytes)}")
    hold, end = TREE_DEFAULT_TIMES
    return {"t_hold": hold, "t_end": end}, (
        f"t_hold = {hold:g} and t_end = {end:g} (the run has no measured point-to-point "
        "parameters, so the shape is illustrative)")


def _tree_edges(schedule: Schedule) -> list[tuple[int, int, str]]:
    """(parent, child, send order) from each rank's plain sends: the tree of a schedule (a
    fragmented chain's fragments collapse into one edge, scatter-allgather's ring is left
    out)."""
    edges = []
    for rank, prog in enumerate(schedule.programs):
        peers: list[int] = []
        for op in prog:
            if isinstance(op, Send) and op.peer not in peers:
                peers.append(op.peer)
                edges.append((rank, op.peer, str(len(peers))))
    return edges


def _tree(alg: str, k: int, nbytes: int,
          config: Mapping[str, Any]) -> tuple[list[tuple[int, int, str]], bool, str] | None:
    """(edges, multicast?, note) of `alg` on k ranks, or None if it has no known shape."""
    if alg in MULTICAST_NOTES:
        return [(0, r, "") for r in range(1, k)], True, \
            f"the root multicasts the message to all {k} ranks at once; {MULTICAST_NOTES[alg]}"
    record = BCASTS.get(alg)  # a stored result's name: an old one may be gone from the registry
    if record is None or not record.model_tree:
        return None
    params: dict[str, Any] = {}
    note = TREE_NOTES.get(alg, "")
    if record.timing:
        params, why = _opt_params(nbytes, config)
        note = (f"OPT-Tree for {why}." if alg == "opt-tree" else
                "DYN-Tree adapts at run time (under load each forwarding rank re-splits its "
                f"range from its own send cost); at zero load it is this OPT-Tree, for {why}.")
    elif alg == "fragmented-chain":
        spec = config.get("spec") or {}
        frag = as_int(spec.get("fragment")) or DEFAULT_FRAGMENT
        params = {"fragment": frag}
        note = (f"each rank forwards to the next, pipelined in "
                f"{plural(max(1, math.ceil(nbytes / frag)), 'fragment')} of {frag} B"
                f"{'' if spec.get('fragment') else ' (the schedule default)'}.")
    schedule = build(record.zero_load, k, 0, nbytes, **params)
    return _tree_edges(schedule), False, note


def _tree_layout(k: int, edges: list[tuple[int, int, str]]) -> dict[int, tuple[float, float]]:
    """Root on top, one row per depth, leaves left to right in send order, a parent centred
    over its children (iterative: a chain of many ranks is deep)."""
    children: dict[int, list[int]] = defaultdict(list)
    for s, r, _ in edges:
        children[s].append(r)
    pos: dict[int, tuple[float, float]] = {}
    x = 0.0
    seen = {0}
    stack: list[tuple[int, int, bool]] = [(0, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        kids = [c for c in children.get(node, []) if c in pos] if done else \
            [c for c in children.get(node, []) if c not in seen]
        if done:
            pos[node] = ((pos[kids[0]][0] + pos[kids[-1]][0]) / 2, -depth)
        elif not kids:
            pos[node], x = (x, -depth), x + 1
        else:
            seen.update(kids)
            stack.append((node, depth, True))
            stack.extend((c, depth + 1, False) for c in reversed(kids))
    bottom = min((y for _, y in pos.values()), default=0.0) - 1
    for n in range(k):
        if n not in pos:
            pos[n], x = (x, bottom), x + 1
    return pos


def _draw_tree(plt: Any, path: Path, title: str, k: int, edges: list[tuple[int, int, str]],
               multicast: bool, foot: str = "") -> None:
    # a quarter second, paid where a tree is drawn (every command loads this module)
    import networkx as nx

    pos = _tree_layout(k, edges)
    width = len({x for x, _ in pos.values()})
    depth = -min(y for _, y in pos.values())
    fig, ax = plt.subplots(figsize=(min(14.0, max(3.5, 0.5 * width + 1)),
                                    min(12.0, max(2.5, 0.8 * (depth + 1) + 0.8))))
    g: nx.DiGraph[int] = nx.DiGraph()
    g.add_nodes_from(range(k))
    g.add_edges_from((s, r) for s, r, _ in edges)
    size = 420 if k <= 16 else 260 if k <= 40 else 140
    nx.draw_networkx_nodes(g, pos, ax=ax, node_size=size, edgecolors="#1f4e79",
                           node_color=["#f2a541" if n == 0 else "#d6e6f5" for n in g])
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=8 if k <= 40 else 6)
    nx.draw_networkx_edges(g, pos, ax=ax, node_size=size, arrows=True, arrowsize=10,
                           edge_color="#555", style="dashed" if multicast else "solid")
    if not multicast:
        nx.draw_networkx_edge_labels(g, pos, ax=ax, font_size=7, rotate=False,
                                     edge_labels={(s, r): o for s, r, o in edges})
    ax.set_title(title, fontsize=10)
    ax.axis("off")
    fig.tight_layout()
    save_figure(plt, fig, path, foot)


def tree_plots(plt: Any, out: Path, points: list[Point], config: Mapping[str, Any],
               foot: str = "") -> tuple[list[Figure], list[str]]:
    """The tree of every algorithm run at the largest communicator size, at the largest
    message size it ran there; notes for those without a shape to draw."""
    hosts = [p.hosts for p in points if p.hosts]
    if not hosts:
        return [], ["No communicator size was recorded, so no tree is drawn."]
    k = max(hosts)
    figures, notes = [], []
    for alg in sorted({p.algorithm for p in points if p.hosts == k}, key=alg_order):
        nbytes = max((p.size or 0 for p in points if p.hosts == k and p.algorithm == alg),
                     default=0)
        try:
            figure = _one_tree(plt, out, alg, k, nbytes, config, foot)
        except Exception as exc:
            plt.close("all")
            notes.append(f"{alg}: the tree could not be drawn: {exc!r}")
            continue
        if figure is None:
            why = ("MPICH's own MPI_Bcast chooses its algorithm inside the library"
                   if alg == "mpich" else "no schedule is known for it")
            notes.append(f"{alg}: not drawn, {why}.")
        else:
            figures.append(figure)
    return figures, notes


def _one_tree(plt: Any, out: Path, alg: str, k: int, nbytes: int,
              config: Mapping[str, Any], foot: str = "") -> Figure | None:
    tree = _tree(alg, k, nbytes, config)
    if tree is None:
        return None
    edges, multicast, note = tree
    path = out / f"tree-{alg}.png"
    title = f"{alg}: {k} ranks, {fmt_size(nbytes)}" + \
        (", IP multicast (repair not drawn)" if multicast else "") + \
        (" (the scatter; the ring allgather is not drawn)" if alg == "scatter-allgather" else "")
    _draw_tree(plt, path, title, k, edges, multicast, foot)
    how = ("dashed edges are one multicast" if multicast else
           "edge numbers give the order in which a parent sends to its children")
    return Figure(path, f"{alg} on {k} ranks (rank 0 the root, on top; {how}): {note}")
