"""Trees of hardware range multicasts around faulty nodes: greedy and optimal (pure).

Coll, Duato, Petrini, Mora, "Scalable Hardware-Based Multicast Trees" (QsNET), sec. 5. The
network multicasts only to a contiguous range of nodes, so a gap (a faulty or absent node)
splits the destinations into groups of adjacent nodes. A tree is a sequence of steps; in a
step every node that holds the message may send one multicast to a range of waiting
destinations, and the step's multicasts must share no link (no backward or forward routing
overlap, :mod:`collectives.range_trees.overlap`). The cost of a tree is its number of steps.

* :func:`greedy_tree` is Algorithm 2: groups sorted by size then root level (both
  decreasing), each step takes as many groups as there are holders, a backward overlap keeps
  the paper's right alternative, a forward overlap splits one group at or above the short
  level: the smallest (the paper leaves the choice open; on 4096 nodes with 41 faulty
  the smallest gives a 2-step tree in 91.5 % of problems, the leftmost in 70 %: SPLITS).
* :func:`optimal_tree` is Algorithm 1, the backtracking search over the same moves (every
  combination, both backward alternatives, every forward split, each from the list as it
  was: the text's "repeated for all the groups ... one by one"; the printed pseudo-code's
  loop keeps earlier splits, a narrower space that always splits the first candidate and
  holds the leftmost greedy tree), started from the greedy tree (the paper's "good first
  solution") and pruned by admissible bounds
  (:mod:`collectives.range_trees.bounds`); its last step is decided by
  :mod:`collectives.range_trees.final_step`. The search is exponential: past a state budget it
  raises :class:`SearchLimitExceeded` rather than answer wrongly.

Choices the paper leaves open, made here: the ranges of one step are kept in address order
(left and right are positions in the network, as in the paper's Fig. 4); when splitting leaves
more ranges than holders, the holders take the best ones by the same size-then-level order;
pending groups are re-sorted after every step; a multicast may include its own sender (the
source may sit inside a destination group); a sender is assigned to each range so that the
step's up-paths are disjoint (:func:`collectives.range_trees.schedule.assign_senders`).
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Iterator, Sequence

from .bounds import depth_lower_bound
from .final_step import Budget, SearchLimitExceeded, final_step
from .kary_tree import KaryNTree
from .overlap import (
    Range,
    capabilities,
    first_backward_overlap,
    forward_overlap_level,
    resolve_backward,
    short_level,
    split_candidates,
    split_down,
)
from .schedule import RangeTree, build_tree

__all__ = [
    "SPLITS",
    "SearchLimitExceeded",
    "after_step",
    "destination_groups",
    "greedy_steps",
    "greedy_tree",
    "optimal_steps",
    "optimal_tree",
    "pending_groups",
]

SPLITS = ("smallest", "first")
"""The range Algorithm 2 splits on a forward overlap (the paper: "select a group ... with
level >= limited_level"): the smallest, then the leftmost (ours: 2 steps far more often);
or the first in address order, the one the literal pseudo-code of Algorithm 1 always splits
(its forward loop keeps the splits of earlier iterations)."""


def destination_groups(destinations: Iterable[int]) -> list[Range]:
    """Maximal runs of adjacent destination nodes, in address order."""
    groups: list[Range] = []
    for node in sorted(set(destinations)):
        if groups and groups[-1][1] == node - 1:
            groups[-1] = (groups[-1][0], node)
        else:
            groups.append((node, node))
    return groups


def _priority(tree: KaryNTree, rng: Range) -> tuple[int, int, int]:
    """Sort key: larger first, then higher root level first, then lower address."""
    return (rng[0] - rng[1], -tree.root_level(*rng), rng[0])


def _best(tree: KaryNTree, ranges: Sequence[Range], count: int) -> list[Range]:
    """The ``count`` best ranges by priority, back in address order."""
    if len(ranges) <= count:
        return list(ranges)
    return sorted(sorted(ranges, key=lambda r: _priority(tree, r))[:count])


def pending_groups(tree: KaryNTree, source: int, destinations: Iterable[int]) -> list[Range]:
    """The groups a tree must reach, best first (size, then root level, both decreasing)."""
    dests = set(destinations)
    if not 0 <= source < tree.nodes:
        raise ValueError(f"source {source} is not a node of the {tree.nodes}-node network")
    bad = sorted(d for d in dests if not 0 <= d < tree.nodes)
    if bad:
        raise ValueError(f"destinations {bad[:5]} are not nodes of the {tree.nodes}-node network")
    groups = [g for g in destination_groups(dests) if g != (source, source)]
    return sorted(groups, key=lambda r: _priority(tree, r))


def after_step(tree: KaryNTree, holders: frozenset[int], pending: Sequence[Range],
               reached: Sequence[Range]) -> tuple[frozenset[int], tuple[Range, ...]]:
    """Holders and pending groups (priority order) once ``reached`` got the data."""
    new_holders = holders.union(*(range(lo, hi + 1) for lo, hi in reached))
    left: list[Range] = []
    cuts = sorted(reached)
    ends = [hi for _, hi in cuts]
    for lo, hi in pending:
        at = lo
        for rlo, rhi in cuts[bisect.bisect_left(ends, lo):]:  # the first that may touch
            if rlo > hi:
                break
            if rlo > at:
                left.append((at, rlo - 1))
            at = rhi + 1
        if at <= hi:
            left.append((at, hi))
    return new_holders, tuple(sorted(left, key=lambda r: _priority(tree, r)))


# ------------------------------------------------------------------------------- greedy
def _greedy_step(tree: KaryNTree, holders: frozenset[int], pending: Sequence[Range],
                 split: str = "smallest") -> list[Range]:
    """One step of Algorithm 2: the first |holders| groups, overlaps removed."""
    count = len(holders)
    c = capabilities(tree, holders)
    combo = sorted(pending[:count])
    start = 1
    while True:
        overlap = first_backward_overlap(tree, combo, start)
        if overlap is not None:
            _, combo = resolve_backward(tree, combo, overlap)  # the right alternative
            start = overlap[0]
            if len(combo) > count:  # the ranges before `start` have no overlap among them;
                kept = _best(tree, combo, count)  # what stays of them still has none
                same = next((i for i, r in enumerate(kept) if r != combo[i]), len(kept))
                combo, start = kept, max(1, min(start, same))
            continue
        # cutting at block boundaries adds no backward overlap: splits until none is short
        return _forward_splits(tree, c, combo, count, split)


def _forward_splits(tree: KaryNTree, c: tuple[int, ...], combo: list[Range], count: int,
                    split: str) -> list[Range]:
    """Algorithm 2's forward step: while eq. 3 finds a level short, split a range rooted at
    or above it (SPLITS), keeping the ``count`` best ranges (the needs kept up to date split
    by split, not recounted)."""
    first = split == "first"
    levels = [tree.root_level(lo, hi) for lo, hi in combo]
    n = [0] * tree.dims
    for level in levels:
        n[level] += 1
    while (limited := short_level(c, n)) is not None:
        k = min((i for i, level in enumerate(levels) if level >= limited),
                key=lambda i: i if first else (combo[i][1] - combo[i][0], i))
        pieces = split_down(tree, combo[k])
        cut = [tree.root_level(lo, hi) for lo, hi in pieces]
        n[levels[k]] -= 1
        for level in cut:
            n[level] += 1
        combo[k:k + 1], levels[k:k + 1] = pieces, cut
        if len(combo) > count:  # keep the best by _priority, in address order
            best = sorted(range(len(combo)), key=lambda i: (combo[i][0] - combo[i][1],
                                                            -levels[i], combo[i][0]))
            for i in best[count:]:
                n[levels[i]] -= 1
            keep = sorted(best[:count])
            combo, levels = [combo[i] for i in keep], [levels[i] for i in keep]
    return combo


def greedy_steps(tree: KaryNTree, source: int, destinations: Iterable[int],
                 split: str = "smallest") -> list[list[Range]]:
    """Algorithm 2: the ranges reached at each step (each step in address order); `split`
    chooses the range a forward overlap splits (SPLITS)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split rule {split!r}; choose from {', '.join(SPLITS)}")
    pending = tuple(pending_groups(tree, source, destinations))
    holders = frozenset([source])
    steps: list[list[Range]] = []
    while pending:
        reached = _greedy_step(tree, holders, pending, split)
        steps.append(reached)
        holders, pending = after_step(tree, holders, pending, reached)
    return steps


def greedy_tree(tree: KaryNTree, source: int, destinations: Iterable[int]) -> RangeTree:
    """Algorithm 2 as a tree with senders (see :func:`assign_senders`)."""
    return build_tree(tree, source, greedy_steps(tree, source, destinations))


# ------------------------------------------------------------------------------ optimal
class _Search:
    """Algorithm 1: depth-first over combinations and overlap resolutions, right first."""

    def __init__(self, tree: KaryNTree, best: list[list[Range]], floor: int,
                 budget: int | None) -> None:
        self.tree, self.best, self.floor = tree, best, floor
        self.budget = Budget(budget)
        self.failed: dict[tuple[frozenset[int], tuple[Range, ...]], int] = {}

    def run(self, holders: frozenset[int], pending: tuple[Range, ...],
            path: list[list[Range]]) -> bool:
        """Look for a tree better than ``self.best``; True once it reaches ``self.floor``."""
        steps = len(path)
        key = (holders, pending)
        if self.failed.get(key, len(self.best) + 1) <= steps:
            return False
        if steps + depth_lower_bound(len(holders), pending) >= len(self.best):
            return False
        self.budget.spend()
        c = capabilities(self.tree, holders)
        if steps + 2 == len(self.best):  # this step must reach every pending node
            reached = final_step(self.tree, c, pending, self.budget)
            if reached is None:
                self.failed[key] = steps
                return False
            self.best = [*path, reached]
            return len(self.best) <= self.floor
        seen: set[tuple[Range, ...]] = set()
        last = steps + 3 == len(self.best)  # the next step must be the last
        for reached in self._options(holders, c, list(pending), seen):
            # A range lies within one group, so at least len(pending) - len(reached) groups
            # stay, one multicast each, from at most this many holders: skip the hopeless
            # without building the step (most first steps on thousands of nodes).
            if last and len(pending) - len(reached) > len(holders) + sum(
                    hi - lo + 1 for lo, hi in reached):
                continue
            new_holders, left = after_step(self.tree, holders, pending, reached)
            if not left:
                self.best = [*path, reached]
                if len(self.best) <= self.floor:
                    return True
            elif self.run(new_holders, left, [*path, reached]):
                return True
            if steps + 1 >= len(self.best):  # nothing from here beats the new best tree
                break
        self.failed[key] = steps
        return False

    def _options(self, holders: frozenset[int], c: tuple[int, ...], ranges: list[Range],
                 seen: set) -> Iterator[list[Range]]:
        """Every overlap-free list of at most |holders| ranges reachable from ``ranges``."""
        count = len(holders)
        combos = [ranges] if len(ranges) <= count else itertools.combinations(ranges, count)
        for combo in combos:
            yield from self._resolve(holders, c, sorted(combo), seen)

    def _resolve(self, holders: frozenset[int], c: tuple[int, ...], combo: list[Range],
                 seen: set) -> Iterator[list[Range]]:
        key = tuple(combo)
        if key in seen:
            return
        seen.add(key)
        self.budget.spend()
        overlap = first_backward_overlap(self.tree, combo)
        if overlap is not None:
            left_try, right_try = resolve_backward(self.tree, combo, overlap)
            yield from self._options(holders, c, right_try, seen)
            yield from self._options(holders, c, left_try, seen)
            return
        limited = forward_overlap_level(self.tree, c, combo)
        if limited is None:
            yield combo
            return
        for k in split_candidates(self.tree, combo, limited):
            split = [*combo[:k], *split_down(self.tree, combo[k]), *combo[k + 1:]]
            yield from self._options(holders, c, split, seen)


def optimal_steps(tree: KaryNTree, source: int, destinations: Iterable[int],
                  budget: int | None = None,
                  first: list[list[Range]] | None = None) -> list[list[Range]]:
    """Algorithm 1: a minimum-depth sequence of steps over the paper's moves.

    Starts from the greedy tree (the paper's "good first solution"; `first`, when the
    caller has it) and stops early when a tree reaches the depth lower bound. ``budget``
    caps the number of search states; beyond it :class:`SearchLimitExceeded` is raised.
    """
    groups = tuple(pending_groups(tree, source, destinations))
    best = first if first is not None else greedy_steps(tree, source, destinations)
    holders = frozenset([source])
    floor = depth_lower_bound(1, groups)
    if len(best) <= floor:
        return best
    search = _Search(tree, best, floor, budget)
    search.run(holders, groups, [])
    return search.best


def optimal_tree(tree: KaryNTree, source: int, destinations: Iterable[int],
                 budget: int | None = None) -> RangeTree:
    """Algorithm 1 as a tree with senders."""
    return build_tree(tree, source, optimal_steps(tree, source, destinations, budget))
