"""nack's repair: every decision on evidence, the control traffic as datagrams (ours; the
sources of each choice are in docs/reliable-multicast.md).

The root multicasts the message, then an end marker (its sequence number and the root's
group round trip, GRTT). A receiver reports to the root's unicast socket as soon as a gap
is provable (it holds the last fragment, or saw an end marker: the root sends in order over
one path, so what is missing then is lost), and again at every later end marker while it
still lacks something; a report names the last end marker seen and the missing fragments
(a bitmap, of as many as it needs: parity symbols it holds count). The root repairs with
fresh parity symbols, per block as many as the neediest report lacks beyond those sent
after the end marker it had seen (ipmc.parity; data again once a block's symbols are
spent), then sends an end marker: no timer decides what is lost. Reports also time the
receiver's first pass, and the root's next pace follows a receiver that could not keep up
(ipmc.rate). An empty report says "complete"; the root returns once every receiver has said
so: each to the root (acks="direct"), or up a k-ary tree of acknowledgements (acks="tree",
the default: an inner rank sends one ACK for its subtree once its children's have come, so
the root's link carries `ack_fanout` of them, not N - 1: ipmc.acktree); gap reports always
go straight to the root. End markers repeat every two GRTT while a receiver is outstanding
(NORM's flush: a receiver that lost everything, end markers included, still learns there
was a broadcast), at doubling intervals after END_ROBUST of them, and a receiver answers
them even after it returned (Channel.finished).

Datagrams can all be lost; MPI's TCP cannot. So every receiver sends its "complete" a few
times (DONE_COPIES; in the tree once unless it saw loss lately) and also over MPI, to whom
the datagram went (the root, or the parent, takes it when no datagram came), and one
outstanding after END_ROBUST end markers (and as long again as the message took) that
still reports gaps (at one of the last RESCUE_RECENT end markers) is sent what it lacks
over MPI: the broadcast completes whatever the loss, and no rank waits for one that has
left. A receiver that has gone quiet is sent nothing until RESCUE_QUIET_S later: almost
always it has returned, its "complete"s were lost and its MPI copy is on the way (a rescue
of everything it once lacked, 1 MiB at 10 % loss of every packet, took TCP minutes and held
up every later MPI message between the two ranks behind it: bench/nack.md, 2026-11-25).

Timers: the one timer between a lost datagram and its repair is the end marker's repeat,
2 GRTT, the GRTT measured (ipmc.grtt), as NORM scales its flush and Aeron its NAK delay to
their round trips; it is in the path only where a second datagram is lost too (the first end
marker, or the receiver's first report). A gap is reported at evidence, and the repair's
hold-off counts end markers, not time. The fixed times left are safety nets that no single
loss reaches (RESCUE_QUIET_S) or waits that any datagram or MPI message ends (the naps of
ipmc.deadline). What one loss costs, measured, and every timer: docs/reliable-multicast.md,
"What one loss costs"; each broadcast's account: `Channel.repairs` (ipmc.accounting)."""

from __future__ import annotations

import statistics
import struct
import time
from collections.abc import Callable, Iterator
from dataclasses import astuple
from typing import Any

from . import acktree
from . import datagram as dg
from .accounting import RepairAccount
from .acktree import AckTree, Cover
from .channel import Channel
from .deadline import Clock, taking
from .message import Message, Options
from .parity import BLOCK, Encoder, symbols_needed
from .plans import bitmap_indexes, missing_bitmap
from .rate import REPORT_INFO, Pace, PassTiming

TAG_BATCH, TAG_DONE = 0x5C03, 0x5C04
END_ROBUST = 20  # end markers 2 GRTT apart before the interval doubles (NORM's 20)
RESCUE_RECENT = 3  # a receiver reporting gaps at one of the last this many end markers
# a receiver quiet this long past that point is sent what it lacks all the same: it hears no
# multicast at all (its MPI "complete" would have come: TCP's retransmission timeouts at 10 %
# loss of every packet, 0.2 + 0.4 + 0.8 s for three losses in a row of a segment that
# crosses two lossy links, 0.19^3: one time in 150)
RESCUE_QUIET_S = 3.0
END_INFO = struct.Struct("!Id")  # an end marker's payload: sequence number, root's GRTT (s)
# A receiver's "complete" goes out this many times, back to back: a lost one leaves the
# root waiting until the receiver answers an end marker, which it does only in its next
# multicast collective, or until the MPI copy comes (TCP: 200 ms if its segment is lost).
# At 10 % loss of every packet on every host link a datagram from host to host crosses two
# lossy links (lost 19 % of the time): some receiver's every copy lost, among 15, in
# 1 - (1 - 0.19^3)^15 = 10 % of broadcasts with 3 copies (96 % with one).
DONE_COPIES = 3


# End markers no receiver answered double their interval up to this many times 2 GRTT: a
# receiver behind a queue (a slower link) answers late, and end markers 2 GRTT apart filled
# its queue and ran out END_ROBUST before its first report came (measured: 20 in 44 ms, the
# report at 76 ms, with a 10 Mbit/s receiver among 100 Mbit/s ones)
SILENT_MAX = 8


class EndMarker:
    """The root's end markers, numbered from 1: after the message, after every repair, and
    every 2 GRTT while receivers are outstanding (longer while none answers)."""

    def __init__(self, ch: Channel, count: int, grtt: float):
        self.ch, self.count, self.grtt = ch, count, grtt
        self.interval = 2 * grtt
        self.answered = True
        self.seq = 0
        self.first = self.due = 0.0
        self.sent_at: dict[int, float] = {}

    def send(self) -> None:
        now = time.perf_counter()
        if not self.seq:
            self.first = now
        self.seq += 1
        self.sent_at[self.seq] = now
        self.ch.send(dg.END, 0, self.count, END_INFO.pack(self.seq, self.grtt))
        if self.seq > END_ROBUST:
            self.interval *= 2
        elif self.answered:
            self.interval = 2 * self.grtt
        else:
            self.interval = min(2 * self.interval, SILENT_MAX * 2 * self.grtt)
        self.answered = False
        self.due = now + self.interval

    def tick(self) -> bool:
        if time.perf_counter() < self.due:
            return False
        self.send()
        return True


def serve(ch: Channel, msg: Message, o: Options, clock: Clock) -> None:
    """The root: multicast the message, repair what is reported, return when every
    receiver holds it all (what the repair cost: `ch.repairs`, ipmc.accounting)."""
    called = time.perf_counter()
    take_done(ch, set())  # the MPI "complete"s of earlier broadcasts, no longer needed
    take_batch(ch, msg)  # and repairs of earlier ones this rank did not need (all stale)
    cover = Cover(AckTree(ch.size, ch.rank, o.ack_fanout), ch.rank)
    out = cover.waiting  # every receiver, until its report or an ACK above it covers it
    # an MPI "complete" covers its sender (direct) or its sender's subtree (a child's)
    by_mpi_copy = cover.direct if o.acks == "direct" else cover.subtree
    lacks: dict[int, list[int]] = {}  # each receiver's latest report
    reported_at: dict[int, int] = {}  # the end marker each receiver's latest report named
    repair = Repair(msg, Encoder(msg.view, msg.count, o.fragment))
    reports: list[tuple[int, list[int]]] = []
    rescued: set[int] = set()
    heard = {"gaps": False, "last_done": 0.0}
    first_gap: list[tuple[float, int]] = []  # the first gap report: arrival (time.time()),
    # the end marker it named
    trips: list[float] = []  # end marker -> the report it prompted
    timed: set[int] = set()  # receivers whose first pass's timing came (ipmc.rate)
    if ch.pace is None or ch.pace.link != o.rate:
        ch.pace = Pace(o.rate)
    pace = ch.pace

    def on_ack(d: dg.Datagram) -> None:
        a = ack_of(ch, cover, d)
        if a is not None and cover.ack(d.root, a):
            end.answered = True
            if a.slowest not in timed:
                timed.add(a.slowest)
                t = a.timing
                pace.observe(a.slowest, t, o.fragment, msg.sent_span(t.first, t.last))
            for r in set(lacks) - out:
                del lacks[r]
            heard["last_done"] = time.perf_counter()

    def on_datagram(d: dg.Datagram) -> None:
        if d.kind == dg.ACK and d.count == msg.count:
            on_ack(d)
            return
        if d.kind != dg.REPORT or d.count != msg.count:
            ch.stats.reject("shape")
            return
        if len(d.payload) < REPORT_INFO.size:
            ch.stats.reject("length")
            return
        if d.root not in out:
            return  # a second "complete", or a report its sender has since made good
        end.answered = True  # by a receiver still outstanding
        seq, *timing = REPORT_INFO.unpack_from(d.payload)
        if d.root not in timed:
            timed.add(d.root)
            t = PassTiming(*timing)
            pace.observe(d.root, t, o.fragment, msg.sent_span(t.first, t.last))
        if len(d.payload) == REPORT_INFO.size:  # nothing missing
            out.discard(d.root)
            lacks.pop(d.root, None)
            heard["last_done"] = time.perf_counter()
            return
        if not first_gap:
            first_gap.append((d.at or time.time(), seq))
        if seq in end.sent_at:  # a report at an end marker goes out when it comes
            trips.append(time.perf_counter() - end.sent_at[seq])
        lacks[d.root] = bitmap_indexes(d.index, d.payload[REPORT_INFO.size:], msg.count)
        reported_at[d.root] = max(seq, reported_at.get(d.root, 0))
        reports.append((seq, lacks[d.root]))
        heard["gaps"] = True

    if pace.rate:  # the estimate never falls below one frame time at the paced rate
        ch.grtt.floor = dg.wire_bits(o.fragment) / pace.rate
    end = EndMarker(ch, msg.count, ch.grtt.value)
    msg.send_all(o, pace.rate)
    sent_wall = time.time()
    end.send()
    by_mpi = False
    rounds = mpi_done = 0
    while out:
        progressed = taking(ch, on_datagram)
        waiting_for = len(out)
        if take_done_by(ch, by_mpi_copy):
            progressed = by_mpi = True
            mpi_done += waiting_for - len(out)
        if reports:
            sent = repair.send(reports, pace.rate)
            reports.clear()
            if sent:
                rounds += 1
                end.send()
                repair.sent(end.seq)
        elif out:
            end.tick()
        # a receiver may lag the root by as long as the message takes (it takes every
        # datagram in, the root only sends), at the pace a slow receiver has set: no rescue
        # before that much time has passed since the end
        duration = msg.count * dg.wire_bits(o.fragment) / pace.rate if pace.rate else 0.0
        since_end = time.perf_counter() - end.first
        if end.seq > END_ROBUST and since_end > duration:
            quiet = since_end > duration + RESCUE_QUIET_S
            for r in sorted(out - rescued):
                if reported_at.get(r, -RESCUE_RECENT) <= end.seq - RESCUE_RECENT \
                        and not quiet:
                    continue  # quiet: returned, its "complete"s lost (the MPI copy comes)
                frags = msg.fragments(lacks.get(r, range(msg.count)))
                ch.linger(ch.pcomm.isend((ch.bid, frags), dest=r, tag=TAG_BATCH))
                rescued.add(r)
        clock.wait(progressed, f"no report from rank(s) {sorted(out)[:8]}",
                   limit=end.due - time.perf_counter())
    gap_at, gap_seq = first_gap[0] if first_gap else (None, None)
    ch.repairs.append((ch.bid, RepairAccount(
        rounds, None if gap_at is None else gap_at - sent_wall, gap_seq, end.grtt,
        end.first - called, time.perf_counter() - called, end.seq, mpi_done, len(rescued))))
    if not heard["gaps"] and not by_mpi:  # a clean sample of the report round trip
        ch.grtt.update(heard["last_done"] - end.first)
    elif trips:
        ch.grtt.update(statistics.median(trips))
    pace.settle()


class Repair:
    """What the root sends for a batch of reports: per block, as many fresh parity symbols
    as the neediest report lacks beyond the symbols sent after the end marker it had seen
    (those were still on their way); data fragments again once a block has no symbols
    left, each unless re-sent after that report's end marker. The end marker after a
    repair is the evidence that it came or was lost: the hold-off is exact, not timed."""

    def __init__(self, msg: Message, enc: Encoder):
        self.msg, self.enc = msg, enc
        self.symbols: dict[int, list[int]] = {}  # block -> the end marker after each symbol
        self.resent: dict[int, int] = {}  # fragment -> the end marker after its last re-send
        self.pending: tuple[list[int], list[int]] = ([], [])  # (a block per symbol, data)

    def send(self, reports: list[tuple[int, list[int]]], rate: float | None) -> bool:
        """Send the repair of these (end marker seen, fragments needed) reports; False if
        there was nothing to send."""
        need = symbols_needed(reports, self.symbols)
        items: list[tuple[int, int, bytes | memoryview]] = []
        blocks, data = self.pending = ([], [])
        for b, n in sorted(need.items()):
            syms = list(self.enc.fresh(b, n))
            items += [(dg.PARITY, i, p) for i, p in syms]
            blocks += [b] * len(syms)
            if len(syms) < n:  # the block's symbols are spent
                again = sorted({i for seq, idx in reports for i in idx if i // BLOCK == b
                                and seq >= self.resent.get(i, 0)})
                items += [(dg.DATA, i, self.msg.fragment_view(i)) for i in again]
                data += again
        self.msg.send_paced(items, rate)
        return bool(items)

    def sent(self, end_seq: int) -> None:
        """The end marker `end_seq` followed the repair just sent."""
        blocks, data = self.pending
        for b in blocks:
            self.symbols.setdefault(b, []).append(end_seq)
        self.resent.update(dict.fromkeys(data, end_seq))
        self.pending = ([], [])


def receive(ch: Channel, msg: Message, o: Options, clock: Clock) -> None:
    """A receiver: take the multicast, report gaps at the evidence, return once complete
    (after telling the root, by datagram and over MPI), in a tree of acknowledgements once
    its subtree is complete too (after telling its parent)."""
    root = msg.root
    tree = AckTree(ch.size, root, o.ack_fanout) if o.acks == "tree" else None
    cover = None if tree is None else Cover(tree, ch.rank)
    take_done_by(ch, (lambda _: False) if cover is None else cover.subtree)
    seen = [0]  # the last end marker seen
    reported = -1  # the end marker the last report named (-1: none yet)

    def on_datagram(d: dg.Datagram) -> None:
        if d.kind == dg.ACK and cover is not None and d.count == msg.count:
            a = ack_of(ch, cover, d)
            if a is not None:
                cover.ack(d.root, a)
            return
        if d.kind == dg.END and d.root == root and len(d.payload) == END_INFO.size:
            seen[0] = max(seen[0], END_INFO.unpack(d.payload)[0])
        msg.on_datagram(d)

    def head() -> bytes:  # a report's payload up to its bitmap (ipmc.rate.REPORT_INFO)
        return REPORT_INFO.pack(seen[0], *astuple(msg.timing))

    while msg.missing:
        progressed = taking(ch, on_datagram)
        progressed |= take_batch(ch, msg)
        provable = msg.end_seen or msg.have[-1]
        # the first end marker right after a report made at the last fragment adds nothing
        if msg.missing and provable and seen[0] > reported and (reported, seen[0]) != (0, 1):
            start, bits = missing_bitmap(msg.needs(), ch.fragment - REPORT_INFO.size)
            ch.send_to(root, dg.REPORT, start, msg.count, head() + bits)
            reported = seen[0]
            ch.last_loss = ch.bid
        nap = msg.batch_nap() if progressed else 0.0
        if nap:
            time.sleep(nap)
            continue
        clock.wait(progressed, f"{msg.missing} of {msg.count} fragment(s) missing, "
                               f"{'reported' if reported >= 0 else 'no end marker yet'}")
    if tree is None or cover is None:
        done = head()
        for _ in range(DONE_COPIES):
            ch.send_to(root, dg.REPORT, 0, msg.count, done)
        ch.park(ch.pcomm.isend(ch.bid, dest=root, tag=TAG_DONE))
        ch.finished(root, msg.count, done)
        return
    cover.timing(ch.rank, msg.timing)
    while cover.waiting:
        progressed = taking(ch, on_datagram) | take_done_by(ch, cover.subtree)
        clock.wait(progressed, f"holds the message, no completion from the subtree(s) of "
                               f"rank(s) {cover.missing_children()}")
    assert cover.slowest is not None  # its own timing at least
    slowest, timing = cover.slowest
    ack = acktree.encode(acktree.Ack(seen[0], timing, o.ack_fanout,
                                     len(tree.subtree(ch.rank)), slowest))
    parent = tree.parent(ch.rank)
    assert parent is not None  # a receiver is never the tree's root
    for _ in range(acktree.copies(ch.last_loss, ch.bid, DONE_COPIES)):
        ch.send_to(parent, dg.ACK, 0, msg.count, ack)
    ch.park(ch.pcomm.isend(ch.bid, dest=parent, tag=TAG_DONE))
    ch.finished(root, msg.count, ack, dg.ACK)  # later end markers: answered to the root


def ack_of(ch: Channel, cover: Cover, d: dg.Datagram) -> acktree.Ack | None:
    """The ACK datagram `d` carries if it is one of `cover`'s tree (the root's and an inner
    rank's alike); otherwise None, counted rejected ("length", "shape")."""
    a = acktree.decode(d.payload)
    if a is None:
        ch.stats.reject("length")
    elif not cover.fits(d.root, a):
        ch.stats.reject("shape")
    else:
        return a
    return None


def take_done(ch: Channel, out: set[int]) -> bool:
    """Take the "complete"s that came over MPI; those of this broadcast leave `out`. True
    if one of them did."""
    def covers(src: int) -> bool:
        if src not in out:
            return False
        out.discard(src)
        return True

    return take_done_by(ch, covers)


def take_done_by(ch: Channel, covers: Callable[[int], bool]) -> bool:
    """Take the "complete"s that came over MPI; those of this broadcast go to `covers`
    (by their sender: True if it covered a rank still awaited), those of earlier ones are
    dropped. True if one covered something."""
    got = False
    for src, bid in arrived(ch, TAG_DONE):
        if bid == ch.bid and covers(src):
            got = True
    return got


def take_batch(ch: Channel, msg: Message) -> bool:
    """Take the root's point-to-point repairs (those of earlier broadcasts dropped)."""
    got = False
    for _, (bid, frags) in arrived(ch, TAG_BATCH):
        if bid != ch.bid:
            continue
        for i, data in frags:
            if msg.put(i, data):
                ch.stats["repaired"] += 1
        got = True
    return got


def arrived(ch: Channel, tag: int) -> Iterator[tuple[int, Any]]:
    """(source, object) of every pickled message with this tag that has come, any source."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    pc, st = ch.pcomm, MPI.Status()
    while pc.iprobe(source=MPI.ANY_SOURCE, tag=tag, status=st):
        src = st.Get_source()
        yield src, pc.recv(source=src, tag=tag)
