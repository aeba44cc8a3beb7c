"""collectives.exchanges.model: the floor (p - 1) m / B, each exchange's time as the sum of
its steps' busiest ranks, and the data frames its messages take."""

from __future__ import annotations

import pytest

from collectives.exchanges.model import data_frames, floor_s, predict_s, step_bytes
from collectives.exchanges.schedules import build


def test_the_floor_is_every_other_block_through_ones_own_link():
    assert floor_s(16, 65536, 10.0) == pytest.approx(15 * 65536 * 8 / 10e6)
    assert floor_s(1, 65536, 10.0) == 0.0


def t_end(nbytes: int) -> float:
    return 100e-6 + nbytes * 1e-8  # a start-up and a per-byte cost


@pytest.mark.parametrize("p", [2, 5, 8, 16])
def test_ring_is_p_minus_1_one_block_steps(p):
    assert predict_s(build("ring", p), 1000, t_end) == pytest.approx((p - 1) * t_end(1000))


def test_recursive_doubling_on_a_power_of_two_doubles_its_message_each_step():
    s = build("recursive-doubling", 8)
    assert [step_bytes(step, 1000) for step in s.steps] == [1000, 2000, 4000]
    assert predict_s(s, 1000, t_end) == pytest.approx(3 * 100e-6 + 7000 * 1e-8)


def test_bruck_on_five_moves_the_ring_bytes_in_three_steps():
    s = build("bruck", 5)
    assert [step_bytes(step, 10) for step in s.steps] == [10, 20, 10]
    # fewer start-ups than the ring's four, the same bytes
    assert predict_s(s, 10, t_end) < predict_s(build("ring", 5), 10, t_end)


def test_a_stand_in_sends_twice_and_the_step_costs_its_bytes():
    """p = 5, step d = 4: the lower four get rank 4's block from rank 4 alone."""
    last = build("recursive-doubling", 5).steps[-1]
    assert step_bytes(last, 100) == 4 * 100


@pytest.mark.parametrize("algorithm, frames", [("ring", 4 * 3 * 1), ("bruck", 4 * 2)])
def test_data_frames_of_small_blocks_are_one_per_message(algorithm, frames):
    assert data_frames(build(algorithm, 4), 100) == frames


def test_a_large_block_takes_a_frame_per_mss():
    # 8 ranks, ring: 8 x 7 messages of 64 KiB, ceil(65536 / 1448) = 46 frames each
    assert data_frames(build("ring", 8), 65536) == 56 * 46
    # a message that fills its last frame takes one more with a header before it
    assert data_frames(build("ring", 2), 1448) == 2
    assert data_frames(build("ring", 2), 1448, header=40) == 4


def test_a_multicast_allgather_sends_each_block_once_in_datagrams():
    from collectives.exchanges.model import multicast_frames
    from collectives.ipmc.datagram import payload_for_mtu

    per = payload_for_mtu(1500)
    assert multicast_frames(5, 65536) == 5 * -(-65536 // per)
    assert multicast_frames(16, 0) == 16 and multicast_frames(16, per) == 16
    assert multicast_frames(16, per + 1) == 32
