"""Range-multicast trees (Coll, Duato, Petrini, Mora: hardware multicast trees on QsNET).

Reference values are copied from the paper (sec. 5-6): root levels of [6,7], [7,8], [3,7],
[9,12]; eq. 1 on [2,5],[7,15]; the capabilities of Fig. 5 and 6; the trees of Fig. 4 and 5;
greedy optimal in about 99 % of random faulty sets and in all of them under 1 % faulty; at
most 4 steps from 16 to 4096 nodes. The random checks use fewer trials than the paper's
1000 per configuration; the full runs are `mcastlab range-trees --trials 1000`.
"""

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
