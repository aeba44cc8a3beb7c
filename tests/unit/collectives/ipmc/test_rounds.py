"""collectives.ipmc.rounds: Siebert2006's repair rounds: the chain's hops per fragment from the
ranks' multicast bitmaps, the model's expectation (below one at half loss) and the thesis's
sum (tending to one), and summaries of simulated loss near the model."""

from __future__ import annotations

import random

import pytest

from collectives.ipmc.rounds import expected, expected_mean, rounds, summary, thesis_sum


def test_rounds_count_the_hops_back_to_a_rank_the_multicast_reached():
    # root 1 of 4: the chain runs 1 -> 2 -> 3 -> 0; fragment 0 missed by 2 and 3, fragment 1
    # missed by 3 only, fragment 2 missed by 2 only
    bitmaps = [bytes([1, 1, 1]), bytes([0, 0, 0]), bytes([0, 1, 0]), bytes([0, 0, 1])]
    assert rounds(bitmaps, root=1) == [[0, 0, 0], [0, 0, 0], [1, 0, 1], [2, 1, 0]]


def test_rounds_refuse_bitmaps_of_different_lengths():
    with pytest.raises(ValueError, match="rank 1 has 2 fragments"):
        rounds([bytes(3), bytes(2)], root=0)


def test_the_model_stays_below_one_at_half_loss_and_the_thesis_sum_tends_to_one():
    assert expected(0.5, 1) == 0.5 and expected(0.5, 3) == 0.875
    assert expected(0.0, 7) == 0.0 and expected(1.0, 7) == 7.0
    assert expected_mean(0.5, 8) == pytest.approx(sum(1 - 0.5 ** d for d in range(1, 8)) / 7)
    assert all(expected(0.5, d) < 1 for d in range(1, 40))
    assert thesis_sum(2) == 0.25 and thesis_sum(64) == pytest.approx(1.0)
    assert all(thesis_sum(n) < thesis_sum(n + 1) < 1 for n in range(1, 40))


def test_summary_of_random_loss_comes_near_the_model():
    rng, k, q = random.Random(3), 8, 0.5
    draws = [[bytes(int(r == 0 or rng.random() >= q) for _ in range(16)) for r in range(k)]
             for _ in range(400)]
    s = summary(draws, root=0)
    assert s["samples"] == 400 * 16 * 7
    assert s["mean"] == pytest.approx(expected_mean(q, k), abs=0.05)
    assert s["multicast_first"] == pytest.approx(1 - q, abs=0.02)
    assert len(s["mean_by_hops"]) == 7
    assert s["mean_by_hops"][0] == pytest.approx(expected(q, 1), abs=0.05)
    assert s["mean_by_hops"][6] == pytest.approx(expected(q, 7), abs=0.1)
    assert sum(s["hist"].values()) == s["samples"] and s["max"] <= 7


def test_summary_without_loss_has_every_fragment_by_multicast():
    s = summary([[bytes([1] * 4)] * 5] * 3, root=2)
    assert s["mean"] == 0 and s["multicast_first"] == 1 and s["hist"] == {"0": 48}
