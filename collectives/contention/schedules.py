"""The contention-free trees (:mod:`collectives.contention.trees`) as broadcast schedules.

:func:`collectives.trees.schedules.build` hands "opt-mesh", "u-mesh", "u-torus", "opt-min" and
"u-min" here with its keyword parameters, which say where the ranks sit:

* ``mesh=(rows, cols)`` (opt-mesh, u-mesh), ``torus=(rows, cols)`` (u-torus): the grid as
  topologies builds it, node ``row * cols + col``, XY routing;
* ``bmin=(k, n)`` (opt-min, u-min): a k-ary n-stage BMIN, nodes ``0 .. k^n - 1``;
* ``nodes=(node of rank 0, node of rank 1, ...)``: default rank i on node i;
* ``t_hold``, ``t_end`` (opt-mesh, opt-min), as for opt-tree.

Without its geometry an algorithm takes the ranks' nodes as a line (a 1 x N mesh or ring,
N = largest node + 1; the smallest 2-ary BMIN holding them), so a generic caller still gets a
valid schedule; the schedule's params record the geometry used. A geometry of another kind
(say ``mesh=`` for u-torus) is an error rather than silently ignored.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..algorithms import Algorithm, Named, names, resolve
from ..ops import Op, Recv, Schedule, Send
from . import trees as ct

ALGORITHMS = names("contention")


def _pair(algorithm: str, name: str, value: Any) -> tuple[int, int]:
    try:
        a, b = value
    except (TypeError, ValueError):
        raise ValueError(f"{algorithm}: {name} must be a pair of ints, got {value!r}") from None
    for v in (a, b):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{algorithm}: {name} must be a pair of positive ints, got {value!r}")
    return a, b


def rank_nodes(size: int, nodes: Sequence[int] | None) -> tuple[int, ...]:
    """The node of every rank (default: rank i on node i)."""
    if nodes is None:
        return tuple(range(size))
    nodes = tuple(nodes)
    if len(nodes) != size:
        raise ValueError(f"nodes must give one node per rank ({size}), got {len(nodes)}")
    if any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in nodes):
        raise ValueError(f"nodes must be non-negative ints, got {list(nodes)}")
    if len(set(nodes)) != size:
        raise ValueError(f"nodes must be distinct (one rank per node), got {list(nodes)}")
    return nodes


def geometry(algorithm: Named, nodes: Sequence[int], params: Mapping[str, Any]
             ) -> tuple[int, int]:
    """The algorithm's (a name, or its record) geometry from ``params``, or the line
    default described above."""
    record = resolve("bcast", algorithm)
    kind, algorithm = record.geometry, record.name
    if params.get(kind) is None:
        other = [g for g in ("mesh", "torus", "bmin") if g != kind and params.get(g) is not None]
        if other:
            raise ValueError(f"{algorithm} runs on a {kind}, got {other[0]}=; pass {kind}="
                             f"{'(k, n)' if kind == 'bmin' else '(rows, cols)'}")
        top = max(nodes) + 1
        return (2, max(1, (top - 1).bit_length())) if kind == "bmin" else (1, top)
    value = _pair(algorithm, kind, params[kind])
    if kind == "bmin" and value[0] < 2:
        raise ValueError(f"{algorithm}: a BMIN needs k >= 2, got bmin={value!r}")
    return value


def build_tree(algorithm: Named, size: int, root: int, **params: Any
               ) -> ct.ContentionTree[int]:
    """The tree (over node ids) of ``algorithm`` (a name, or its record) for ``size`` ranks
    rooted at rank ``root``."""
    record = _contention(algorithm)
    algorithm = record.name
    nodes = rank_nodes(size, params.get("nodes"))
    a, b = geometry(record, nodes, params)
    times: dict[str, float] = {}
    if record.timing:
        if params.get("t_hold") is None or params.get("t_end") is None:
            raise ValueError(f"{algorithm} needs t_hold and t_end (measured by 'mcastlab params')")
        times = {"t_hold": params["t_hold"], "t_end": params["t_end"]}
    build = {"opt-mesh": ct.opt_mesh, "u-mesh": ct.u_mesh, "u-torus": ct.u_torus,
             "opt-min": ct.opt_min, "u-min": ct.u_min}[algorithm]
    return build(nodes, nodes[root], a, b, **times)


def to_schedule(tree: ct.ContentionTree[int], nodes: Sequence[int], nbytes: int,
                params: Mapping[str, Any] | None = None) -> Schedule:
    """Whole-message Recv/Send programs per rank (``nodes[rank]`` is the rank's node): a rank
    receives from its parent, then sends to its children in the tree's order. The address
    lists need not travel: every rank builds the same tree."""
    rank = {node: r for r, node in enumerate(nodes)}
    if set(rank) != set(tree.chain):
        raise ValueError("the tree's nodes are not the ranks' nodes")
    progs: list[list[Op]] = [[] for _ in nodes]
    for send in tree.sends:  # by start time: per sender, in send order
        progs[rank[send.receiver]].insert(0, Recv(rank[send.sender], 0, nbytes))
        progs[rank[send.sender]].append(Send(rank[send.receiver], 0, nbytes))
    return Schedule(tree.algorithm, len(nodes), rank[tree.root], nbytes,
                    tuple(tuple(p) for p in progs), dict(params or {}))


def _contention(algorithm: Named) -> Algorithm:
    """The record of a contention-aware tree (ValueError naming them for another name)."""
    name = algorithm.name if isinstance(algorithm, Algorithm) else algorithm
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)}")
    return resolve("bcast", algorithm)


def schedule(algorithm: Named, size: int, root: int, nbytes: int, **params: Any) -> Schedule:
    """The schedule of ``algorithm`` (a name, or its record); its params record the
    geometry and nodes used."""
    record = _contention(algorithm)
    t = build_tree(record, size, root, **params)
    nodes = rank_nodes(size, params.get("nodes"))
    used = {**params, record.geometry: geometry(record, nodes, params), "nodes": nodes}
    return to_schedule(t, nodes, nbytes, used)


# ---- contention a tree meets on a routed network -------------------------------------------
@dataclass(frozen=True)
class Timed:
    """A send of a schedule in the t_hold/t_end model: it holds its path from `start` for
    t_hold (the sender is busy that long; the receiver has the message t_end after start)."""

    sender: int
    receiver: int
    start: float


def timed_sends(schedule: Schedule, t_hold: float, t_end: float) -> list[Timed]:
    """The model's start time of every send of a whole-message tree schedule (nodes are
    ranks): a rank's q-th send (q = 0, 1, ...) starts q * t_hold after it has the message."""
    per_sender: dict[int, list[int]] = {}
    for sender, receiver, _, _ in schedule.transfers():
        per_sender.setdefault(sender, []).append(receiver)
    has = {schedule.root: 0.0}
    out: list[Timed] = []
    todo = [schedule.root]
    while todo:
        sender = todo.pop()
        for q, receiver in enumerate(per_sender.get(sender, ())):
            start = has[sender] + q * t_hold
            out.append(Timed(sender, receiver, start))
            has[receiver] = start + t_end
            todo.append(receiver)
    return sorted(out, key=lambda s: (s.start, s.sender))


def contended_pairs(sends: Sequence[Any], t_hold: float,
                    route: Callable[[Any, Any], Iterable[Hashable]],
                    ) -> list[tuple[Any, Any, frozenset[Hashable]]]:
    """Pairs of sends (anything with sender, receiver, start) whose paths are busy at the same
    time (each for t_hold from its start) and share a directed link of `route`. Intervals
    that only touch (rounding aside) do not overlap."""
    paths = [frozenset(route(s.sender, s.receiver)) for s in sends]
    busy = t_hold * (1 - 1e-9)  # one holds its path until the next starts: not an overlap
    out = []
    for (x, px), (y, py) in itertools.combinations(zip(sends, paths, strict=True), 2):
        if x.start < y.start + busy and y.start < x.start + busy and px & py:
            out.append((x, y, px & py))
    return out
