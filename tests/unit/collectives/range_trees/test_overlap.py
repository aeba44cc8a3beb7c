"""collectives.range_trees.overlap: backward and forward overlaps on Coll et al.'s figures (eq.
1 on the Fig. 4 groups, the capabilities of Figs. 5 and 6, Fig. 5's forward overlap and its
splits), the fast overlap scan against checking every pair, and the rules pinned beyond the
16-node figures."""

from __future__ import annotations

import itertools
import random

import pytest

from collectives.range_trees.final_step import final_step
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

Q16 = KaryNTree.for_nodes(16)


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


def test_fig5_branch_through_node_0_needs_three_steps() -> None:
    # After 2 -> [0,0] the holders {0,2} cannot reach [3,7] and [9,12] in one step.
    c = capabilities(Q16, {0, 2})
    assert final_step(Q16, c, [(3, 7), (9, 12)]) is None
    assert final_step(Q16, capabilities(Q16, set(range(2, 8))), [(0, 0), (9, 12)]) is not None


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
