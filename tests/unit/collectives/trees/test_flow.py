"""collectives.trees.flow: flow latencies when nodes call at different times (Nupairoj1998,
section 3.3.1, Fig. 3.5: calls at 0, 2, 5, 3 give 7, 7, 10 on the 4-node binomial tree with
t_hold 2, t_end 5), the critical destinations, and bad trees refused."""

from __future__ import annotations

import pytest

from collectives.opttree import tree_latency
from collectives.trees.flow import critical_destinations, flow_latencies
from collectives.trees.schedules import binomial_tree, sequential_tree

BINOMIAL_4 = {0: [2, 1], 2: [3]}


def test_fig_3_5() -> None:
    flow = flow_latencies(BINOMIAL_4, 2, 5, [0, 2, 5, 3])
    assert flow == {1: 7, 2: 7, 3: 10}
    assert critical_destinations(flow) == [3]


def test_a_late_caller_receives_when_it_calls() -> None:
    """P1 calls at 9, after its message came at 7: it returns at 9; times are from the
    root's call, which may itself be late."""
    assert flow_latencies(BINOMIAL_4, 2, 5, [0, 9, 0, 0])[1] == 9
    assert flow_latencies(BINOMIAL_4, 2, 5, [4, 4, 4, 4]) == {1: 7, 2: 7, 3: 10}


def test_simultaneous_calls_give_the_model_latency() -> None:
    """Lemma 1: with every node calling at once, the critical flow latency is the tree's
    latency (a leaf is last)."""
    for k in (2, 5, 9, 16):
        for tree in (binomial_tree(k), sequential_tree(k)):
            flow = flow_latencies(tree, 20, 55)
            assert max(flow.values()) == pytest.approx(tree_latency(tree, 20, 55))


def test_bad_trees_and_times_are_refused() -> None:
    with pytest.raises(ValueError, match="reached twice"):
        flow_latencies({0: [1, 2], 1: [2]}, 1, 1)
    with pytest.raises(ValueError, match="not reachable"):
        flow_latencies({0: [1], 2: [3]}, 1, 1)
    with pytest.raises(ValueError, match="call times"):
        flow_latencies(BINOMIAL_4, 1, 1, [0, 0])
    with pytest.raises(ValueError, match="t_hold"):
        flow_latencies(BINOMIAL_4, -1, 1)
    assert critical_destinations({}) == []
