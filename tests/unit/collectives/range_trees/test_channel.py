"""collectives.range_trees.channel: a range's multicast address is the controller's (none for
an empty or outside range), and the tree layout's defaults and checks."""

from __future__ import annotations

import pytest

from collectives.range_trees.channel import range_address, tree_layout
from collectives.range_trees.kary_tree import KaryNTree
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
