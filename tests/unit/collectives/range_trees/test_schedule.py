"""collectives.range_trees.schedule.tree_problems: it finds what is wrong with a range tree."""

from __future__ import annotations

from collectives.range_trees.kary_tree import KaryNTree
from collectives.range_trees.schedule import Multicast, RangeTree, tree_problems

Q16 = KaryNTree.for_nodes(16)


def test_tree_problems_finds_what_is_wrong() -> None:
    dests = [n for n in range(16) if n != 6]
    bad = RangeTree(0, (Multicast(1, 0, 0, 7, 1), Multicast(1, 3, 8, 15, 1)))
    problems = tree_problems(Q16, bad, dests)
    assert any("non-destinations [6]" in p for p in problems)
    assert any("3 sends before it has the data" in p for p in problems)
    overlapping = RangeTree(0, (Multicast(1, 0, 0, 3, 0), Multicast(2, 0, 4, 9, 1),
                                Multicast(2, 1, 11, 15, 1), Multicast(2, 2, 10, 10, 0)))
    assert any("backward overlap" in p for p in tree_problems(Q16, overlapping, range(16)))
    short = RangeTree(0, (Multicast(1, 0, 0, 3, 0),))
    assert any("never reached" in p for p in tree_problems(Q16, short, range(16)))
