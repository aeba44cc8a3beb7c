"""collectives.ipmc.plans: Chen2000's scout trees and their frame and barrier message counts
(seed 004's examples), Siebert2006's two-stage dispatch defaults, and nack's
missing-fragment bitmaps, cut at their limit and read back."""

from __future__ import annotations

import pytest

from collectives.ipmc.plans import (
    bitmap_indexes,
    mcast_barrier_messages,
    missing_bitmap,
    mpich_barrier_messages,
    parents,
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
    for tree in (scout_binary_tree(k), scout_linear_tree(k)):
        assert subtree(tree, 0) == list(range(k))
        assert sorted(parents(tree)) == list(range(1, k))


def test_binary_scout_tree_height_is_log2():
    # Chen2000: "log2 K + 1" levels; 8 -> 0 in step 1 runs beside the 3 steps among 0..7
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


def test_missing_bitmap_names_exactly_the_missing_fragments():
    have = bytearray(b"\x01" * 20)
    for i in (3, 4, 11, 19):
        have[i] = 0
    start, bits = missing_bitmap(have, 100)
    assert start == 3 and len(bits) == 3  # fragments 3..26, cut at the message's end
    assert bitmap_indexes(start, bits, 20) == [3, 4, 11, 19]
    assert missing_bitmap(bytearray(b"\x01" * 5), 100) == (0, b"")


def test_missing_bitmap_is_cut_at_its_limit_and_the_rest_comes_later():
    have = bytearray(1000)  # nothing held
    start, bits = missing_bitmap(have, 4)
    assert (start, len(bits)) == (0, 4) and bitmap_indexes(start, bits, 1000) == list(range(32))


@pytest.mark.parametrize("count", [1, 7, 8, 9, 100])
def test_bitmap_round_trips_every_pattern_shape(count):
    import random

    rng = random.Random(count)
    have = bytearray(rng.choice((0, 1)) for _ in range(count))
    start, bits = missing_bitmap(have, 1 << 10)
    assert bitmap_indexes(start, bits, count) == [i for i, h in enumerate(have) if not h]
