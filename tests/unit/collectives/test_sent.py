"""The sending queue a rank reports (collectives.sent): when each message of a broadcast
started leaving and had left, counted from the call, and the summary over broadcasts that
programs.bcast_bench reports for the root."""

from __future__ import annotations

import pytest

from collectives import sent


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """time.time() as sent sees it: the test sets now[0]."""
    now = [100.0]
    monkeypatch.setattr(sent.time, "time", lambda: now[0])
    return now


def test_fifo_times_from_the_call(clock: list[float]) -> None:
    """Three sends one after the other: each started when the previous had left (the fifo
    wait saw the rank's queue empty), the last seen leaving by a look at the end."""
    sent.start()
    assert sent.since_call() == [] and not sent.unseen()
    for at in (100.001, 100.002, 100.004):  # handed over ...
        clock[0] = at
        if sent.unseen():  # ... once the fifo wait saw the previous gone
            sent.left()
        sent.started()
    assert sent.unseen()
    clock[0] = 100.006
    sent.left()
    assert not sent.unseen()
    got = sent.since_call()
    assert [s for s, _ in got] == pytest.approx([0.001, 0.002, 0.004])
    assert [t for _, t in got] == pytest.approx([0.002, 0.004, 0.006])


def test_overlapped_every_message_leaves_when_the_queue_drained(clock: list[float]) -> None:
    sent.start()
    for at in (100.0005, 100.001):
        clock[0] = at
        sent.started()
    clock[0] = 100.003
    sent.left()
    assert [t for _, t in sent.since_call()] == pytest.approx([0.003, 0.003])


def test_a_new_broadcast_starts_empty(clock: list[float]) -> None:
    sent.start()
    sent.started()
    clock[0] = 101.0
    sent.start()
    assert sent.since_call() == [] and not sent.unseen()


def test_summary_over_broadcasts() -> None:
    """Per broadcast the mean queue delay over its messages; the medians over broadcasts;
    a broadcast whose last message was never seen leaving counts for the queue delay only."""
    a = [(0.001, 0.002), (0.002, 0.004), (0.004, 0.006)]  # queued mean 0.00233, left 0.004
    b = [(0.001, 0.003), (0.003, 0.005), (0.005, 0.009)]  # 0.003, 0.00567
    c = [(0.001, 0.002), (0.002, 0.003), (0.003, None)]   # 0.002, left unknown
    out = sent.summary([a, b, c, []])
    assert out is not None
    assert out["broadcasts"] == 3 and out["sends"] == 3
    assert out["queued_s"] == pytest.approx(0.007 / 3)
    assert out["left_s"] == pytest.approx((0.004 + 0.017 / 3) / 2)
    assert out["drained_s"] == pytest.approx(0.0075)
    assert out["per_send_s"][0] == pytest.approx([0.001, 0.002])
    assert out["per_send_s"][2] == pytest.approx([0.004, 0.0075])


def test_summary_without_messages_is_none() -> None:
    assert sent.summary([]) is None
    assert sent.summary([[], []]) is None
