"""Pure plans of the multicast collectives: seed 004's scout trees and counts, seed 002's
dispatch, nack's repair plan."""

from __future__ import annotations

import pytest

from collectives.mcast_plans import (
    mcast_barrier_messages,
    mpich_barrier_messages,
    parents,
    plan_repair,
    report_tree,
    scout_binary_tree,
    scout_frames,
    scout_linear_tree,
    subtree,
    tree_frames,
    two_stage_dispatch,
)


def test_binary_scout_tree_is_seed_004s_seven_process_example():
    # step 1: 4->0, 5->1, 6->2; step 2: 1->0, 3->2; step 3: 2->0
    assert scout_binary_tree(7) == {0: [4, 1, 2], 1: [5], 2: [6, 3]}


@pytest.mark.parametrize("k", range(1, 40))
def test_scout_trees_span_every_rank_once(k):
    for tree in (scout_binary_tree(k), scout_linear_tree(k), report_tree(k)):
        assert subtree(tree, 0) == list(range(k))
        assert sorted(parents(tree)) == list(range(1, k))


def test_binary_scout_tree_height_is_log2():
    # seed 004: "log2 K + 1" levels; 8 -> 0 in step 1 runs beside the 3 steps among 0..7
    ups = parents(scout_binary_tree(9))
    assert max(_depth(ups, r) for r in range(9)) == 3


def _depth(ups, r):
    d = 0
    while r:
        r, d = ups[r], d + 1
    return d


def test_frame_counts_of_seed_004():
    # tree: (M/T + 1)(N - 1); scouts: (N - 1) + M/T + 1
    assert tree_frames(100, 1500, 4) == 3 and scout_frames(100, 1500, 4) == 4
    assert tree_frames(2000, 1500, 7) == 12 and scout_frames(2000, 1500, 7) == 8
    assert tree_frames(8192, 1500, 9) == 48 and scout_frames(8192, 1500, 9) == 14


def test_barrier_message_counts_of_seed_004():
    assert mpich_barrier_messages(7) == 14  # 6 + 8, the paper's worked value
    assert mpich_barrier_messages(9) == 26  # 2 + 24
    assert mpich_barrier_messages(8) == 24
    assert mcast_barrier_messages(7) == 7 and mcast_barrier_messages(1) == 0


def test_two_stage_dispatch_uses_the_thesis_defaults():
    assert two_stage_dispatch(3, 1000) == "sequential"       # crossover_nodes 4
    assert two_stage_dispatch(4, 1000) == "two-stage"
    assert two_stage_dispatch(16, 1 << 20) == "two-stage"     # crossover_size 1 MiB
    assert two_stage_dispatch(16, (1 << 20) + 1) == "fragmented-chain"
    assert two_stage_dispatch(2, 1000, crossover_nodes=2) == "two-stage"


def test_repair_plan_multicasts_what_several_lack_and_sends_the_rest_directly():
    plan = plan_repair({1: {0, 1, 5}, 2: {1, 5}, 3: {7}})
    assert plan.multicast == {1, 5}
    assert plan.p2p == {1: {0}, 3: {7}}


def test_final_repair_round_is_point_to_point_only():
    plan = plan_repair({1: {0, 1}, 2: {1}}, final=True)
    assert plan.multicast == frozenset() and plan.p2p == {1: {0, 1}, 2: {1}}
    assert plan_repair({}).empty


def test_repair_plan_rejects_a_bad_threshold():
    with pytest.raises(ValueError):
        plan_repair({1: {0}}, mcast_min=0)


def test_multicast_pacing_follows_the_link_rate(monkeypatch):
    from collectives.mcast_bcast import PACE, Options, default_rate

    monkeypatch.setenv("MCASTLAB_LINK_MBIT", "100")
    assert default_rate() == pytest.approx(PACE * 100e6)
    assert Options(fragment=1444).rate == pytest.approx(PACE * 100e6)
    monkeypatch.setenv("MCASTLAB_LINK_MBIT", "fast")
    assert default_rate() is None
    monkeypatch.delenv("MCASTLAB_LINK_MBIT")
    assert Options(fragment=1444, rate=None).rate is None
