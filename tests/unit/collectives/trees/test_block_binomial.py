"""collectives.trees.block_binomial: MPI-F's block-based binomial tree as Nupairoj1998 section
3.4 describes it (Fig. 3.7: 9 nodes, blocksize 3), and its two ends: blocksize 1 a binomial
tree, blocksize k a sequential tree."""

from __future__ import annotations

import pytest

from collectives.trees.block_binomial import block_binomial_tree, block_count
from collectives.trees.schedules import sequential_tree, subtree_sizes


def test_fig_3_7() -> None:
    """Blocks {P0, P1, P2} and {P3, P4, P5}; P0 -> P3 first, then the blocks, then P0, P1,
    P2 -> P6, P7, P8."""
    assert block_count(9, 3) == 2
    assert block_binomial_tree(9, 3) == {0: [3, 1, 2, 6], 3: [4, 5], 1: [7], 2: [8]}


@pytest.mark.parametrize("k", range(1, 34))
def test_every_node_once_and_the_ends(k: int) -> None:
    for size in range(1, k + 1):
        tree = block_binomial_tree(k, size)
        kids = [c for cs in tree.values() for c in cs]
        assert sorted(kids) == list(range(1, k))
        assert subtree_sizes(tree, k)[0] == k
    assert block_binomial_tree(k, k) == sequential_tree(k)
    one = block_binomial_tree(k, 1)  # a binomial tree: depth ceil(log2 k) in sends
    depth = {0: 0}
    for p in sorted(one):
        for c in one[p]:
            depth[c] = depth[p] + 1
    assert max(depth.values(), default=0) <= max(1, (k - 1).bit_length())


def test_bad_blocksizes() -> None:
    with pytest.raises(ValueError, match="blocksize"):
        block_binomial_tree(9, 10)
    with pytest.raises(ValueError, match="at least one node"):
        block_count(0, 1)
