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
Front = dict[tuple[int, ...], int]
"""A relaxation's Pareto front: counts of ranges rooted at or above each of its key levels
-> the fewest ranges rooted at or above its value level."""


class SearchLimitExceeded(RuntimeError):
    """The optimal search used up its state budget before it could decide."""


def _pareto(items: Iterable[tuple[tuple[int, ...], int]], cap: tuple[int, ...],
            top: int) -> Front:
    kept: Front = {}
    for key, value in sorted(items, key=lambda kv: (kv[1], kv[0])):
        if value > top or any(k > c for k, c in zip(key, cap, strict=True)):
            continue
        if key in kept or any(all(a <= b for a, b in zip(u, key, strict=True)) for u in kept):
            continue
        kept[key] = value
    return kept


class _Relaxation:
    """The forward test at the ``keys`` levels and the ``value`` level only (the other D_l
    ignored): if no resolution passes it, none passes the full test."""

    def __init__(self, tree: KaryNTree, c: Sequence[int], keys: Sequence[int],
                 value: int) -> None:
        self.tree, self.keys, self.value = tree, tuple(keys), value
        self.cap = tuple(sum(c[level:]) for level in self.keys)
        self.top = sum(c[value:])
        self.zero: Front = {(0,) * len(self.keys): 0}
        self.shapes: dict[tuple[int, int, int], Front] = {}
        self.lists: dict[tuple[Range, ...], Front] = {}

    def add(self, a: Front, b: Front) -> Front:
        """Both lists together (Minkowski sum of the fronts)."""
        return _pareto(((tuple(x + y for x, y in zip(u, v, strict=True)), p + q)
                        for u, p in a.items() for v, q in b.items()), self.cap, self.top)

    def piece(self, rng: Range) -> Front:
        lo, hi = rng
        level = self.tree.root_level(lo, hi)
        key = (level, lo % self.tree.arity ** (level + 1), hi - lo)
        front = self.shapes.get(key)
        if front is None:
            options = [(tuple(int(level >= k) for k in self.keys), int(level >= self.value))]
            if level > 0:
                split = self.zero
                for part in split_down(self.tree, rng):
                    split = self.add(split, self.piece(part))
                options += split.items()
            front = self.shapes[key] = _pareto(options, self.cap, self.top)
        return front

    def ranges(self, ranges: Sequence[Range]) -> Front:
        front = self.zero
        for rng in ranges:
            front = self.add(front, self.piece(rng))
            if not front:
                break
        return front

    def resolve(self, ranges: tuple[Range, ...]) -> Front:
        """The front over every backward resolution of ``ranges`` (address order)."""
        front = self.lists.get(ranges)
        if front is not None:
            return front
        overlap = first_backward_overlap(self.tree, ranges)
        if overlap is None:
            front = self.ranges(ranges)
        else:
            # Ranges before the first overlap that no later range can reach are settled:
            # both alternatives keep them, and the memo sees only what is still open.
            j = overlap[0]
            settled = {r for r in ranges[:j] if not _reaches(self.tree, r, ranges[j][0])}
            either = [item for alt in resolve_backward(self.tree, ranges, overlap)
                      for item in self.resolve(tuple(r for r in alt if r not in settled)).items()]
            front = self.add(self.ranges(sorted(settled)), _pareto(either, self.cap, self.top))
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


def relaxation_rules_out(tree: KaryNTree, c: Sequence[int], pending: Sequence[Range]) -> bool:
    """True when for some level l no resolution of ``pending`` keeps both the ranges rooted
    at or above l within D_l and all of them within D_0."""
    ranges = tuple(sorted(pending))
    return any(not _Relaxation(tree, c, (level,), 0).resolve(ranges)
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
    if relaxation_rules_out(tree, c, pending):
        return None
    return next(search(tree, c, sorted(pending), set(), budget), None)
