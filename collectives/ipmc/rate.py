"""The root's multicast pace, adapted to what the receivers report (ours, after BBR's
delivery rate and NORM-CC's "at most double per round trip"; docs/reliable-multicast.md).

A receiver times its first pass: from the first data fragment it took to the last one it
took before the end marker (when they reached its host: the kernel's receive times, so a
rank that waited for a core to read them is not slow), and how many it took. The root knows
how long it spent sending the fragments between those two (its own clock, at least their
wire time at its pace). A receiver that needed
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
# fragments a receiver lets pile up in its socket before it reads them, in the middle of a
# first pass: one wake-up for several datagrams leaves the cores to the switch and the root
# (16 ranks on 2 cores, 1 MiB: the machine 97 % busy -> 78 %, same time)
BATCH = 8


@dataclass(frozen=True)
class PassTiming:
    """A receiver's first pass: fragment indexes of the first and last taken, how many it
    took, and the seconds between first and last."""

    first: int = 0
    last: int = 0
    took: int = 0
    span: float = 0.0

    def fragments_per_s(self) -> float | None:
        """The rate the pass took fragments in, None if it spans too little to say (fewer
        than MIN_SPAN fragments between first and last, or no time)."""
        if self.last - self.first < MIN_SPAN or self.span <= 0 or self.took < 2:
            return None
        return (self.took - 1) / self.span


class Pace:
    """One root's sending rate in bit/s (None: unpaced), kept across its broadcasts. Within
    a broadcast a slow receiver's report lowers it at once (the repairs go at the new pace);
    at the end of one that had none, it grows."""

    def __init__(self, link: float | None):
        self.link = link
        self.rate = link
        self.slow: list[int] = []  # the receivers that set the last decrease
        self._evidence = self._slowed = False

    def observe(self, rank: int, t: PassTiming, fragment: int,
                sent: float | None = None) -> None:
        """A receiver's timing of the current broadcast's first pass; `sent`: the seconds
        the root took from sending its first fragment to its last (a root that waited for
        a core sent later than its pace says; default: their wire time at the pace)."""
        per_s = t.fragments_per_s()
        if self.rate is None or self.link is None or per_s is None:
            return
        self._evidence = True
        wire = (t.last - t.first) * dg.wire_bits(fragment) / self.rate
        sent = wire if sent is None else max(wire, sent)
        if t.span - sent <= max(JITTER_S, SLOW_SHARE * sent):
            return
        taken = per_s * dg.wire_bits(fragment)
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


def batch_nap(t: PassTiming, count: int) -> float:
    """How long a receiver in the middle of a first pass it has timed so far as `t` (of a
    message of `count` fragments) may sleep before reading again: BATCH fragment times at
    the rate they have reached it, while more than 2 BATCH remain; 0 otherwise (the last
    fragments, the end marker and repairs are read the moment they come)."""
    if t.last - t.first < BATCH or count - 1 - t.last <= 2 * BATCH or t.span <= 0:
        return 0.0
    return BATCH * t.span / (t.last - t.first)
