"""Multi-node multicast plans on a torus or mesh (pure): many sources, each with its own
destination set, as timed point-to-point sends (Tseng2001).

- `direct_plan`: every source multicasts with a U-torus tree over its destinations, the
  baseline of Tseng2001 (on a mesh a U-mesh tree, named `u-mesh`: the scheme the report
  names for meshes, and a U-torus order would route against the mesh's missing wrap links).
- `partitioned_plan`: Tseng2001's three phases over a `Partition`: (1) the source unicasts to a
  representative in its chosen DDN, (2) the representative multicasts on that DDN (U-torus
  on a torus, U-mesh on a mesh: the DDN is a dilated copy of its grid) to the DDN's node in
  every block holding a destination, (3) each of those multicasts inside its block (U-mesh)
  to the block's destinations. The DDN is chosen at random (seeded) or balanced
  (`choose_ddns`).

Trees: U-torus sorts the nodes in dimension order (column, then row: the xy routing order)
relative to the holder; U-mesh sorts them absolutely. Both halve recursively: the holder
keeps the larger half (its own) and sends to the end of the other half nearest to it, and
each half recurses; `contention.trees` builds them. (After McKinley et al. and Robinson et
al., cited by Tseng2001 as [3], [5]; the report itself does not spell them out.) U-mesh is
contention-free on a mesh, a block or a mesh's DDN; U-torus is not always under the
testbed's shortest-way xy routing (it relies on Robinson's virtual channels), and the model
in `partitioning.step_model` counts what it shares.

Timing is one-port, as Tseng2001's network model: in one step a node sends at most one
message and receives at most one. A list scheduler turns all trees into global steps: a node
forwards a multicast's message only from the step after it received it, keeps its own send
order per multicast, and among ready sends the one at the smallest tree depth goes first
(ties: the lower multicast index). An executor reads its part with `MultinodePlan.program`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from ..contention import trees as ct
from ..contention.trees import ContentionTree
from .grid import Grid, Partition

Choice = Literal["random", "balanced"]
CHOICES: tuple[Choice, ...] = ("random", "balanced")
DIRECT = "u-torus"
DIRECT_MESH = "u-mesh"
TITLES = {DIRECT: "U-torus", DIRECT_MESH: "U-mesh"}  # the direct schemes as prose names them
PARTITIONED = "partitioned"


def direct_name(grid: Grid) -> str:
    """The direct scheme's name on `grid`: u-torus on a torus, u-mesh on a mesh."""
    return DIRECT if grid.wrap else DIRECT_MESH


@dataclass(frozen=True)
class Multicast:
    """Source and sorted destinations; a source never lists itself (it holds the message)."""

    source: int
    destinations: tuple[int, ...]


@dataclass(frozen=True, order=True)
class Transfer:
    """One point-to-point send of multicast `multicast` (whose source is `source`).
    Phase 0 is a direct plan's send; 1, 2, 3 are the phases of a partitioned plan."""

    step: int
    multicast: int
    source: int
    sender: int
    receiver: int
    phase: int


@dataclass(frozen=True)
class MultinodePlan:
    scheme: str
    grid: Grid
    multicasts: tuple[Multicast, ...]
    transfers: tuple[Transfer, ...]  # sorted by step, then multicast
    dilation: int | None = None
    choice: Choice | None = None
    ddns: tuple[int, ...] = ()  # partitioned: the DDN of every multicast
    representatives: tuple[int, ...] = ()  # partitioned: the phase-1 target of every multicast

    @property
    def steps(self) -> int:
        return self.transfers[-1].step + 1 if self.transfers else 0

    def program(self, node: int) -> tuple[Transfer, ...]:
        """Every send and receive of `node`, by step; within a step its send comes first (it
        forwards what it received earlier), so post both without blocking on one."""
        mine = [t for t in self.transfers if node in (t.sender, t.receiver)]
        return tuple(sorted(mine, key=lambda t: (t.step, t.receiver == node)))


def multicasts(grid: Grid, pairs: Iterable[tuple[int, Iterable[int]]]) -> tuple[Multicast, ...]:
    """Checked (source, destinations) pairs; a source in its own set is dropped from it."""
    out = []
    for source, dests in pairs:
        grid.check(source)
        out.append(Multicast(source, tuple(sorted({grid.check(d) for d in dests} - {source}))))
    return tuple(out)


# ---- trees: (sender, receiver, depth) in each sender's send order -----------------------------
Tree = list[tuple[int, int, int]]


def _tree(built: ContentionTree[int], depth: int) -> Tree:
    """A `contention.trees` tree as (sender, receiver, depth), in depth order. Its `step`
    counts from the root's first send (1), which here is at `depth`."""
    return sorted(((s.sender, s.receiver, depth + s.step - 1) for s in built.sends),
                  key=lambda s: s[2])


@functools.lru_cache(maxsize=1 << 16)
def _shape(kind: str, rows: int, cols: int, root: int,
           nodes: frozenset[int]) -> tuple[tuple[int, int, int], ...]:
    """A U-torus or U-mesh tree as (sender, receiver, depth from 0): the same block and
    destinations recur in many multicasts (the hot spot), and in every plan of a run."""
    build = ct.u_torus if kind == "torus" else ct.u_mesh
    return tuple(_tree(build(set(nodes), root, rows, cols), 0))


def _shifted(shape: tuple[tuple[int, int, int], ...], depth: int) -> Tree:
    return [(s, r, depth + d) for s, r, d in shape]


def u_torus(grid: Grid, root: int, destinations: Iterable[int], depth: int = 0) -> Tree:
    """U-torus multicast from `root`: dimension order relative to the root, which leads."""
    nodes = frozenset(destinations) | {root}
    return _shifted(_shape("torus", grid.rows, grid.cols, root, nodes), depth)


def u_mesh(grid: Grid, root: int, destinations: Iterable[int], depth: int = 0) -> Tree:
    """U-mesh multicast from `root` (a mesh, or inside a block): absolute dimension order."""
    nodes = frozenset(destinations) | {root}
    return _shifted(_shape("mesh", grid.rows, grid.cols, root, nodes), depth)


def u_grid(grid: Grid, root: int, destinations: Iterable[int], depth: int = 0) -> Tree:
    """The grid's own multicast tree: U-torus on a torus, U-mesh on a mesh."""
    return (u_torus if grid.wrap else u_mesh)(grid, root, destinations, depth)


# ---- DDN choice (phase 1) -------------------------------------------------------------------
def _nearest(grid: Grid, source: int, nodes: Iterable[int]) -> int:
    return min(nodes, key=lambda n: (grid.distance(source, n), n))


def choose_ddns(partition: Partition, mcasts: Sequence[Multicast], choice: Choice = "random",
                seed: int = 0) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(DDN, representative) of every multicast, as two tuples.

    random: a seeded uniform DDN each, the representative its node nearest the source
    (Tseng2001's distributed variant). balanced (the "B" schemes): in multicast order, a least-used
    DDN (ties: the one with a node nearest the source), then among that DDN's least-used
    representatives the nearest to the source, so both counts differ by at most one."""
    if choice not in CHOICES:
        raise ValueError(f"unknown DDN choice {choice!r}; choose from {', '.join(CHOICES)}")
    grid, h = partition.grid, partition.ddn_count
    nodes = [partition.ddn_nodes(a) for a in range(h)]
    ddns: list[int] = []
    reps: list[int] = []
    if choice == "random":
        rng = random.Random(seed)
        for mc in mcasts:
            a = rng.randrange(h)
            ddns.append(a)
            reps.append(_nearest(grid, mc.source, nodes[a]))
        return tuple(ddns), tuple(reps)
    used = [0] * h
    rep_used: dict[int, int] = {}
    for mc in mcasts:
        a = min(range(h), key=lambda a: (used[a], min(grid.distance(mc.source, n)
                                                     for n in nodes[a]), a))
        least = min(rep_used.get(n, 0) for n in nodes[a])
        rep = _nearest(grid, mc.source, [n for n in nodes[a] if rep_used.get(n, 0) == least])
        used[a] += 1
        rep_used[rep] = rep_used.get(rep, 0) + 1
        ddns.append(a)
        reps.append(rep)
    return tuple(ddns), tuple(reps)


# ---- plans ----------------------------------------------------------------------------------
Logical = list[tuple[int, int, int, int]]  # (sender, receiver, depth, phase)


def direct_plan(grid: Grid, pairs: Iterable[tuple[int, Iterable[int]]]) -> MultinodePlan:
    """Every source multicasts with U-torus (U-mesh on a mesh) over its destinations, all at
    once."""
    mcs = multicasts(grid, pairs)
    trees = [[(s, r, d, 0) for s, r, d in u_grid(grid, mc.source, mc.destinations)]
             for mc in mcs]
    return MultinodePlan(direct_name(grid), grid, mcs, _schedule(mcs, trees))


def _partitioned_tree(partition: Partition, mc: Multicast, ddn: int, rep: int) -> Logical:
    grid = partition.grid
    tree: Logical = []
    depth = 0
    if rep != mc.source:
        tree.append((mc.source, rep, 0, 1))
        depth = 1
    blocks: dict[int, list[int]] = {}
    for d in mc.destinations:
        blocks.setdefault(partition.block_of(d), []).append(d)
    # Phase 2 to each block's DDN node; one that already holds (the source) needs no copy.
    heads = {b: partition.member(ddn, b) for b in blocks}
    holders = {mc.source, rep}
    tree += [(s, r, d, 2) for s, r, d in u_grid(grid, rep, set(heads.values()) - holders,
                                                depth)]
    reached = {r: d + 1 for s, r, d, _ in tree}
    reached.setdefault(mc.source, 0)
    reached.setdefault(rep, depth)
    free = dict(reached)  # the depth after a holder's last send so far
    for s, _, d, _ in tree:
        free[s] = max(free[s], d + 1)
    for b, dests in sorted(blocks.items()):
        head = heads[b]  # the source, the representative or a phase-2 receiver: it holds
        start = free[head]
        tree += [(s, r, d, 3) for s, r, d in u_mesh(grid, head, dests, start)]
    return tree


def partitioned_plan(partition: Partition, pairs: Iterable[tuple[int, Iterable[int]]],
                     choice: Choice = "random", seed: int = 0) -> MultinodePlan:
    """Tseng2001's phases 1-3 on `partition`, DDNs chosen by `choice` (`choose_ddns`)."""
    mcs = multicasts(partition.grid, pairs)
    ddns, reps = choose_ddns(partition, mcs, choice, seed)
    trees = [_partitioned_tree(partition, mc, a, r)
             for mc, a, r in zip(mcs, ddns, reps, strict=True)]
    return MultinodePlan(PARTITIONED, partition.grid, mcs, _schedule(mcs, trees),
                         partition.dilation, choice, ddns, reps)


def _schedule(mcs: Sequence[Multicast], trees: Sequence[Logical]) -> tuple[Transfer, ...]:
    """One-port list schedule of all trees (see the module docstring)."""
    # queue[(i, node)]: that node's sends in multicast i, in order, reversed to pop from the end
    queue: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for i, tree in enumerate(trees):
        for s, r, d, phase in reversed(tree):
            queue.setdefault((i, s), []).append((r, d, phase))
    # (depth of the next send, multicast, sender, its queue), sorted: all may send this step
    Entry = tuple[int, int, int, list[tuple[int, int, int]]]
    ready: list[Entry] = sorted((q[-1][1], i, mc.source, q) for i, mc in enumerate(mcs)
                                if (q := queue.get((i, mc.source))))
    out: list[Transfer] = []
    step = 0
    while ready:
        sending: set[int] = set()
        receiving: set[int] = set()
        waiting: list[Entry] = []
        later: list[Entry] = []
        for entry in ready:
            _, i, sender, sends = entry
            if sender in sending or sends[-1][0] in receiving:
                waiting.append(entry)
                continue
            receiver, _, phase = sends.pop()
            sending.add(sender)
            receiving.add(receiver)
            out.append(Transfer(step, i, mcs[i].source, sender, receiver, phase))
            if sends:
                later.append((sends[-1][1], i, sender, sends))
            if more := queue.get((i, receiver)):
                later.append((more[-1][1], i, receiver, more))
        later.sort()
        ready = sorted(waiting + later)  # two sorted runs: a linear merge
        step += 1
    return tuple(sorted(out, key=lambda t: (t.step, t.multicast, t.sender)))
