"""collectives.ipmc.rate: a receiver that took the first pass in clearly longer than the root
sent it lowers the pace at once to what it took in. Random loss, a lag within the jitter,
short passes and a root that sent late leave the pace, which has a floor; a receiver sleeps
through a batch only mid-pass."""

from __future__ import annotations

from collectives.ipmc import datagram as dg
from collectives.ipmc.rate import (
    BATCH,
    FLOOR_SHARE,
    JITTER_S,
    PROBE,
    Pace,
    PassTiming,
    batch_nap,
)

FRAG = 1400
LINK = 100e6
FRAME = dg.wire_bits(FRAG) / LINK  # seconds per fragment at the link's rate


def on_time(took: int = 100, last: int = 99, rate: float = LINK) -> PassTiming:
    return PassTiming(0, last, took, last * dg.wire_bits(FRAG) / rate * 1.02)


def broadcast(pace: Pace, timings: dict[int, PassTiming]) -> float | None:
    for rank, t in timings.items():
        pace.observe(rank, t, FRAG)
    rate = pace.rate
    pace.settle()
    return rate


def test_a_receiver_behind_sets_the_rate_it_took_data_in() -> None:
    pace = Pace(LINK)
    slow = PassTiming(0, 99, 100, 99 * FRAME * 10)  # a tenth of the root's rate
    pace.observe(1, on_time(), FRAG)
    pace.observe(2, slow, FRAG)
    assert abs(pace.rate - LINK / 10) < LINK * 1e-3 and pace.slow == [2]  # at once
    pace.observe(3, on_time(), FRAG)
    pace.settle()
    assert abs(pace.rate - LINK / 10) < LINK * 1e-3  # no growth after a slow receiver
    broadcast(pace, {1: on_time(rate=pace.rate), 2: on_time(rate=pace.rate)})
    assert abs(pace.rate - LINK / 10 * PROBE) < LINK * 1e-3
    for _ in range(20):
        broadcast(pace, {1: on_time(rate=pace.rate)})
    assert pace.rate == LINK and pace.slow == []


def test_random_loss_does_not_lower_the_pace() -> None:
    pace = Pace(LINK)
    assert broadcast(pace, {r: on_time(took=80) for r in range(1, 16)}) == LINK  # 20 % lost


def test_a_lag_within_the_jitter_or_a_tenth_is_no_evidence() -> None:
    pace = Pace(LINK)
    late = PassTiming(0, 99, 100, 99 * FRAME + 0.9 * JITTER_S)  # 12 ms sent, 1.8 ms late
    assert broadcast(pace, {1: late}) == LINK


def test_short_passes_and_unpaced_roots_leave_the_pace() -> None:
    pace = Pace(LINK)
    slowed = broadcast(pace, {1: PassTiming(0, 99, 100, 99 * FRAME * 10)})
    broadcast(pace, {1: PassTiming(0, 3, 4, 1.0)})  # 4 fragments: no evidence either way
    assert pace.rate == slowed < LINK
    unpaced = Pace(None)
    broadcast(unpaced, {1: PassTiming(0, 99, 100, 10.0)})
    assert unpaced.rate is None


def test_the_pace_has_a_floor() -> None:
    pace = Pace(LINK)
    assert broadcast(pace, {1: PassTiming(0, 99, 2, 100.0)}) == LINK * FLOOR_SHARE


def test_a_root_that_sent_late_is_not_a_slow_receiver() -> None:
    """The root waited for a core mid-pass: the receiver's pass is as long as the root's
    sending, not as the pace says, and the pace stays."""
    pace = Pace(LINK)
    stretched = PassTiming(0, 99, 100, 99 * FRAME * 3)
    pace.observe(1, stretched, FRAG, sent=99 * FRAME * 3)
    assert pace.rate == LINK
    pace.observe(2, stretched, FRAG)  # without the root's own time it is behind
    assert pace.rate < LINK / 2


def test_a_receiver_sleeps_through_a_batch_mid_pass_only() -> None:
    gap = FRAME
    mid = PassTiming(0, 40, 41, 40 * gap)
    assert abs(batch_nap(mid, 730) - BATCH * gap) < 1e-12
    assert batch_nap(PassTiming(0, BATCH - 1, BATCH, (BATCH - 1) * gap), 730) == 0  # too few
    assert batch_nap(PassTiming(0, 730 - 2 * BATCH - 1, 700, 700 * gap), 730) == 0  # the end
    assert batch_nap(mid, 45) == 0  # a short message is read as it comes
