"""collectives.range_trees.sensitivity.fault_sensitivity: a cell per network size and
faulty-node count, with shares that add up, and the same greedy shares when the search is
left out."""

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
