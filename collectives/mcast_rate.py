"""The root's multicast pace, adapted to what the receivers report (ours, after BBR's
delivery rate and NORM-CC's "at most double per round trip"; docs/reliable-multicast.md).

A receiver times its first pass: from the first data fragment it took to the last one it
took before the end marker, and how many it took. The root knows how long it spent sending
the fragments between those two (their wire time at its pace). A receiver that needed
clearly longer (by more than SLOW_SHARE of the root's time and JITTER_S) could not keep
up (a slower link, a busy core, a full queue): the next broadcast goes at the rate it took
data in. Loss alone does not lower the pace: random loss thins what arrives but does not
stretch the time it arrives in, and on a cluster loss is rarely congestion (the loss
experiments drop 10 % of packets at any rate). Without such a receiver the pace grows by
PROBE per broadcast back to the link's rate.

    [seq:4][first:4][last:4][took:4][span:8]   a report's timing (REPORT_INFO), big-endian
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from . import datagram as dg

REPORT_INFO = struct.Struct("!IIIId")  # last end marker seen, then the first pass's timing
PROBE = 1.25  # growth per broadcast without a slow receiver (BBR's probing gain)
SLOW_SHARE = 0.10  # a receiver this much slower than the root's sending is behind
FLOOR_SHARE = 1 / 64  # the pace never falls below this share of the link
MIN_SPAN = 8  # fragments between first and last before a pass's timing counts
# a woken rank reads its first datagram up to ~0.2 ms late (bench/fidelity.md); the GRTT is
# no measure of this, a slow receiver's queue is in it (it read 30-45 ms with one)
JITTER_S = 2e-3


@dataclass(frozen=True)
class PassTiming:
    """A receiver's first pass: fragment indexes of the first and last taken, how many it
    took, and the seconds between first and last."""

    first: int = 0
    last: int = 0
    took: int = 0
    span: float = 0.0


class Pace:
    """One root's sending rate in bit/s (None: unpaced), kept across its broadcasts. Within
    a broadcast a slow receiver's report lowers it at once (the repairs go at the new pace);
    at the end of one that had none, it grows."""

    def __init__(self, link: float | None):
        self.link = link
        self.rate = link
        self.slow: list[int] = []  # the receivers that set the last decrease
        self._evidence = self._slowed = False

    def observe(self, rank: int, t: PassTiming, fragment: int) -> None:
        """A receiver's timing of the current broadcast's first pass."""
        if self.rate is None or self.link is None or t.last - t.first < MIN_SPAN \
                or t.span <= 0:
            return
        self._evidence = True
        sent = (t.last - t.first) * dg.wire_bits(fragment) / self.rate
        if t.span - sent <= max(JITTER_S, SLOW_SHARE * sent):
            return
        taken = (t.took - 1) * dg.wire_bits(fragment) / t.span
        if taken < self.rate:
            self.rate = max(self.link * FLOOR_SHARE, taken)
            self.slow = [rank] if not self._slowed else [*self.slow, rank]
            self._slowed = True

    def settle(self) -> None:
        """The broadcast is over: without a slow receiver, grow toward the link's rate."""
        if self.rate is not None and self.link is not None and self._evidence \
                and not self._slowed:
            self.slow = []
            self.rate = min(self.link, self.rate * PROBE)
        self._evidence = self._slowed = False
