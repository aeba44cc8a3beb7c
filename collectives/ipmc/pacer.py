"""A sender's datagrams queued and sent at its pace without blocking: in the concurrent
allgather (ipmc.concurrent) every rank sends its block and takes in everyone else's in one
loop, so a send that slept until its datagram was due (Message.send_paced) would leave the
other p - 1 streams to pile up unread. Data, repairs and end markers go through one queue,
in order: a repair is paced with the data, and the end marker after it really follows it."""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable, Iterable

from . import datagram as dg

Item = tuple[int, int, bytes | memoryview]  # (kind, index, payload)
BURST = 32  # datagrams one pump() sends at most, so that the caller reads in between
SLACK_S = 20e-3  # a sender this far behind its schedule does not catch up in a burst


class Pacer:
    """Sends queued items through `send(kind, index, payload)` at `rate` bit/s of wire
    (None: as fast as pump() is called), each item's due time its predecessor's plus its
    own wire time."""

    def __init__(self, send: Callable[[int, int, bytes | memoryview], None],
                 rate: float | None):
        self.send, self.rate = send, rate
        self.queue: deque[Item] = deque()
        self.due = 0.0

    @property
    def idle(self) -> bool:
        return not self.queue

    def add(self, items: Iterable[Item]) -> None:
        if not self.queue:
            self.due = max(self.due, time.perf_counter())
        self.queue.extend(items)

    def pump(self) -> bool:
        """Send what is due now (at most BURST); True if anything went."""
        now = time.perf_counter()
        self.due = max(self.due, now - SLACK_S)
        sent = 0
        while self.queue and sent < BURST and self.due <= now:
            kind, index, payload = self.queue.popleft()
            self.send(kind, index, payload)
            sent += 1
            if self.rate:
                self.due += dg.wire_bits(len(payload)) / self.rate
        return sent > 0

    def wait(self) -> float:
        """Seconds until the next item is due (inf when the queue is empty)."""
        if not self.queue:
            return math.inf
        return max(0.0, self.due - time.perf_counter())
