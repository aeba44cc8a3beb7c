"""collectives.range_trees.bcast: who releases whom: releases pass along each range of the tree
of Fig. 4 (Coll et al.) and skip the sender."""

from __future__ import annotations

from collectives.range_trees.bcast import _neighbours
from collectives.range_trees.channel import TreeUse
from collectives.range_trees.kary_tree import KaryNTree
from collectives.range_trees.trees import greedy_tree


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
