"""Lower bounds that prune the optimal range-tree search (pure).

Both ignore part of the problem, so no tree does better than they say; the backtracking of
:mod:`collectives.range_trees.trees` drops a branch that cannot beat the best tree found so far.
"""

from __future__ import annotations

from collections.abc import Sequence

from .kary_tree import KaryNTree
from .overlap import Range

__all__ = ["depth_lower_bound", "pieces_lower_bound"]


def depth_lower_bound(holders: int, pending: Sequence[Range]) -> int:
    """Steps needed if routing never got in the way: every holder reaches one whole group
    per step, the largest first (no schedule holds more nodes after any step)."""
    sizes = sorted((hi - lo + 1 for lo, hi in pending), reverse=True)
    steps = at = 0
    while at < len(sizes):
        reached = sizes[at:at + holders]
        at += holders
        holders += sum(reached)
        steps += 1
    return steps


def pieces_lower_bound(tree: KaryNTree, c: Sequence[int], ranges: Sequence[Range]) -> int:
    """Fewest ranges into which ``ranges`` must be cut to be reached in one step from holders
    with capabilities ``c`` (eq. 3), whatever the cuts.

    For each level t, at most D_{t+1} = c_{t+1} + ... + c_{L-1} pieces may be rooted above t;
    every other piece lies within one level-(t+1) block. A range touching p such blocks
    therefore needs p pieces, or fewer only if it keeps a piece rooted above t, which saves
    at most p - 1 of them.
    """
    best = len(ranges)
    above = 0  # D_{t+1}
    for t in range(tree.dims - 1, -1, -1):
        size = tree.arity ** (t + 1)
        blocks = [hi // size - lo // size + 1 for lo, hi in ranges]
        extra = sorted((p - 1 for p in blocks if p > 1), reverse=True)
        saved = sum(extra[:above])
        best = max(best, sum(blocks) - saved)
        above += c[t]
    return best
