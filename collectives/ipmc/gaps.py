"""A scout broadcast as Chen2000 ran it (completion "none"): no positive completion. The
scouts already say every receiver is ready, so the root multicasts the message once and
returns, and nothing else goes on the wire unless a datagram is lost.

Chen2000 had no recovery at all (it assumed lossless hardware). Here a receiver speaks only
when it detects a gap: at once when it holds a later fragment than one it lacks (the root
sends in order over one path, so that one is lost), or after SILENCE_GRTT group round trips
(ipmc.grtt), SILENCE_MIN_S at least, without a datagram once it has heard one (the tail was
lost); it sends a NACK
(`dg.REPORT` naming what it lacks) to the root, again NACK_EVERY_GRTT later while the gap
lasts, the interval doubling (up to NACK_MAX_S) while no datagram comes. The root keeps a
copy of what it sent and serves the NACKs of its last broadcast by multicasting those
fragments again, from any later wait on the channel (Channel.keep): in a loop of
broadcasts that is the next one's scout gather, which cannot end before the receiver holds
this message and sends its scout. Where the root is held elsewhere (another
MPI call that needs the receiver) or the receiver heard nothing at all, the receiver's wait
ends at the broadcast's deadline in a MulticastError naming Chen2000's lack of recovery:
never a hang. completion "report" (nack's protocol) is the one that survives any loss.

Why not let the root linger a few group round trips for NACKs instead: on a 4-host star
at 100 Mbit/s (GRTT about 0.6 ms) four of them made a 3000-byte broadcast take 3.0 ms
against 1.0 ms with completion reports: not Chen2000's root, which returns after its send."""

from __future__ import annotations

import time

from . import datagram as dg
from .channel import Channel
from .deadline import Clock, taking
from .message import Message, Options
from .nack import take_batch, take_done
from .plans import bitmap_indexes, fragment_range, missing_bitmap

SILENCE_GRTT = 2.0  # no datagram for this many group round trips: the tail was lost
# ... and for at least this long: the root's pacer runs 2 ms ahead of its pace and then
# sleeps, waking late on a loaded machine; 2 GRTT alone (about 1 ms) made receivers NACK a
# tail that was on its way in nearly every 8 KiB broadcast on 4 hosts of a 16-host star at
# 20 Mbit/s (11.1 data frames a broadcast against the formula's 9)
SILENCE_MIN_S = 0.01
NACK_EVERY_GRTT = 2.0  # a receiver repeats its NACK no sooner than this (the repair's trip)
# unanswered, a NACK goes out at doubling intervals up to this: a root held elsewhere is not
# sent hundreds a second (measured: 2 GRTT apart, 800 a second on a 4-host star)
NACK_MAX_S = 0.5
NO_RECOVERY = ("completion 'none' is Chen2000's broadcast, which has no recovery: its root "
               "repairs a gap only from its next multicast collective (completion='report' "
               "repairs any loss)")


def provable_gaps(have: bytes | bytearray) -> bytearray:
    """`have` with the fragments no gap can be proved for marked as had: those after the
    last one held (the root sends in order over one path, so only a missing fragment
    before one that arrived is known lost)."""
    last = max((i for i, h in enumerate(have) if h), default=-1)
    return bytearray(have[: last + 1]) + b"\x01" * (len(have) - last - 1)


def serve_gaps(ch: Channel, msg: Message, o: Options, clock: Clock) -> None:
    """The root: multicast the message and return; the NACKs of it are served later, from
    a copy (the caller may reuse its buffer once this returns)."""
    del clock  # nothing to wait for
    take_done(ch, set())  # leftovers of broadcasts with completion "report"
    take_batch(ch, msg)
    msg.send_all(o)
    kept, bid, count, fragment, root = bytes(msg.view), ch.bid, msg.count, msg.fragment, ch.rank

    def serve(d: dg.Datagram) -> None:
        if d.count != count:
            ch.stats.reject("shape")
            return
        for i in bitmap_indexes(d.index, d.payload, count):
            ch.send(dg.DATA, i, count, kept[slice(*fragment_range(i, len(kept), fragment))],
                    root=root, bid=bid)

    ch.keep(serve)


def receive_gaps(ch: Channel, msg: Message, clock: Clock) -> None:
    """A receiver: take the multicast; NACK a gap once it is proved (or the datagrams have
    stopped), again while it lasts; return once complete, silently."""
    take_done(ch, set())
    take_batch(ch, msg)
    grtt = ch.grtt.value
    silence = max(SILENCE_GRTT * grtt, SILENCE_MIN_S)
    due = asked = 0.0  # the next NACK no sooner than `due`; the last went at `asked`
    nacks = unanswered = 0
    while msg.missing:
        progressed = taking(ch, msg.on_datagram)
        now = time.perf_counter()
        if msg.missing and msg.heard and now >= due:
            silent = now - msg.last_heard > silence
            have = msg.needs() if silent else provable_gaps(msg.needs())
            start, bits = missing_bitmap(have, ch.fragment)
            if bits:
                ch.send_to(msg.root, dg.REPORT, start, msg.count, bits)
                nacks += 1
                unanswered = unanswered + 1 if nacks > 1 and msg.last_heard < asked else 0
                asked = now
                due = now + min(NACK_MAX_S, NACK_EVERY_GRTT * grtt * 2 ** min(unanswered, 20))
        # wake for the next NACK: when due, and once the datagrams have been silent so long
        limit = max(due, msg.last_heard + silence) - now if msg.heard else None
        clock.wait(progressed, f"{msg.missing} of {msg.count} fragment(s) missing, "
                   + (f"{nacks} NACK(s) unanswered" if nacks else
                      "no datagram of it arrived" if not msg.heard else "no NACK yet")
                   + f"; {NO_RECOVERY}", limit=limit)
