"""Contention-free multicast trees on meshes, tori and BMINs (pure): Nupairoj1998, chapter 5.

OPT-Tree (:mod:`collectives.opttree`) fixes the *shape* of the best tree from t_hold and
t_end, but on a network that routes each message over a fixed path two sends of the tree may
still share a link and slow each other down. The chapter-5 algorithms keep the shape and place
it on a *chain*: the participants sorted in an order that matches the routing. Each holder of
a part of the chain splits it in two contiguous parts, keeps the part with itself, and sends to
the *nearest end* of the other part (the lowest node of a part above it, the highest of a part
below); the message carries the address list D of the receiver's part, and the receiver does the
same on D. Then no two sends under way at the same time share a link (Theorems 4-7, given the
routing below): paths of different parts are disjoint, and one sender's consecutive sends are
t_hold apart, when its previous path is free again.

* OPT-Mesh / OPT-Min (Algorithms 5.2.1 / 5.3.1): split sizes from OPT-Tree (the part with the
  holder has ``j_i`` of the ``i`` nodes).
* U-Mesh / U-Min (McKinley et al.; Xu & Ni): the same with halves (the lower part has
  ``ceil(i / 2)`` nodes), the recursive-doubling (binomial) baseline.
* U-Torus (Robinson et al.): U-Mesh on the chain sorted relative to the source, so the source
  comes first and every holder sends upwards to the first node of the upper half.

Node ids follow :mod:`topologies`: a grid (mesh, torus) of ``rows x cols`` numbers node
``row * cols + col``, and its XY routing moves along the column (X) first, so the dimension
order sorts by ``(col, row)``; a BMIN (k-ary n-stage, turnaround routing) numbers its nodes
``0 .. k^n - 1`` and the lexicographic order of their k-ary addresses is numeric order.

Timing is the t_hold/t_end model: a node's q-th send (q = 0, 1, ...) starts ``q * t_hold``
after the node has the message and the receiver has it ``t_end`` after the send started.

Contention-free means: sends whose paths are busy at the same time (a path is busy from the
start of its send for t_hold) share no directed link. Sends of different senders *can* share
links at different times (a holder's long send spans the part it hands over, whose later
sends come after t_end). What the routing must be (tests/unit/collectives/contention/test_trees):

* mesh, topologies' XY routing: OPT-Mesh and U-Mesh are contention-free.
* BMIN: Theorem 6 needs turnaround routing that picks the up (forward) links by the *source*.
  topologies' "updown" picks them by the destination (the controller matches destinations
  only); that is the reverse of the other's path, and under it two sends leaving adjacent parts
  in opposite directions can share an up link, so OPT-Min / U-Min can contend there.
* torus: U-Torus relies on the virtual channels of Robinson et al. Under topologies' shortest-
  way XY routing it is contention-free on a ring; on a 2-D torus a send that turns into a
  column can share a Y link with a send inside that column.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from ..opttree import opt_table

__all__ = [
    "ContentionTree",
    "TimedSend",
    "bmin_chain",
    "chain_tree",
    "grid_coords",
    "halving_split",
    "holder_sends",
    "mesh_chain",
    "opt_mesh",
    "opt_min",
    "opt_split",
    "torus_chain",
    "u_mesh",
    "u_min",
    "u_torus",
]

N = TypeVar("N", bound=Hashable)

#: ``split(i, s)``: for a part of ``i`` >= 2 chain nodes whose holder is its ``s``-th node
#: (0-based), how many nodes form the lower part (1 .. i - 1); the other ones the upper part.
Split = Callable[[int, int], int]


@dataclass(frozen=True)
class TimedSend(Generic[N]):
    """One send of the tree. ``addresses`` is D, the receiver's part of the chain (in chain
    order, the receiver included), carried with the message; ``step`` counts sends: a node's
    q-th send (q = 1, 2, ...) is step ``q`` after the step in which it received (root: 0)."""

    sender: N
    receiver: N
    start: float
    arrival: float
    step: int
    addresses: tuple[N, ...]


@dataclass(frozen=True)
class ContentionTree(Generic[N]):
    """A multicast tree placed on a chain: its sends (by start time, then the sender's place
    in the chain) and its model latency."""

    algorithm: str
    root: N
    chain: tuple[N, ...]
    sends: tuple[TimedSend[N], ...]
    latency: float
    t_hold: float
    t_end: float

    def children(self) -> dict[N, list[N]]:
        """Sender -> receivers in send order (senders only)."""
        out: dict[N, list[N]] = {}
        for send in self.sends:
            out.setdefault(send.sender, []).append(send.receiver)
        return out

    def arrivals(self) -> dict[N, float]:
        """When each participant has the message (the root at 0)."""
        return {self.root: 0.0, **{send.receiver: send.arrival for send in self.sends}}


# --------------------------------------------------------------------------- splits


def halving_split(i: int, s: int) -> int:
    """U-Mesh / U-Min / U-Torus: the lower half has ``ceil(i / 2)`` nodes, wherever the holder."""
    return (i + 1) // 2


def opt_split(k: int, t_hold: float, t_end: float) -> Split:
    """OPT-Mesh / OPT-Min: the holder's part has ``j_i`` nodes (OPT-Tree, Lemma 3), taken at
    the lower end of the chain if the holder is among its lowest ``j_i`` nodes, else at the
    upper end (Algorithm 5.2.1).

    The printed algorithm assumes the holder is at one of the two ends, which holds when
    ``j_i >= i / 2`` (t_hold <= t_end). Otherwise (t_hold > t_end, the source in the middle)
    this takes the contiguous split with the holder that is best under the model: holder part
    ``j >= min(s + 1, i - s)``, minimising ``max(t[j] + t_hold, t[i - j] + t_end)`` (the first
    term 0 when j == 1), ties to the smaller ``j``, lower end first.
    """
    table = opt_table(k, t_hold, t_end)
    t, js = table.t, table.j

    def cost(i: int, j: int) -> float:
        return max(t[j] + t_hold if j > 1 else 0.0, t[i - j] + t_end)

    def split(i: int, s: int) -> int:
        j = js[i]
        if s < j:
            return j
        if s >= i - j:
            return i - j
        j = min(range(min(s + 1, i - s), i), key=lambda x: (cost(i, x), x))
        return j if s < j else i - j

    return split


# --------------------------------------------------------------------------- trees on a chain


def holder_sends(me: int, lo: int, hi: int, split: Split) -> list[tuple[int, int, int]]:
    """The sends of the holder at chain position ``me`` of the part ``lo .. hi`` (inclusive),
    in order, by recursive nearest-end splitting: (receiver's position, the receiver's part's
    lo, hi); the receiver is the end of its part nearest the holder."""
    if not lo <= me <= hi:
        raise ValueError(f"the holder {me} is not in its part {lo}..{hi}")
    out = []
    while lo < hi:
        lower = split(hi - lo + 1, me - lo)
        if not 1 <= lower <= hi - lo:
            raise ValueError(f"split gave {lower} lower nodes of {hi - lo + 1}")
        cut = lo + lower  # first node of the upper part
        if me < cut:
            out.append((cut, cut, hi))
            hi = cut - 1
        else:
            out.append((cut - 1, lo, cut - 1))
            lo = cut
    return out


def chain_tree(chain: Sequence[N], root: N, split: Split, t_hold: float = 1.0,
               t_end: float = 1.0, algorithm: str = "chain-tree") -> ContentionTree[N]:
    """The tree that recursive nearest-end splitting of ``chain`` builds from ``root``.

    ``chain`` must already be in the routing's order (see :func:`mesh_chain`, :func:`bmin_chain`,
    :func:`torus_chain`). The default times 1 and 1 make start times count steps from 0.
    """
    chain = tuple(chain)
    if len(set(chain)) != len(chain):
        raise ValueError("the chain lists a node twice")
    if root not in chain:
        raise ValueError(f"the root {root!r} is not in the chain")
    for name, value in (("t_hold", t_hold), ("t_end", t_end)):
        if isinstance(value, bool) or not isinstance(value, int | float) or \
                not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    # Each holder's sends, in order: (receiver position, receiver's part lo..hi).
    plan: dict[int, list[tuple[int, int, int]]] = {}
    stack = [(chain.index(root), 0, len(chain) - 1)]
    while stack:
        me, lo, hi = stack.pop()
        if lo < hi:
            plan[me] = holder_sends(me, lo, hi, split)
            stack.extend(plan[me])
    sends: list[TimedSend[N]] = []
    have = {chain.index(root): (0.0, 0)}  # position -> (arrival, step)
    order = [chain.index(root)]
    for me in order:  # breadth first: a sender's arrival is known before its sends
        arrival, step = have[me]
        for q, (to, lo, hi) in enumerate(plan.get(me, ())):
            start = arrival + q * t_hold
            have[to] = (start + t_end, step + q + 1)
            order.append(to)
            sends.append(TimedSend(chain[me], chain[to], start, start + t_end, step + q + 1,
                                   chain[lo:hi + 1]))
    position = {node: i for i, node in enumerate(chain)}
    sends.sort(key=lambda send: (send.start, position[send.sender]))
    latency = max((send.arrival for send in sends), default=0.0)
    return ContentionTree(algorithm, root, chain, tuple(sends), latency, float(t_hold),
                          float(t_end))


# --------------------------------------------------------------------------- chains


def _check_nodes(nodes: Iterable[int], count: int, what: str) -> tuple[int, ...]:
    nodes = tuple(nodes)
    for node in nodes:
        if isinstance(node, bool) or not isinstance(node, int) or not 0 <= node < count:
            raise ValueError(f"node {node!r} is not a node of the {what} (0..{count - 1})")
    if len(set(nodes)) != len(nodes):
        raise ValueError(f"the participants list a node twice: {sorted(nodes)}")
    return nodes


def _check_grid(rows: int, cols: int) -> None:
    for name, value in (("rows", rows), ("cols", cols)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be a positive int, got {value!r}")


def grid_coords(node: int, cols: int) -> tuple[int, int]:
    """(row, col) of a grid node numbered row-major, as topologies numbers mesh and torus."""
    return divmod(node, cols)


def mesh_chain(nodes: Iterable[int], rows: int, cols: int) -> tuple[int, ...]:
    """The dimension-ordered chain for XY routing: by column (routed first), then row."""
    _check_grid(rows, cols)
    nodes = _check_nodes(nodes, rows * cols, f"{rows}x{cols} grid")
    return tuple(sorted(nodes, key=lambda node: grid_coords(node, cols)[::-1]))


def torus_chain(nodes: Iterable[int], root: int, rows: int, cols: int) -> tuple[int, ...]:
    """The dimension-ordered chain relative to the root: by ``(col - root col) mod cols``,
    then ``(row - root row) mod rows``; the root comes first."""
    _check_grid(rows, cols)
    nodes = _check_nodes(nodes, rows * cols, f"{rows}x{cols} torus")
    if root not in nodes:
        raise ValueError(f"the root {root!r} is not among the nodes")
    r0, c0 = grid_coords(root, cols)

    def key(node: int) -> tuple[int, int]:
        r, c = grid_coords(node, cols)
        return (c - c0) % cols, (r - r0) % rows

    return tuple(sorted(nodes, key=key))


def bmin_chain(nodes: Iterable[int], k: int, n: int) -> tuple[int, ...]:
    """The lexicographic chain of a k-ary n-stage BMIN: k-ary addresses, i.e. node ids, sorted."""
    for name, value, least in (("k", k, 2), ("n", n, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be an int >= {least}, got {value!r}")
    return tuple(sorted(_check_nodes(nodes, k**n, f"{k}-ary {n}-stage BMIN")))


# --------------------------------------------------------------------------- the algorithms


def _with_root(nodes: Iterable[int], root: int) -> list[int]:
    nodes = list(nodes)
    return nodes if root in nodes else [root, *nodes]


def opt_mesh(nodes: Iterable[int], root: int, rows: int, cols: int, t_hold: float,
             t_end: float) -> ContentionTree[int]:
    """OPT-Mesh (Algorithm 5.2.1) on a ``rows x cols`` mesh with XY routing.
    ``nodes``: the participants (the root is added if missing)."""
    chain = mesh_chain(_with_root(nodes, root), rows, cols)
    return chain_tree(chain, root, opt_split(len(chain), t_hold, t_end), t_hold, t_end,
                      "opt-mesh")


def u_mesh(nodes: Iterable[int], root: int, rows: int, cols: int, t_hold: float = 1.0,
           t_end: float = 1.0) -> ContentionTree[int]:
    """U-Mesh: halving on the dimension-ordered chain (times default to steps)."""
    chain = mesh_chain(_with_root(nodes, root), rows, cols)
    return chain_tree(chain, root, halving_split, t_hold, t_end, "u-mesh")


def u_torus(nodes: Iterable[int], root: int, rows: int, cols: int, t_hold: float = 1.0,
            t_end: float = 1.0) -> ContentionTree[int]:
    """U-Torus: halving on the chain relative to the root (times default to steps)."""
    chain = torus_chain(_with_root(nodes, root), root, rows, cols)
    return chain_tree(chain, root, halving_split, t_hold, t_end, "u-torus")


def opt_min(nodes: Iterable[int], root: int, k: int, n: int, t_hold: float,
            t_end: float) -> ContentionTree[int]:
    """OPT-Min (Algorithm 5.3.1) on a k-ary n-stage BMIN with turnaround routing."""
    chain = bmin_chain(_with_root(nodes, root), k, n)
    return chain_tree(chain, root, opt_split(len(chain), t_hold, t_end), t_hold, t_end,
                      "opt-min")


def u_min(nodes: Iterable[int], root: int, k: int, n: int, t_hold: float = 1.0,
          t_end: float = 1.0) -> ContentionTree[int]:
    """U-Min: halving on the lexicographic chain (times default to steps)."""
    chain = bmin_chain(_with_root(nodes, root), k, n)
    return chain_tree(chain, root, halving_split, t_hold, t_end, "u-min")
