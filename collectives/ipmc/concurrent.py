"""The concurrent multicast allgather (`mcast-concurrent`, issue 39): every rank multicasts
its block at once on the communicator's one group, and nack's repair (ipmc.nack) serves
all p senders at once.

Each rank is the root of its own block (the datagram's root field names the sender: data,
parity and end markers of every block share the group, told apart by it) and a receiver of
the p - 1 others. A sender paces its block at 1/(p-1) of the link rate: the p - 1 streams
together fill each receiver's link, so the first pass takes (p-1) m / B, the floor where
host links are the bottleneck. Blocks of different sizes (an Allgatherv) are paced in
proportion to their sizes (`pace`), so that every first pass ends together. Then, as in
nack, an end marker, and a gap is provable once a receiver holds a sender's last fragment
or saw its end marker.

A receiver reports the gaps of all senders in one datagram (ipmc.gapreport), multicast:
every sender reads its own part. It reports when some sender's gap became provable or that
sender sent an end marker since the last report, at most once per group round trip, so the
reports of the senders whose end markers came close together go in one (one report per
receiver per round, not one per sender). A report also names every block the receiver
holds whole: its "complete". Each sender repairs its own block exactly as nack's root
does (ipmc.nack.Repair: fresh parity symbols, per block as many as the neediest report
lacks beyond what is already on its way), through the same paced queue as its data
(ipmc.pacer), then sends an end marker; end markers repeat while a receiver is
outstanding (ipmc.nack.EndMarker).

MPI is the safety net as in nack: a receiver sends each sender its "complete" over MPI too
(nack.TAG_DONE) the moment that block is whole, and a sender that has sent END_ROBUST end
markers and still hears gaps from a receiver (or nothing for RESCUE_QUIET_S more) sends it
what it lacks over MPI (nack.TAG_BATCH). A rank returns once it holds every block and every
receiver holds its own."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence

from . import datagram as dg
from . import gapreport
from .channel import Channel
from .deadline import Clock, taking
from .message import Message, Options
from .nack import (
    DONE_COPIES,
    END_INFO,
    END_ROBUST,
    RESCUE_QUIET_S,
    RESCUE_RECENT,
    TAG_BATCH,
    TAG_DONE,
    EndMarker,
    Repair,
    arrived,
    take_done,
)
from .pacer import Item, Pacer
from .parity import Encoder
from .plans import bitmap_indexes

# While its own first pass goes, a rank sleeps until its next datagram is due (at most
# this long) and then reads all that came meanwhile: one wake-up for several of the p - 1
# streams' datagrams leaves the cores to the switch and the other ranks (as nack's
# receivers do, ipmc.rate.batch_nap). Its receive buffer holds far more than comes in it.
BATCH_NAP_S = 5e-3
REPORTS = "gap_reports"  # the channel's counter of reports sent (ipmc.channel.Stats)


def report_due(seen: int, reported: int, missing: bool, provable: bool) -> bool:
    """A receiver's report is due for a sender whose last end marker seen is `seen` and
    the last report named `reported` (-1: none yet): it sent an end marker since, and the
    block is whole (tell it again: it has not heard the "complete") or its gap is
    `provable`. The first end marker right after a report made at the last fragment adds
    nothing (as in nack)."""
    if seen <= reported:
        return False
    if not missing:
        return True
    return provable and (reported, seen) != (0, 1)


def rescue_due(end_seq: int, since_end: float, duration: float, reported_at: int) -> bool:
    """A sender sends an outstanding receiver what it lacks over MPI after END_ROBUST end
    markers and as long as the block takes at the pace since the first (`since_end`), if
    the receiver reported gaps at one of the last RESCUE_RECENT (`reported_at`: the end
    marker its latest report named), or whatever it said once RESCUE_QUIET_S more passed
    (ipmc.nack's rescue)."""
    if end_seq <= END_ROBUST or since_end <= duration:
        return False
    return reported_at > end_seq - RESCUE_RECENT or since_end > duration + RESCUE_QUIET_S


class Outgoing(Message):
    """This rank's own block: what nack's Repair sends of it is queued in the pacer."""

    def __init__(self, ch: Channel, view: memoryview, fragment: int, pacer: Pacer):
        super().__init__(ch, view, ch.rank, fragment)
        self.pacer = pacer
        self.have[:] = b"\x01" * self.count
        self.missing = 0

    def send_paced(self, items: Iterable[Item], rate: float | None) -> None:
        self.pacer.add(items)


class Sender:
    """This rank as the root of its block: first pass, repairs, end markers, rescue."""

    def __init__(self, ch: Channel, view: memoryview, o: Options, rate: float | None):
        self.ch, self.rate = ch, rate
        self.pacer = Pacer(lambda kind, i, payload: ch.send(kind, i, self.msg.count, payload),
                           rate)
        self.msg = Outgoing(ch, view, o.fragment, self.pacer)
        self.repair = Repair(self.msg, Encoder(view, self.msg.count, o.fragment))
        self.end = EndMarker(ch, self.msg.count, ch.grtt.value)
        self.out = {r for r in range(ch.size) if r != ch.rank}
        self.lacks: dict[int, list[int]] = {}
        self.reported_at: dict[int, int] = {}
        self.reports: list[tuple[int, list[int]]] = []
        self.rescued: set[int] = set()
        self.end_due, self.repairing = True, False  # the first pass ends in an end marker
        self.duration = self.msg.count * dg.wire_bits(o.fragment) / rate if rate else 0.0
        items: list[Item] = [(dg.DATA, i, self.msg.fragment_view(i))
                             for i in range(self.msg.count)]
        self.pacer.add(items)

    def on_report(self, reporter: int, done: set[int], gaps: dict[int, gapreport.Gaps]) \
            -> None:
        if reporter not in self.out:
            return
        self.end.answered = True
        if self.ch.rank in done:
            self.out.discard(reporter)
            self.lacks.pop(reporter, None)
            return
        mine = gaps.get(self.ch.rank)
        if mine is None:
            return
        idx = bitmap_indexes(mine.start, mine.bitmap, self.msg.count)
        self.lacks[reporter] = idx
        self.reported_at[reporter] = max(mine.seq, self.reported_at.get(reporter, 0))
        self.reports.append((mine.seq, idx))

    def step(self) -> bool:
        """Send what is due: queued datagrams, then the end marker after them, a repair of
        the reports come since, or a repeated end marker. True if anything went."""
        if take_done(self.ch, self.out):
            for r in set(self.lacks) - self.out:
                del self.lacks[r]
        sent = self.pacer.pump()
        if not self.pacer.idle:
            return sent
        if self.end_due:
            self.end.send()
            if self.repairing:
                self.repair.sent(self.end.seq)
            self.end_due = self.repairing = False
            return True
        if self.reports and self.out:
            self.end_due = self.repairing = self.repair.send(self.reports, self.rate)
            self.reports.clear()
            return self.pacer.pump() or self.end_due
        if self.out:
            sent |= self.end.tick()
            self.rescue()
        return sent

    def rescue(self) -> None:
        """Over MPI, what a receiver still lacks after END_ROBUST end markers (and as long
        as the block takes at the pace): one that reported at one of the last RESCUE_RECENT,
        or any outstanding one RESCUE_QUIET_S later (ipmc.nack's rescue)."""
        since_end = time.perf_counter() - self.end.first
        for r in sorted(self.out - self.rescued):
            if rescue_due(self.end.seq, since_end, self.duration,
                          self.reported_at.get(r, -RESCUE_RECENT)):
                frags = self.msg.fragments(self.lacks.get(r, range(self.msg.count)))
                self.ch.linger(self.ch.pcomm.isend((self.ch.bid, frags), dest=r,
                                                   tag=TAG_BATCH))
                self.rescued.add(r)

    @property
    def done(self) -> bool:
        return not self.out and self.pacer.idle and not self.end_due

    def wait(self) -> float:
        """Seconds until something of this sender is due."""
        due = self.pacer.wait()
        if self.pacer.idle and self.out:
            due = min(due, self.end.due - time.perf_counter())
        return due


class Receiver:
    """This rank as a receiver of every other block: reports all gaps in one datagram."""

    def __init__(self, ch: Channel, slots: Sequence[memoryview], o: Options):
        self.ch = ch
        self.msgs = {s: Message(ch, slots[s], s, o.fragment)
                     for s in range(ch.size) if s != ch.rank}
        self.seen = dict.fromkeys(self.msgs, 0)  # each sender's last end marker seen
        self.reported = dict.fromkeys(self.msgs, -1)  # ... that the last report named
        self.whole: set[int] = {ch.rank}  # blocks held whole
        self.last_report = -float("inf")
        self.holdoff = ch.grtt.value

    def on_datagram(self, d: dg.Datagram) -> None:
        msg = self.msgs.get(d.root)
        if msg is None:
            self.ch.stats.reject("shape")
            return
        if d.kind == dg.END and len(d.payload) == END_INFO.size:
            self.seen[d.root] = max(self.seen[d.root], END_INFO.unpack(d.payload)[0])
        msg.on_datagram(d)

    def take_batches(self) -> bool:
        """The senders' point-to-point rescues (those of earlier collectives dropped)."""
        got = False
        for src, (bid, frags) in arrived(self.ch, TAG_BATCH):
            msg = self.msgs.get(src)
            if bid != self.ch.bid or msg is None:
                continue
            for i, data in frags:
                if msg.put(i, data):
                    self.ch.stats["repaired"] += 1
            got = True
        return got

    @property
    def complete(self) -> bool:
        return len(self.whole) == self.ch.size

    def due(self, s: int) -> bool:
        msg = self.msgs[s]
        return report_due(self.seen[s], self.reported[s], bool(msg.missing),
                          bool(msg.end_seen or msg.have[-1]))

    def step(self) -> bool:
        """Note the blocks now whole (their "complete" goes over MPI at once) and send the
        report if one is due. True if anything went."""
        newly = [s for s, msg in self.msgs.items() if not msg.missing and s not in self.whole]
        for s in newly:
            self.whole.add(s)
            self.ch.park(self.ch.pcomm.isend(self.ch.bid, dest=s, tag=TAG_DONE))
        if newly and self.complete:
            for _ in range(DONE_COPIES):
                self.report({})
            return True
        if not (newly or any(self.due(s) for s in self.msgs)) \
                or time.perf_counter() - self.last_report < self.holdoff:
            return False
        lacking = {s: (self.seen[s], msg.needs()) for s, msg in self.msgs.items()
                   if msg.missing and (msg.end_seen or msg.have[-1])}
        self.report(lacking)
        return True

    def report(self, lacking: dict[int, tuple[int, bytearray]]) -> None:
        payload = gapreport.encode(self.ch.size, self.whole, lacking, self.ch.fragment)
        self.ch.send(dg.GAPS, 0, self.ch.size, payload)
        self.ch.stats[REPORTS] = self.ch.stats.get(REPORTS, 0) + 1
        self.last_report = time.perf_counter()
        for s in self.msgs:  # every sender's end markers so far are answered
            self.reported[s] = self.seen[s]

    def wait(self) -> float:
        if self.complete:
            return float("inf")
        return max(0.0, self.last_report + self.holdoff - time.perf_counter())

    def missing(self) -> str:
        lack = {s: m.missing for s, m in self.msgs.items() if m.missing}
        return f"fragments missing of rank(s) {dict(list(lack.items())[:8])}"


def pace(rate: float, sizes: Sequence[int], rank: int) -> float:
    """Rank `rank`'s pace when the p blocks have `sizes` bytes and the links `rate`: B m_i /
    (M - m_min), M the sum of the sizes. Every first pass then takes (M - m_min) / B, and
    receiver j's link carries B (M - m_j) / (M - m_min) <= B. Equal blocks: B / (p-1); an
    empty block (only end markers to send), or all empty: B / (p-1) too."""
    rest = sum(sizes) - min(sizes)
    if not sizes[rank] or not rest:
        return rate / (len(sizes) - 1)
    return rate * sizes[rank] / rest


def allgather_concurrent(ch: Channel, slots: Sequence[memoryview], o: Options) -> None:
    """Every rank's block (`slots[rank]`, already in place) into its slot on every rank.
    The slots may differ in size (an Allgatherv): each sender paces its block in proportion
    to its size (`pace`)."""
    ch.next_bid()
    if ch.size == 1:
        return
    take_done(ch, set())  # "complete"s of earlier collectives, no longer needed
    for _ in arrived(ch, TAG_BATCH):  # and rescues of earlier ones this rank did not need
        pass
    rate = pace(o.rate, [len(v) for v in slots], ch.rank) if o.rate else None
    clock = Clock(ch, o.timeout, f"concurrent allgather {ch.bid}")
    receiver = Receiver(ch, slots, o)
    sender = Sender(ch, slots[ch.rank], o, rate)

    def on_datagram(d: dg.Datagram) -> None:
        if d.root == ch.rank:
            return  # its own, looped back to a rank that shares its host with another
        if d.kind != dg.GAPS:
            receiver.on_datagram(d)
            return
        try:
            done, gaps = gapreport.decode(d.payload, ch.size)
        except ValueError:
            ch.stats.reject("length")
            return
        sender.on_report(d.root, done, gaps)

    while not (sender.done and receiver.complete):
        progressed = sender.step()
        progressed |= taking(ch, on_datagram)
        progressed |= receiver.take_batches()
        progressed |= receiver.step()
        if progressed and not sender.pacer.idle:  # the first pass: let datagrams pile up
            time.sleep(min(sender.pacer.wait(), BATCH_NAP_S))
            continue
        clock.wait(progressed, f"{receiver.missing()}; no complete from rank(s) "
                               f"{sorted(sender.out)[:8]}",
                   limit=min(sender.wait(), receiver.wait()))
