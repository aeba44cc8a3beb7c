"""The message a multicast broadcast carries: assembled from datagrams at a receiver
(`Message`, with what is still missing; parity symbols fill in what they can), multicast
by its root at a paced rate, and the options the multicast broadcasts share (`Options`)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from .. import held
from . import datagram as dg
from . import sockbuf
from .acktree import DEFAULT_ACKS, DEFAULT_FANOUT, check_acks
from .channel import Channel
from .deadline import TIMEOUT_S
from .parity import BLOCK, Decoder, block_range
from .plans import CROSSOVER_NODES, CROSSOVER_SIZE, ROOT_WAIT_US, fragment_count, fragment_range
from .rate import PassTiming, batch_nap

PACE = 1.0  # share of the link rate a multicast sender keeps to, by default


def default_rate() -> float | None:
    """Pace multicast at PACE x MCASTLAB_LINK_MBIT (the testbed sets it to the slowest host
    link), counting every datagram's full size on the wire. The link's own rate: measured
    on a 16-host star at the calibrated 30 Mbit/s (AF_XDP ports, the switch first, ranks
    asleep while they wait), nack's 1 MiB took 1.11 x M/B paced at the link rate, 1.22 x at
    90 % and 1.64 x at 66 %, with no fragment repaired at any of them; 8 hosts at 100 Mbit/s
    (above their envelope): 1.20 x against 1.68 x. The 66 % used before was needed while
    the switch starved (it dropped a quarter of an unpaced 1 MiB burst then). This is where
    a root starts; nack then adapts it to the receivers' reports (ipmc.rate)."""
    mbit = os.environ.get("MCASTLAB_LINK_MBIT")
    try:
        return PACE * float(mbit) * 1e6 if mbit else None
    except ValueError:
        return None


@dataclass
class Options:
    fragment: int
    rate: float | None = field(default_factory=default_rate)  # bit/s, None: unpaced
    timeout: float = TIMEOUT_S
    root_wait_us: float = ROOT_WAIT_US
    crossover_nodes: int = CROSSOVER_NODES
    crossover_size: int = CROSSOVER_SIZE
    rcvbuf: int | None = None  # bytes asked for the group socket; None: the algorithm's own
    # nack's (and the report scouts') completion: every receiver's "complete" to the root
    # ("direct"), or up a tree of this fanout (ipmc.acktree); two-stage and completion
    # "none" have none
    acks: str = DEFAULT_ACKS
    ack_fanout: int = DEFAULT_FANOUT

    def __post_init__(self) -> None:
        sockbuf.check(self.rcvbuf)
        check_acks(self.acks, self.ack_fanout)


class Message:
    """The message being assembled from datagrams, with what is still missing."""

    def __init__(self, ch: Channel, view: memoryview, root: int, fragment: int):
        self.ch, self.view, self.root, self.fragment = ch, view, root, fragment
        self.nbytes = len(view)
        self.count = fragment_count(self.nbytes, fragment)
        self.have = bytearray(self.count)
        self.missing = self.count
        self.heard = self.end_seen = False
        self.last_heard = time.perf_counter()
        self.counting_repairs = False  # the first pass is over: what comes is a repair
        self.parity = Decoder(self.count, fragment)
        self.timing = PassTiming()  # the first pass as this receiver took it (ipmc.rate)
        self.first_at = 0.0  # when its first fragment reached the host (time.time()'s clock)
        self.sent_at = [0.0] * self.count  # the root: when it first sent each fragment

    def put(self, index: int, payload: bytes | bytearray | memoryview) -> bool:
        if self.have[index]:
            self.ch.stats["duplicate"] += 1
            return False
        lo, hi = fragment_range(index, self.nbytes, self.fragment)
        self.view[lo:hi] = payload[:hi - lo]
        self.have[index] = 1
        self.missing -= 1
        if not self.missing:
            held.mark()
        elif self.parity.held(index // BLOCK):
            self.decode(index // BLOCK)
        return True

    def decode(self, block: int) -> None:
        """Fill in what this block lacks once its fragments and parity symbols make enough."""
        for i, payload in self.parity.decode(block, self.have, self.fragment_view):
            if self.put(i, payload):
                self.ch.stats["repaired"] += 1

    def needs(self) -> bytearray:
        """`have`, less what the parity symbols held will make good: per block, the last
        few missing fragments, as many as symbols held, count as had (any k of a block's
        fragments and symbols give it all), so a report asks for only what is needed."""
        out = bytearray(self.have)
        for block in self.parity.symbols:
            gaps = [i for i in block_range(block, self.count) if not out[i]]
            for i in gaps[len(gaps) - min(len(gaps), self.parity.held(block)):]:
                out[i] = 1
        return out

    def on_datagram(self, d: dg.Datagram) -> None:
        st = self.ch.stats
        if d.root != self.root or d.kind not in (dg.DATA, dg.END, dg.PARITY) \
                or d.count != self.count:
            st.reject("shape")
            return
        self.heard = True
        self.last_heard = time.perf_counter()
        if d.kind == dg.END:
            self.end_seen = self.counting_repairs = True
            return
        if d.kind == dg.PARITY:
            block = self.parity.add(d.index, d.payload)
            if block is None:
                st.reject("length")
            elif all(self.have[i] for i in block_range(block, self.count)):
                st["duplicate"] += 1
            else:
                self.decode(block)
            return
        lo, hi = fragment_range(d.index, self.nbytes, self.fragment)
        if len(d.payload) != hi - lo:
            st.reject("length")
            return
        if self.put(d.index, d.payload):
            st["delivered"] += 1
            if self.counting_repairs:
                st["repaired"] += 1
            else:
                t, at = self.timing, d.at or time.time()
                if not t.took:
                    t, self.first_at = PassTiming(first=d.index), at
                self.timing = PassTiming(t.first, d.index, t.took + 1, at - self.first_at)
        # the root sends in order over one path: what comes after the end is a repair
        self.counting_repairs |= d.index == self.count - 1

    def fragments(self, indexes: Iterable[int]) -> list[tuple[int, bytes]]:
        """(index, bytes) of these fragments, for a point-to-point repair."""
        return [(i, bytes(self.view[slice(*fragment_range(i, self.nbytes, self.fragment))]))
                for i in indexes]

    def fragment_view(self, index: int) -> memoryview:
        return self.view[slice(*fragment_range(index, self.nbytes, self.fragment))]

    def batch_nap(self) -> float:
        """Seconds this receiver may sleep before its next read (ipmc.rate.batch_nap)."""
        if self.counting_repairs or self.end_seen:
            return 0.0
        return batch_nap(self.timing, self.count)

    def sent_span(self, first: int, last: int) -> float | None:
        """The root: seconds from first sending fragment `first` to first sending `last`."""
        if not 0 <= first < last < self.count or not self.sent_at[first] \
                or not self.sent_at[last]:
            return None
        return self.sent_at[last] - self.sent_at[first]

    def lacking(self) -> list[int]:
        return [i for i, h in enumerate(self.have) if not h]

    def send_all(self, o: Options, rate: float | None = None) -> None:
        """The root: after the optional root wait, multicast the whole message (at `rate`
        if given, else the options' rate)."""
        if o.root_wait_us > 0:
            time.sleep(o.root_wait_us * 1e-6)
        self.have[:] = b"\x01" * self.count
        self.missing = 0
        self.multicast(range(self.count), rate or o.rate)

    def multicast(self, indexes: range | list[int] | frozenset[int], rate: float | None) -> None:
        """Send these fragments, paced to `rate` bit/s if given (see Options.rate)."""
        self.send_paced(((dg.DATA, i, self.fragment_view(i)) for i in sorted(indexes)), rate)

    def send_paced(self, items: Iterable[tuple[int, int, bytes | memoryview]],
                   rate: float | None) -> None:
        """Multicast (kind, index, payload) datagrams of this message, paced to `rate`."""
        due = time.perf_counter()
        for kind, i, payload in items:
            self.ch.send(kind, i, self.count, payload, root=self.root)
            now = time.perf_counter()
            if kind == dg.DATA and not self.sent_at[i]:
                self.sent_at[i] = now
            if rate:
                due += dg.wire_bits(len(payload)) / rate
                ahead = due - now
                if ahead > 2e-3:
                    time.sleep(ahead)
