"""Range-multicast trees (Coll, Duato, Petrini, Mora: hardware multicast trees on QsNET).

Reference values are copied from the paper (sec. 5-6): root levels of [6,7], [7,8], [3,7],
[9,12]; eq. 1 on [2,5],[7,15]; the capabilities of Fig. 5 and 6; the trees of Fig. 4 and 5;
greedy optimal in about 99 % of random faulty sets and in all of them under 1 % faulty; at
most 4 steps from 16 to 4096 nodes. The random checks use fewer trials than the paper's
1000 per configuration; the full runs are `mcastlab range-trees --trials 1000`.
"""

from __future__ import annotations

import pytest


def test_fault_sensitivity_reports_every_cell() -> None:
    from collectives.range_trees.sensitivity import fault_sensitivity

    cells = fault_sensitivity((16, 64), (0.01, 0.1), trials=10, seed=3)
    assert [(c.nodes, c.faulty_nodes) for c in cells] == [(16, 2), (64, 1), (64, 6)]
    for c in cells:
        assert c.undecided == 0
        assert sum(c.optimal_shares.values()) == pytest.approx(1.0)
        assert sum(c.share(d) for d in (1, 2, 3, 4)) == pytest.approx(1.0)
        assert 0.0 <= c.greedy_optimal <= 1.0
        assert c.deepest_optimal <= c.deepest_greedy <= 4
        assert c.to_dict()["optimal"].keys() == {"1", "2", "3", "4"}
    greedy_only = fault_sensitivity((64,), (0.1,), trials=10, seed=3, search_limit=0)[0]
    assert greedy_only.greedy_shares == cells[2].greedy_shares
