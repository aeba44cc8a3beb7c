"""collectives.range_trees.trees: destination groups are maximal runs; the trees of Coll et
al.'s Figs. 4 and 5, one multicast without faults, plans that tell each rank what to do,
valid trees on random faulty sets, and the optimal search beating greedy somewhere."""

from __future__ import annotations

import random

import pytest

from collectives.range_trees.bounds import depth_lower_bound
from collectives.range_trees.kary_tree import KaryNTree
from collectives.range_trees.schedule import Multicast, tree_problems
from collectives.range_trees.trees import (
    destination_groups,
    greedy_steps,
    greedy_tree,
    optimal_steps,
    optimal_tree,
    pending_groups,
)
from collectives.range_trees.trials import random_problem

Q16 = KaryNTree.for_nodes(16)
FIG4 = (8, [0, *range(2, 6), *range(7, 16)])  # source 8; nodes 1 and 6 absent
FIG5 = (2, [0, *range(3, 8), *range(9, 13)])  # source 2; groups [0,0],[3,7],[9,12]


def test_destination_groups_are_maximal_runs() -> None:
    assert destination_groups(FIG5[1]) == [(0, 0), (3, 7), (9, 12)]
    assert destination_groups([]) == []


# ----------------------------------------------------------------------- paper's trees
@pytest.mark.parametrize("build", [greedy_tree, optimal_tree])
def test_fig4_tree(build) -> None:
    source, dests = FIG4
    tree = build(Q16, source, dests)
    assert tree.depth == 2
    first, second = tree.steps()
    assert first == [Multicast(1, 8, 7, 15, 1)]
    assert [(m.lo, m.hi) for m in second] == [(0, 0), (2, 5)]
    assert tree_problems(Q16, tree, dests) == []


@pytest.mark.parametrize("build", [greedy_tree, optimal_tree])
def test_fig5_tree(build) -> None:
    source, dests = FIG5
    tree = build(Q16, source, dests)
    assert tree.depth == 2
    assert [(m.lo, m.hi) for m in tree.steps()[0]] == [(3, 7)]
    assert [(m.lo, m.hi) for m in tree.steps()[1]] == [(0, 0), (9, 12)]
    assert tree_problems(Q16, tree, dests) == []


def test_no_faults_is_one_multicast() -> None:
    tree = greedy_tree(Q16, 5, range(16))
    assert tree.multicasts == (Multicast(1, 5, 0, 15, 1),)


def test_plans_tell_each_rank_what_to_do() -> None:
    source, dests = FIG4
    tree = optimal_tree(Q16, source, dests)
    plan = tree.plan(8)
    assert plan.receive is None and [m.step for m in plan.sends][0] == 1
    for rank in dests:
        if rank != source:
            got = tree.receive(rank)
            assert got is not None and got.lo <= rank <= got.hi
            assert all(m.step > got.step for m in tree.sends(rank))
    assert tree.receive(1) is None and tree.sends(1) == ()  # absent node
    assert tree.to_dict()["depth"] == 2


# ------------------------------------------------------------------- random faulty sets
@pytest.mark.parametrize(("nodes", "arity"), [(16, 4), (64, 4), (256, 4), (32, 2), (81, 3),
                                              (2048, 4)])
def test_random_trees_are_valid(nodes: int, arity: int) -> None:
    tree = KaryNTree.for_nodes(nodes, arity)
    rng = random.Random(nodes)
    for trial in range(30 if nodes <= 256 else 4):
        faulty = rng.choice([1, 2, max(1, nodes // 20), max(1, nodes // 10)])
        source, dests = random_problem(rng, nodes, faulty)
        greedy = greedy_tree(tree, source, dests)
        optimal = optimal_tree(tree, source, dests, budget=3000)
        for built in (greedy, optimal):
            assert tree_problems(tree, built, dests) == [], (trial, built)
        assert depth_lower_bound(1, pending_groups(tree, source, dests)) <= optimal.depth
        assert optimal.depth <= greedy.depth


def test_optimal_can_beat_greedy() -> None:
    """Somewhere in 256 nodes at 10 % faulty the search finds a shallower tree."""
    tree = KaryNTree.for_nodes(256)
    rng = random.Random(0)
    for _ in range(200):
        source, dests = random_problem(rng, 256, 26)
        optimal = optimal_steps(tree, source, dests, budget=3000)
        if len(optimal) < len(greedy_steps(tree, source, dests)):
            return
    pytest.fail("greedy was optimal in all 200 problems")
