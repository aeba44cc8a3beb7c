"""A tree of hardware range multicasts as an executor reads it, and its checks (pure).

Built by :mod:`collectives.range_trees.trees` (Coll et al., QsNET). Every rank finds in a
:class:`RangeTree` from whom and at which step it receives, and which ranges it multicasts to
afterwards (:meth:`RangeTree.plan`); :func:`tree_problems` checks a tree against the rules
of sec. 4-5: each destination reached once, ranges free of non-destinations, senders that
hold the data, no routing overlap within a step.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .kary_tree import KaryNTree
from .overlap import Range, backward_overlap_level, capabilities, forward_overlap_level

__all__ = ["Multicast", "RangeTree", "RankPlan", "assign_senders", "build_tree",
           "tree_problems"]


@dataclass(frozen=True)
class Multicast:
    """One hardware multicast: at ``step`` (from 1), ``sender`` sends to nodes lo..hi."""

    step: int
    sender: int
    lo: int
    hi: int
    level: int  # root switch level of [lo, hi]

    def __contains__(self, node: object) -> bool:
        return isinstance(node, int) and self.lo <= node <= self.hi


@dataclass(frozen=True)
class RankPlan:
    """What one rank does: wait for ``receive`` (None: it holds the data from the start or
    takes no part), then send ``sends`` in order, one per step."""

    receive: Multicast | None
    sends: tuple[Multicast, ...]


@dataclass(frozen=True)
class RangeTree:
    """A tree of range multicasts from ``source``; ``multicasts`` ordered by step, then lo."""

    source: int
    multicasts: tuple[Multicast, ...]

    @property
    def depth(self) -> int:
        return max((m.step for m in self.multicasts), default=0)

    def steps(self) -> list[list[Multicast]]:
        """The multicasts of step 1, 2, ... (each in address order)."""
        out: list[list[Multicast]] = [[] for _ in range(self.depth)]
        for m in self.multicasts:
            out[m.step - 1].append(m)
        return out

    def receive(self, rank: int) -> Multicast | None:
        """The multicast that brings the data to ``rank``; None for the source and outsiders.

        The source may lie inside a range (its own multicast or a later one): it ignores
        that copy.
        """
        if rank == self.source:
            return None
        return next((m for m in self.multicasts if rank in m), None)

    def sends(self, rank: int) -> tuple[Multicast, ...]:
        return tuple(m for m in self.multicasts if m.sender == rank)

    def plan(self, rank: int) -> RankPlan:
        return RankPlan(self.receive(rank), self.sends(rank))

    def to_dict(self) -> dict:
        return {"source": self.source, "depth": self.depth,
                "multicasts": [{"step": m.step, "sender": m.sender, "lo": m.lo, "hi": m.hi,
                                "level": m.level} for m in self.multicasts]}


def assign_senders(tree: KaryNTree, holders: Iterable[int],
                   ranges: Sequence[Range]) -> list[int]:
    """A sender for each range such that the senders' ways up are disjoint.

    A range rooted at level l takes a free level-l link (node // k^l) of a holder and every
    link below it on that holder's way up. Ranges go from the highest level down, so a free
    link at level l has nothing used beneath it; the nearest such holder is taken. Raises
    ValueError when the ranges have a forward overlap (eq. 3) with these holders.
    """
    free = sorted(set(holders))
    used: list[set[int]] = [set() for _ in range(tree.dims)]
    senders: dict[Range, int] = {}
    order = sorted(ranges, key=lambda r: (-tree.root_level(*r), r[0]))
    for lo, hi in order:
        level = tree.root_level(lo, hi)
        size = tree.arity ** level
        candidates = [s for s in free if s // size not in used[level]]
        if not candidates:
            raise ValueError(f"no free way up to the level-{level} root switch of [{lo}, {hi}]")
        sender = min(candidates, key=lambda s: (0 if lo <= s <= hi else min(abs(s - lo),
                                                                           abs(s - hi)), s))
        for lv in range(level + 1):
            used[lv].add(sender // tree.arity ** lv)
        free.remove(sender)
        senders[(lo, hi)] = sender
    return [senders[r] for r in ranges]


def build_tree(tree: KaryNTree, source: int, steps: Sequence[Sequence[Range]]) -> RangeTree:
    """The tree of these steps (the ranges each step reaches), with senders assigned."""
    holders = frozenset([source])
    multicasts: list[Multicast] = []
    for number, reached in enumerate(steps, start=1):
        reached = sorted(reached)
        for (lo, hi), sender in zip(reached, assign_senders(tree, holders, reached),
                                    strict=True):
            multicasts.append(Multicast(number, sender, lo, hi, tree.root_level(lo, hi)))
        holders = holders.union(*(range(lo, hi + 1) for lo, hi in reached))
    return RangeTree(source, tuple(multicasts))


def tree_problems(tree: KaryNTree, rtree: RangeTree, destinations: Iterable[int]) -> list[str]:
    """Everything wrong with a tree for these destinations; empty when it is valid.

    Valid: every destination other than the source is reached exactly once, no range holds a
    non-destination, a sender holds the data before its step and sends once per step, and no
    step has a backward (eq. 1) or forward (eqs. 2-3) routing overlap.
    """
    dests = set(destinations)
    problems: list[str] = []
    reached: dict[int, int] = {}
    holders = {rtree.source}
    for number, step in enumerate(rtree.steps(), start=1):
        if not step:
            problems.append(f"step {number} is empty")
        senders = [m.sender for m in step]
        if len(set(senders)) != len(senders):
            problems.append(f"step {number}: a node sends twice")
        for m in step:
            if m.sender not in holders:
                problems.append(f"step {number}: {m.sender} sends before it has the data")
            outside = [n for n in range(m.lo, m.hi + 1) if n not in dests]
            if outside:
                problems.append(f"step {number}: [{m.lo}, {m.hi}] holds non-destinations "
                                f"{outside[:5]}")
            if m.level != tree.root_level(m.lo, m.hi):
                problems.append(f"step {number}: wrong root level for [{m.lo}, {m.hi}]")
            for n in range(m.lo, m.hi + 1):
                reached[n] = reached.get(n, 0) + 1
        ranges = sorted((m.lo, m.hi) for m in step)
        for a, b in itertools.combinations(ranges, 2):
            if backward_overlap_level(tree, a, b) is not None:
                problems.append(f"step {number}: backward overlap between {a} and {b}")
        if forward_overlap_level(tree, capabilities(tree, holders), ranges) is not None:
            problems.append(f"step {number}: forward overlap")
        for m in step:
            holders.update(range(m.lo, m.hi + 1))
    twice = sorted(n for n, k in reached.items() if k > 1)
    missed = sorted(dests - set(reached) - {rtree.source})
    if twice:
        problems.append(f"reached more than once: {twice[:5]}")
    if missed:
        problems.append(f"never reached: {missed[:5]}")
    return problems
