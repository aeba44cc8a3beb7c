"""The range-tree collectives' pure parts: addresses, layouts, who releases whom."""

from __future__ import annotations

import pytest

from collectives.range_trees.bcast import _neighbours
from collectives.range_trees.channel import TreeUse, range_address, tree_layout
from collectives.range_trees.kary_tree import KaryNTree
from collectives.range_trees.trees import greedy_tree
from controller.ranges import range_group


@pytest.mark.parametrize(("lo", "hi"), [(0, 0), (2, 5), (7, 15), (0, 255), (255, 255)])
def test_range_address_is_the_controllers(lo, hi):
    assert range_address(lo, hi) == range_group(lo, hi)


@pytest.mark.parametrize(("lo", "hi"), [(3, 2), (-1, 4), (0, 256)])
def test_no_address_for_an_empty_or_outside_range(lo, hi):
    with pytest.raises(ValueError, match="no range address"):
        range_address(lo, hi)


def test_layout_defaults_and_checks():
    tree, nodes = tree_layout(4)
    assert tree == KaryNTree(4, 1, 4) and nodes == (0, 1, 2, 3)
    tree, nodes = tree_layout(3, [0, 2, 7], [4, 8])
    assert tree == KaryNTree(4, 2, 8) and nodes == (0, 2, 7)
    with pytest.raises(ValueError, match="names 2 nodes for 3 ranks"):
        tree_layout(3, [0, 1])
    with pytest.raises(ValueError, match="names a node twice"):
        tree_layout(2, [1, 1])
    with pytest.raises(ValueError, match="outside the network"):
        tree_layout(2, [0, 9], [4, 8])
    with pytest.raises(ValueError, match="whole number of"):
        tree_layout(2, [0, 1], [4, 6])
    with pytest.raises(ValueError, match="0..255"):
        tree_layout(2, [0, 1], [4, 1024])


def test_releases_pass_along_each_range_and_skip_the_sender():
    # Fig. 4 of the paper: 16 nodes, source 8, nodes 1 and 6 absent
    nodes = [8, 0, 2, 3, 4, 5, 7, 9, 10, 11, 12, 13, 14, 15]
    tree = greedy_tree(KaryNTree(4, 2, 16), 8, nodes)
    use = TreeUse(tree, {n: r for r, n in enumerate(nodes)})
    assert [(m.step, m.lo, m.hi) for m in tree.multicasts][0] == (1, 7, 15)
    first = use.rank_of[7]
    assert _neighbours(use, nodes, first) == (0, use.rank_of[9])  # 8 sends, 9 follows 7
    assert _neighbours(use, nodes, use.rank_of[9]) == (first, use.rank_of[10])
    assert _neighbours(use, nodes, use.rank_of[15]) == (use.rank_of[14], None)
    assert use.sender_rank(0, nodes) is None
    assert use.sender_rank(use.rank_of[15], nodes) == 0

