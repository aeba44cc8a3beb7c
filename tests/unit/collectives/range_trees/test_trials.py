"""collectives.range_trees.trials: greedy is optimal in about 99 % of random faulty sets and in
all of them under 1 % faulty, and takes at most 4 steps from 16 to 4096 nodes (Coll et al.,
sec. 6, with fewer trials than the paper's 1000; `mcastlab range-trees --repetitions 1000` runs
them all). The statistics are seeded and summed, and bad settings refused."""

from __future__ import annotations

import random

import pytest

from collectives.range_trees.kary_tree import KaryNTree
from collectives.range_trees.schedule import build_tree, tree_problems
from collectives.range_trees.trees import (
    greedy_steps,
)
from collectives.range_trees.trials import (
    Cell,
    check_config,
    greedy_trials,
    hwtree_trials,
    random_problem,
    run_cells,
)


def test_greedy_is_optimal_in_about_99_percent() -> None:
    total = same = 0
    for nodes in (16, 64, 256):
        for fraction in (0.001, 0.01, 0.03, 0.05, 0.1):
            stats = hwtree_trials(nodes, fraction, 100, seed=nodes)
            assert stats.undecided == 0
            total += stats.decided
            same += stats.greedy_optimal
    assert same / total >= 0.97


@pytest.mark.parametrize(("nodes", "fraction"), [(256, 0.008), (1024, 0.002), (1024, 0.008),
                                                 (2048, 0.004)])
def test_greedy_is_optimal_under_1_percent_faulty(nodes: int, fraction: float) -> None:
    stats = hwtree_trials(nodes, fraction, 100, seed=7)
    assert stats.undecided == 0
    assert stats.greedy_optimal == stats.trials


@pytest.mark.parametrize(("nodes", "fraction"), [(16, 0.1), (64, 0.1), (256, 0.1), (1024, 0.1),
                                                 (4096, 0.1), (4096, 0.01)])
def test_never_more_than_4_steps(nodes: int, fraction: float) -> None:
    tree = KaryNTree.for_nodes(nodes)
    rng = random.Random(1)
    for _ in range(50 if nodes <= 1024 else 10):
        source, dests = random_problem(rng, nodes, round(fraction * nodes))
        assert len(greedy_steps(tree, source, dests)) <= 4


def test_stats_are_seeded_and_summed() -> None:
    a = hwtree_trials(64, 0.05, 30, seed=3)
    b = hwtree_trials(64, 0.05, 30, seed=3)
    assert a == b
    # the problems are drawn first: searched in 2 processes, the same stats
    assert hwtree_trials(64, 0.05, 30, seed=3, workers=2) == a
    done: list[int] = []
    hard = hwtree_trials(1024, 0.01, 12, seed=5, workers=2, progress=lambda d, t: done.append(d))
    assert hard == hwtree_trials(1024, 0.01, 12, seed=5) and done == list(range(1, 13))
    d = a.to_dict()
    assert sum(d["greedy_depths"].values()) == pytest.approx(1.0)
    assert sum(d["optimal_depths"].values()) == pytest.approx(1.0)
    assert d["faulty_nodes"] == 3 and 0 <= d["greedy_optimal_fraction"] <= 1


@pytest.mark.parametrize(("nodes", "fraction", "trials"), [(1000, 0.1, 1), (64, 1.0, 1),
                                                           (64, -0.1, 1), (64, 0.1, 0)])
def test_bad_settings(nodes: int, fraction: float, trials: int) -> None:
    with pytest.raises(ValueError):
        check_config(nodes, fraction, trials)


def test_cells_run_together_match_one_by_one() -> None:
    """run_cells gives each cell hwtree_trials' statistics, in 1 or 2 processes, and a cell
    asked again (another claim of the run) is read from what was solved."""
    cells = [Cell(64, 0.05, 20, 300), Cell(256, 0.1, 12, 300), Cell(64, 0.1, 15, 0)]
    one = [hwtree_trials(c.nodes, c.faulty_fraction, c.trials, seed=4, budget=c.budget)
           for c in cells]
    assert run_cells(cells, seed=4, workers=2) == one
    seen: list[Cell] = []
    assert run_cells(cells[:1], seed=4, progress=seen.append) == one[:1] and seen == cells[:1]


def test_greedy_split_rules() -> None:
    """Splitting the first group in address order (the literal pseudo-code's) needs 3 steps
    more often than splitting the smallest; both are valid trees, and a bad rule is refused."""
    smallest = greedy_trials(4096, 0.01, 40, seed=0)
    first = greedy_trials(4096, 0.01, 40, seed=0, split="first")
    assert sum(smallest.values()) == sum(first.values()) == 40
    assert first.get(3, 0) > smallest.get(3, 0)
    tree = KaryNTree.for_nodes(256)
    source, dests = random_problem(random.Random(2), 256, 20)
    for split in ("smallest", "first"):
        rtree = build_tree(tree, source, greedy_steps(tree, source, dests, split=split))
        assert tree_problems(tree, rtree, dests) == []
    with pytest.raises(ValueError, match="split rule"):
        greedy_steps(tree, source, dests, split="largest")
