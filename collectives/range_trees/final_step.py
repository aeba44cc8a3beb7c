"""Can one step reach every pending range? The last step of the optimal search (pure).

In the last step of a tree every pending node must be reached, so Algorithm 1 (Coll et al.,
sec. 5.2) has to find, among all its overlap resolutions of the whole pending list, one with
no backward overlap, no forward overlap and at most one range per holder. Enumerating them
is exponential, and proving that none exists is where the search spends its time, so:

1. :func:`collectives.range_trees.bounds.pieces_lower_bound` rejects hopeless lists at once;
2. the paper's depth-first resolution (:func:`search`) gets a short try: a passing list,
   when there is one, is usually on the first path;
3. relaxations rule out more: forward splits never create backward overlaps, and the
   forward test (eqs. 2-3) asks, for each level l, that the ranges rooted at l or above be
   at most D_l = c_l + ... + c_{L-1}, and all ranges at most D_0 = |holders|. Keeping only
   D_0 and one D_l, the fewest ranges for each count rooted at or above l form a small
   Pareto front per range shape, summed by dynamic programming over the backward
   resolutions (these work left to right, so a range no later range can touch is settled
   and the rest memoised). An empty front proves that no list of the paper's moves passes.
4. otherwise the depth-first search goes on until it decides or its budget runs out
   (:class:`SearchLimitExceeded`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from .bounds import pieces_lower_bound
from .kary_tree import KaryNTree
from .overlap import (
    Range,
    first_backward_overlap,
    forward_overlap_level,
    resolve_backward,
    split_candidates,
    split_down,
)

__all__ = ["Budget", "SearchLimitExceeded", "final_step", "relaxation_rules_out", "search"]

QUICK = 200  # lists the search may visit before the relaxations are tried
Stair = tuple[tuple[int, int], ...]
"""A relaxation's Pareto front: (ranges rooted at or above its level, ranges in all) pairs,
the first increasing and the second decreasing: the fewest ranges for each count."""


class SearchLimitExceeded(RuntimeError):
    """The optimal search used up its state budget before it could decide."""


def _stair(items: Iterable[tuple[int, int]], cap: int, top: int) -> Stair:
    """The Pareto front of (count, total) pairs within count <= cap and total <= top."""
    best: dict[int, int] = {}
    for k, v in items:
        if k <= cap and v <= top and v < best.get(k, top + 1):
            best[k] = v
    out = []
    low = top + 1
    for k in sorted(best):
        if best[k] < low:
            low = best[k]
            out.append((k, low))
    return tuple(out)


class _Relaxation:
    """The forward test at one ``level`` and at level 0 only (the other D_l ignored): if no
    resolution passes it, none passes the full test."""

    def __init__(self, tree: KaryNTree, c: Sequence[int], level: int,
                 budget: Budget | None = None) -> None:
        self.tree, self.level, self.budget = tree, level, budget or Budget(None)
        self.cap, self.top = sum(c[level:]), sum(c)
        self.zero: Stair = ((0, 0),)
        self.shapes: dict[tuple[int, int, int], Stair] = {}
        self.lists: dict[tuple[Range, ...], Stair] = {}

    def add(self, a: Stair, b: Stair) -> Stair:
        """Both lists together (Minkowski sum of the fronts)."""
        return _stair(((x + y, p + q) for x, p in a for y, q in b), self.cap, self.top)

    def piece(self, rng: Range) -> Stair:
        lo, hi = rng
        level = self.tree.root_level(lo, hi)
        key = (level, lo % self.tree.arity ** (level + 1), hi - lo)
        front = self.shapes.get(key)
        if front is None:
            options = [(int(level >= self.level), 1)]
            if level > 0:
                split = self.zero
                for part in split_down(self.tree, rng):
                    split = self.add(split, self.piece(part))
                options += split
            front = self.shapes[key] = _stair(options, self.cap, self.top)
        return front

    def ranges(self, ranges: Sequence[Range]) -> Stair:
        front = self.zero
        for rng in ranges:
            front = self.add(front, self.piece(rng))
            if not front:
                break
        return front

    def resolve(self, ranges: tuple[Range, ...]) -> Stair:
        """The front over every backward resolution of ``ranges`` (address order)."""
        front = self.lists.get(ranges)
        if front is not None:
            return front
        self.budget.spend()  # a list of ranges not seen before: one state
        overlap = first_backward_overlap(self.tree, ranges)
        if overlap is None:
            front = self.ranges(ranges)
        else:
            # Ranges before the first overlap that no later range can reach are settled:
            # both alternatives keep them, and the memo sees only what is still open.
            j = overlap[0]
            settled = {r for r in ranges[:j] if not _reaches(self.tree, r, ranges[j][0])}
            either = [item for alt in resolve_backward(self.tree, ranges, overlap)
                      for item in self.resolve(tuple(r for r in alt if r not in settled))]
            front = self.add(self.ranges(sorted(settled)), _stair(either, self.cap, self.top))
        self.lists[ranges] = front
        return front


def _reaches(tree: KaryNTree, rng: Range, start: int) -> bool:
    """Could a range starting at ``start`` or later share a link with ``rng`` (eq. 1)?"""
    lo, hi = rng
    for level in range(1, tree.dims):
        size = tree.arity ** level
        if lo // size != hi // size and hi // size == start // size:
            return True
    return False


def relaxation_rules_out(tree: KaryNTree, c: Sequence[int], pending: Sequence[Range],
                         budget: Budget | None = None) -> bool:
    """True when for some level l no resolution of ``pending`` keeps both the ranges rooted
    at or above l within D_l and all of them within D_0. Every list of ranges a relaxation
    resolves spends a state of ``budget`` (:class:`SearchLimitExceeded` when it runs out)."""
    ranges = tuple(sorted(pending))
    return any(not _Relaxation(tree, c, level, budget).resolve(ranges)
               for level in range(tree.dims - 1, 0, -1))


class Budget:
    """Search states left; shared by every part of one optimal search."""

    def __init__(self, states: int | None) -> None:
        self.left = states

    def spend(self) -> None:
        if self.left is not None:
            self.left -= 1
            if self.left < 0:
                raise SearchLimitExceeded("the optimal search ran out of its state budget")


def search(tree: KaryNTree, c: Sequence[int], ranges: list[Range], seen: set,
            budget: Budget) -> Iterator[list[Range]]:
    """The paper's resolution order (right alternative first, every forward split, smallest
    first); yields the passing lists that keep every range of ``ranges``."""
    key = tuple(ranges)
    if key in seen or len(ranges) > sum(c):
        return
    seen.add(key)
    budget.spend()
    if pieces_lower_bound(tree, c, ranges) > sum(c):
        return
    overlap = first_backward_overlap(tree, ranges)
    if overlap is not None:
        left_try, right_try = resolve_backward(tree, ranges, overlap)
        yield from search(tree, c, right_try, seen, budget)
        yield from search(tree, c, left_try, seen, budget)
        return
    limited = forward_overlap_level(tree, c, ranges)
    if limited is None:
        yield ranges
        return
    for k in split_candidates(tree, ranges, limited):
        yield from search(tree, c, [*ranges[:k], *split_down(tree, ranges[k]), *ranges[k + 1:]],
                           seen, budget)


def final_step(tree: KaryNTree, c: Sequence[int], pending: Sequence[Range],
               budget: Budget | None = None) -> list[Range] | None:
    """Ranges reaching all of ``pending`` in one step from holders with capabilities ``c``
    (at most sum(c), no routing overlap), or None when the paper's moves cannot do it.
    Raises :class:`SearchLimitExceeded` when ``budget`` runs out first."""
    budget = budget or Budget(None)
    if pieces_lower_bound(tree, c, pending) > sum(c):
        return None
    seen: set[tuple[Range, ...]] = set()
    quick = Budget(QUICK)  # a passing list, when there is one, is usually found at once
    try:
        return next(search(tree, c, sorted(pending), seen, quick), None)
    except SearchLimitExceeded:
        if budget.left is not None:
            budget.left -= QUICK
    if relaxation_rules_out(tree, c, pending, budget):
        return None
    return next(search(tree, c, sorted(pending), set(), budget), None)
