"""collectives.range_trees.kary_tree: the k-ary n-tree's numbering, with the root levels of
Coll et al.'s ranges [6,7], [7,8], [3,7] and [9,12]; network sizes, and bad ones refused."""

from __future__ import annotations

import pytest

from collectives.range_trees.kary_tree import KaryNTree

Q16 = KaryNTree.for_nodes(16)


# ------------------------------------------------------------------------------ numbering
@pytest.mark.parametrize(("rng", "level"), [((6, 7), 0), ((7, 8), 1), ((3, 7), 1), ((9, 12), 1),
                                            ((0, 15), 1), ((5, 5), 0)])
def test_root_levels_of_the_paper(rng: tuple[int, int], level: int) -> None:
    assert Q16.root_level(*rng) == level


@pytest.mark.parametrize(("nodes", "arity", "dims"), [(16, 4, 2), (4096, 4, 6), (2048, 4, 6),
                                                      (32, 4, 3), (8, 2, 3), (27, 3, 3)])
def test_network_sizes(nodes: int, arity: int, dims: int) -> None:
    tree = KaryNTree.for_nodes(nodes, arity)
    assert (tree.dims, tree.nodes, tree.ports) == (dims, nodes, arity ** dims)


@pytest.mark.parametrize(("nodes", "arity"), [(1000, 4), (40, 4), (1, 4), (16, 1), (12, 2)])
def test_bad_network_sizes(nodes: int, arity: int) -> None:
    with pytest.raises(ValueError):
        KaryNTree.for_nodes(nodes, arity)


@pytest.mark.parametrize("arity", [2, 3, 4, 5, 8])
def test_root_level_fast_path_matches_the_definition(arity: int) -> None:
    """The lowest l with lo // k^(l+1) == hi // k^(l+1), whether k is a power of two (the
    highest differing bit) or not, and the same when asked again (remembered)."""
    tree = KaryNTree(arity, 4, arity ** 4)
    for lo in range(0, arity ** 4, max(1, arity ** 4 // 40)):
        for hi in range(lo, arity ** 4, max(1, arity ** 4 // 37)):
            level = 0
            while lo // arity ** (level + 1) != hi // arity ** (level + 1):
                level += 1
            assert tree.root_level(lo, hi) == level == tree.root_level(lo, hi)
