"""Routing overlaps between range multicasts of one step and the splits that remove them (pure).

Coll, Duato, Petrini, Mora, "Scalable Hardware-Based Multicast Trees", sec. 5.2. A range is a
``(lo, hi)`` tuple of node ids. Two multicasts of one step may run in parallel only if they
share no link:

* backward overlap (eq. 1): two ranges that both use two or more broadcast-tree links at a
  level l and share one of them. It depends on the ranges only. Removed by cutting one side
  at the boundary of the shared level-l block (:func:`resolve_backward`).
* forward overlap (eqs. 2-3): the sources cannot reach the ranges' root switches over
  disjoint paths. Capabilities ``c`` and needs ``n`` are compared level by level from the
  top (:func:`differences`); removed by splitting a range at or above the short level into
  pieces rooted one level lower (:func:`split_down`).

Vectors c, n and d are indexed by level (``c[0]`` is level 0); the paper prints them top
level first, so ``c[::-1]`` is its (c_{L-1}, ..., c_0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .kary_tree import KaryNTree

__all__ = [
    "BackwardOverlap",
    "Range",
    "backward_overlap_level",
    "capabilities",
    "differences",
    "first_backward_overlap",
    "forward_overlap_level",
    "needs",
    "resolve_backward",
    "short_level",
    "split_candidates",
    "split_down",
]

Range = tuple[int, int]


def backward_overlap_level(tree: KaryNTree, a: Range, b: Range) -> int | None:
    """The highest level at which eq. 1 holds for ranges a and b, or None."""
    (x, x2), (y, y2) = a, b
    for level in range(tree.dims - 1, 0, -1):  # at level 0 disjoint ranges never share a link
        size = tree.arity ** level
        bx, bx2, by, by2 = x // size, x2 // size, y // size, y2 // size
        if bx != bx2 and by != by2 and (bx2 == by or bx == by2):
            return level
    return None


BackwardOverlap = tuple[int, int, list[int]]
"""(index of the right range, level, indices of the left ranges it overlaps at that level)."""


def first_backward_overlap(tree: KaryNTree, ranges: Sequence[Range],
                           start: int = 1) -> BackwardOverlap | None:
    """Scan ``ranges`` (in address order) left to right, each against those before it.

    At the first range j that overlaps an earlier one, returns j, the highest level l of its
    overlaps and every earlier range that shares j's first level-l block; ranges before
    ``start`` are known to be free of overlaps among themselves.
    """
    for j in range(max(start, 1), len(ranges)):
        y, y2 = ranges[j]
        # Only levels where j uses two links matter; j's first block at the highest of them
        # holds every range that can share a link with j (a range further left ends
        # before the one that starts outside that block).
        outer = tree.arity ** tree.root_level(y, y2)
        found: list[tuple[int, int]] = []
        for i in range(j - 1, -1, -1):
            level = backward_overlap_level(tree, ranges[i], ranges[j])
            if level is not None:
                found.append((i, level))
            if ranges[i][0] // outer != y // outer:
                break
        if found:
            best = max(level for _, level in found)
            return j, best, sorted(i for i, level in found if level == best)
    return None


def resolve_backward(tree: KaryNTree, ranges: Sequence[Range],
                     overlap: BackwardOverlap) -> tuple[list[Range], list[Range]]:
    """The paper's two alternatives: (left_try, right_try).

    right_try cuts the right range after the shared level-l block, left_try cuts each left
    range before it (the rule that gives both lists of the paper's Fig. 4). Nothing else in
    the list moves; overlaps that remain are found by the next check.
    """
    j, level, lefts = overlap
    size = tree.arity ** level
    y, y2 = ranges[j]
    cut = (y // size + 1) * size
    right_try = [*ranges[:j], (y, cut - 1), (cut, y2), *ranges[j + 1:]]
    cut = (y // size) * size
    left_try: list[Range] = []
    for i, (x, x2) in enumerate(ranges):
        left_try += [(x, cut - 1), (cut, x2)] if i in lefts else [(x, x2)]
    return left_try, right_try


def capabilities(tree: KaryNTree, sources: Iterable[int]) -> tuple[int, ...]:
    """Root switches the sources reach in parallel per level, each source counted once.

    c_l = D_l - D_{l+1} with D_l the number of distinct level-l broadcast-tree links above
    the sources (node // k^l) and D_L = 0: the sources' disjoint ways up, handed out from the
    top. Gives the paper's (1,1) for {6,7} and {0,2} and (2,0) for {7,8} on 16 nodes.
    """
    srcs = set(sources)
    distinct = [len({s // tree.arity ** level for s in srcs}) for level in range(tree.dims)]
    distinct.append(0)
    return tuple(distinct[level] - distinct[level + 1] for level in range(tree.dims))


def needs(tree: KaryNTree, ranges: Iterable[Range]) -> tuple[int, ...]:
    """Root switches the ranges need per level: how many ranges are rooted at each level."""
    n = [0] * tree.dims
    for lo, hi in ranges:
        n[tree.root_level(lo, hi)] += 1
    return tuple(n)


def differences(c: Sequence[int], n: Sequence[int]) -> tuple[int, ...]:
    """Eq. 2: d_l = c_l - n_l, plus d_{l+1} when that is positive (spare capability moves
    down a level), from the top level down."""
    d = [0] * len(c)
    carry = 0
    for level in range(len(c) - 1, -1, -1):
        d[level] = c[level] - n[level] + carry
        carry = max(d[level], 0)
    return tuple(d)


def forward_overlap_level(tree: KaryNTree, c: Sequence[int],
                          ranges: Iterable[Range]) -> int | None:
    """Eq. 3: the highest level with d_l < 0 (the paper's limited_level), or None."""
    return short_level(c, needs(tree, ranges))


def short_level(c: Sequence[int], n: Sequence[int]) -> int | None:
    """Eq. 3 on capabilities c and needs n: the highest level with d_l < 0, or None."""
    d = differences(c, n)
    for level in range(len(d) - 1, -1, -1):
        if d[level] < 0:
            return level
    return None


def split_candidates(tree: KaryNTree, ranges: Sequence[Range], limited: int) -> list[int]:
    """Indices of the ranges a forward overlap at ``limited`` may split (rooted at or above
    it), smallest first, then leftmost."""
    return sorted((k for k, (lo, hi) in enumerate(ranges) if tree.root_level(lo, hi) >= limited),
                  key=lambda k: (ranges[k][1] - ranges[k][0], k))


def split_down(tree: KaryNTree, rng: Range) -> list[Range]:
    """Cut a range rooted at level l at every level-l block boundary: pieces rooted lower."""
    lo, hi = rng
    size = tree.arity ** tree.root_level(lo, hi)
    if size == 1:
        return [rng]  # rooted at level 0: there is no lower level to split to
    pieces = []
    while lo <= hi:
        end = min(hi, (lo // size + 1) * size - 1)
        pieces.append((lo, end))
        lo = end + 1
    return pieces
