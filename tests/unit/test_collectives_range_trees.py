"""Range-multicast trees (Coll, Duato, Petrini, Mora: hardware multicast trees on QsNET).

Reference values are copied from the paper (sec. 5-6): root levels of [6,7], [7,8], [3,7],
[9,12]; eq. 1 on [2,5],[7,15]; the capabilities of Fig. 5 and 6; the trees of Fig. 4 and 5;
greedy optimal in about 99 % of random faulty sets and in all of them under 1 % faulty; at
most 4 steps from 16 to 4096 nodes. The random checks use fewer trials than the paper's
1000 per configuration; the full runs are `mcastlab range-trees --trials 1000`.
"""

from __future__ import annotations

import itertools
import random

import pytest

from collectives.range_trees.bounds import depth_lower_bound, pieces_lower_bound
from collectives.range_trees.final_step import Budget, final_step, relaxation_rules_out, search
from collectives.range_trees.kary_tree import KaryNTree
from collectives.range_trees.overlap import (
    backward_overlap_level,
    capabilities,
    differences,
    first_backward_overlap,
    forward_overlap_level,
    needs,
    resolve_backward,
    split_down,
)
from collectives.range_trees.schedule import Multicast, RangeTree, tree_problems
from collectives.range_trees.trees import (
    after_step,
    destination_groups,
    greedy_steps,
    greedy_tree,
    optimal_steps,
    optimal_tree,
    pending_groups,
)
from collectives.range_trees.trials import check_config, hwtree_trials, random_problem

Q16 = KaryNTree.for_nodes(16)
FIG4 = (8, [0, *range(2, 6), *range(7, 16)])  # source 8; nodes 1 and 6 absent
FIG5 = (2, [0, *range(3, 8), *range(9, 13)])  # source 2; groups [0,0],[3,7],[9,12]


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


def test_destination_groups_are_maximal_runs() -> None:
    assert destination_groups(FIG5[1]) == [(0, 0), (3, 7), (9, 12)]
    assert destination_groups([]) == []


# --------------------------------------------------------------------- backward overlap
def test_equation_1_on_the_fig4_groups() -> None:
    # (0 != 1) and (1 != 3) and ((1 = 1) or (0 = 3)) at level 1
    assert backward_overlap_level(Q16, (2, 5), (7, 15)) == 1
    assert backward_overlap_level(Q16, (7, 15), (2, 5)) == 1
    assert backward_overlap_level(Q16, (0, 0), (2, 5)) is None
    assert backward_overlap_level(Q16, (4, 5), (7, 15)) is None  # [4,5] uses one link


def test_backward_resolution_gives_the_papers_two_lists() -> None:
    ranges = [(2, 5), (7, 15)]
    overlap = first_backward_overlap(Q16, ranges)
    assert overlap == (1, 1, [0])
    left_try, right_try = resolve_backward(Q16, ranges, overlap)
    assert right_try == [(2, 5), (7, 7), (8, 15)]
    assert left_try == [(2, 3), (4, 5), (7, 15)]
    assert first_backward_overlap(Q16, right_try) is None
    assert first_backward_overlap(Q16, left_try) is None


def _naive_first_overlap(tree: KaryNTree, ranges: list[tuple[int, int]]):
    for j in range(1, len(ranges)):
        found = [(i, backward_overlap_level(tree, ranges[i], ranges[j])) for i in range(j)]
        found = [(i, lv) for i, lv in found if lv is not None]
        if found:
            best = max(lv for _, lv in found)
            return j, best, [i for i, lv in found if lv == best]
    return None


@pytest.mark.parametrize("seed", range(3))
def test_the_fast_overlap_scan_matches_checking_every_pair(seed: int) -> None:
    rng = random.Random(seed)
    tree = KaryNTree.for_nodes(256)
    for _ in range(200):
        cuts = sorted(rng.sample(range(1, 256), rng.randint(1, 12)))
        bounds = [0, *cuts, 256]
        ranges = [(a, b - 1) for a, b in itertools.pairwise(bounds) if rng.random() < 0.8]
        assert first_backward_overlap(tree, ranges) == _naive_first_overlap(tree, ranges)


# ---------------------------------------------------------------------- forward overlap
def test_capabilities_of_fig6_and_fig5() -> None:
    # The paper prints vectors top level first: c = (c_1, c_0) on 16 nodes.
    assert capabilities(Q16, {6, 7})[::-1] == (1, 1)
    assert capabilities(Q16, {7, 8})[::-1] == (2, 0)
    assert capabilities(Q16, {0, 2})[::-1] == (1, 1)


def test_fig5_forward_overlap_and_its_two_splits() -> None:
    c = capabilities(Q16, {0, 2})
    n = needs(Q16, [(3, 7), (9, 12)])
    assert n[::-1] == (2, 0)
    assert differences(c, n)[::-1] == (-1, 1)
    assert forward_overlap_level(Q16, c, [(3, 7), (9, 12)]) == 1
    assert split_down(Q16, (3, 7)) == [(3, 3), (4, 7)]
    assert split_down(Q16, (9, 12)) == [(9, 11), (12, 12)]
    # Each branch of Fig. 5 is free of overlaps for the two holders.
    assert forward_overlap_level(Q16, c, [(3, 3), (4, 7)]) is None
    assert forward_overlap_level(Q16, c, [(9, 11), (12, 12)]) is None


def test_a_forward_overlap_needs_more_high_roots_than_holders_have() -> None:
    assert forward_overlap_level(Q16, capabilities(Q16, {7, 8}), [(0, 5), (9, 15)]) is None
    assert forward_overlap_level(Q16, capabilities(Q16, {6, 7}), [(0, 5), (9, 15)]) == 1


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


def test_fig5_branch_through_node_0_needs_three_steps() -> None:
    # After 2 -> [0,0] the holders {0,2} cannot reach [3,7] and [9,12] in one step.
    c = capabilities(Q16, {0, 2})
    assert final_step(Q16, c, [(3, 7), (9, 12)]) is None
    assert final_step(Q16, capabilities(Q16, set(range(2, 8))), [(0, 0), (9, 12)]) is not None


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


# ------------------------------------------------------------------- the last step, exact
def test_last_step_shortcuts_agree_with_the_full_search() -> None:
    """The bounds and the relaxation only ever rule out what the paper's search rules out."""
    tree = KaryNTree.for_nodes(64)
    rng = random.Random(5)
    checked = 0
    for _ in range(40):
        source, dests = random_problem(rng, 64, rng.choice([3, 6, 9]))
        groups = tuple(pending_groups(tree, source, dests))
        for first in groups:
            holders, pending = after_step(tree, frozenset([source]), groups, [first])
            c = capabilities(tree, holders)
            exhaustive = next(search(tree, c, sorted(pending), set(), Budget(None)), None)
            if pieces_lower_bound(tree, c, pending) > len(holders):
                assert exhaustive is None
            if relaxation_rules_out(tree, c, pending):
                assert exhaustive is None
            assert (final_step(tree, c, pending) is None) == (exhaustive is None)
            checked += 1
    assert checked > 100


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


# ------------------------------------------------- rules pinned beyond the 16-node figures
Q64 = KaryNTree.for_nodes(64)


def test_capabilities_count_the_holders_distinct_ways_up() -> None:
    # Holders 0, 1, 4, 5 of 64 nodes: one level-2 way up (all in 16-block 0), two distinct
    # level-1 links (0//4, 4//4), four nodes: D = (4, 2, 1), c_l = D_l - D_{l+1} = (2, 1, 1).
    # Counting one representative per block from the top instead would give c_1 = 2 and
    # three level-1 roots, though 1 and 4 share their level-1 links with 0 and 5's ways up.
    c = capabilities(Q64, {0, 1, 4, 5})
    assert c == (2, 1, 1)
    three = [(20, 27), (36, 43), (52, 59)]  # each rooted at level 1, in blocks 1, 2, 3
    assert needs(Q64, three) == (0, 3, 0)
    assert forward_overlap_level(Q64, c, three) == 1
    assert forward_overlap_level(Q64, c, three[:2]) is None


def test_backward_resolution_cuts_at_the_highest_shared_block_on_64_nodes() -> None:
    # Node 29 absent: [0,28] and [30,63] both span 16-blocks and share block 1 (16..31).
    ranges = [(0, 28), (30, 63)]
    assert backward_overlap_level(Q64, *ranges) == 2
    overlap = first_backward_overlap(Q64, ranges)
    assert overlap == (1, 2, [0])
    left_try, right_try = resolve_backward(Q64, ranges, overlap)
    assert right_try == [(0, 28), (30, 31), (32, 63)]  # overlap-free: [30,31] is in 4-block 7
    assert first_backward_overlap(Q64, right_try) is None
    assert left_try == [(0, 15), (16, 28), (30, 63)]  # [16,28] still shares 4-block 7: level 1
    assert first_backward_overlap(Q64, left_try) == (2, 1, [1])


def test_split_down_cuts_a_level_2_range_at_every_16_block() -> None:
    assert split_down(Q64, (10, 40)) == [(10, 15), (16, 31), (32, 40)]


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
