"""collectives.ipmc.pacer: queued datagrams go in order at the rate's wire time each, a
pump never sends what is not yet due nor more than a burst, an unpaced queue drains at
once, and a sender far behind its schedule does not catch up in one burst."""

from __future__ import annotations

import math
import time

from collectives.ipmc import datagram as dg
from collectives.ipmc.pacer import BURST, SLACK_S, Pacer


class Wire:
    def __init__(self) -> None:
        self.sent: list[tuple[int, int, int]] = []

    def __call__(self, kind: int, index: int, payload: bytes | memoryview) -> None:
        self.sent.append((kind, index, len(payload)))


def test_an_idle_pacer_waits_forever_and_sends_nothing() -> None:
    wire = Wire()
    p = Pacer(wire, 1e6)
    assert p.idle and p.wait() == math.inf and not p.pump() and wire.sent == []


def test_items_go_in_order_one_wire_time_apart() -> None:
    wire = Wire()
    rate = 8 * 1e6  # 1 byte/us: a 1000-byte payload's datagram takes ~1.1 ms
    p = Pacer(wire, rate)
    p.add([(dg.DATA, i, bytes(1000)) for i in range(3)] + [(dg.END, 0, b"")])
    assert p.pump() and wire.sent == [(dg.DATA, 0, 1000)]  # the first is due at once
    assert not p.pump()  # the second is not yet due
    assert 0 < p.wait() <= dg.wire_bits(1000) / rate
    while not p.idle:
        time.sleep(p.wait())
        p.pump()
    assert [i for _, i, _ in wire.sent] == [0, 1, 2, 0] and wire.sent[-1][0] == dg.END


def test_unpaced_drains_a_burst_per_pump() -> None:
    wire = Wire()
    p = Pacer(wire, None)
    p.add([(dg.DATA, i, b"x") for i in range(BURST + 5)])
    p.pump()
    assert len(wire.sent) == BURST and p.wait() == 0.0
    p.pump()
    assert len(wire.sent) == BURST + 5 and p.idle


def test_a_late_sender_catches_up_at_most_its_slack() -> None:
    wire = Wire()
    rate = 8 * 1e6
    p = Pacer(wire, rate)
    p.add([(dg.DATA, i, bytes(1000)) for i in range(BURST)])
    time.sleep(10 * SLACK_S)  # far behind: only the slack's worth is sent back to back
    p.pump()
    assert 1 <= len(wire.sent) <= SLACK_S * rate / dg.wire_bits(1000) + 2
