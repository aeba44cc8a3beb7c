"""Broadcast and barrier as trees of hardware range multicasts (Coll2003), run in every rank.

The tree (`RangeChannel.tree`, greedy by default) says, per rank, which range multicast
brings it the message and which ranges it multicasts to afterwards, one per step.

Broadcast `range-tree`: a sender multicasts all fragments to a range, then an end marker,
and collects one report per receiver, as QsNET's hardware collects one acknowledgement per
destination (there combined in the switches, here one point-to-point message each). A
receiver reports the fragments it lacks once it holds everything, or saw the end marker and
then nothing for `idle`, or was poked: a sender that has waited `poke_after` for a report
pokes the receiver point to point (so a multicast lost whole cannot leave it waiting). The
sender repairs what is missing point to point; only then is a receiver complete and sends
on. Senders multicast their next range before collecting reports (the ranges are disjoint).

Barrier `range-tree`: zero-byte arrivals go up the range tree as the acknowledgements of
its multicasts would (a rank signals its sender once the ranks of its own ranges have
signalled it; QsNET's switches combine them, here the sender takes them in one wait), then
rank 0 releases everyone with zero-byte multicasts down the range tree. Against a lost
release each rank passes it on point to point to the next rank of its range (the first one
gets it from the sender), so a rank whose datagram was lost returns one hop later; these
messages are parked and complete in the background.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..ipmc import datagram as dg
from ..ipmc.barrier import await_release
from ..ipmc.channel import SETUP_TIMEOUT_S, MulticastError
from ..ipmc.deadline import TIMEOUT_S, Clock, complete, gather_zero, recv_obj, send_obj
from ..ipmc.message import Message, default_rate
from .channel import RangeChannel, TreeUse

TAG_REPORT, TAG_POKE, TAG_REPAIR = 0x5C21, 0x5C22, 0x5C23
TAG_ARRIVE, TAG_RELEASE = 0x5C24, 0x5C25
POKE_AFTER_S = 0.05
IDLE_S = 0.005  # end marker seen, then quiet this long: the rest is lost

__all__ = ["RangeOptions", "barrier", "bcast"]


@dataclass
class RangeOptions:
    """nodes: node of every rank; fattree: (k, nodes of the network); tree: greedy or
    optimal; setup_timeout: how long the first use of a tree waits for its ranges to arrive
    (`RangeChannel.tree`). The rest as in `ipmc.message.Options`."""

    nodes: Sequence[int] | None = None
    fattree: Sequence[int] | None = None
    tree: str = "greedy"
    setup_timeout: float = SETUP_TIMEOUT_S
    fragment: int | None = None
    rate: float | None = field(default_factory=default_rate)  # bit/s, None: unpaced
    timeout: float = TIMEOUT_S
    idle: float = IDLE_S
    poke_after: float = POKE_AFTER_S


def _use(ch: RangeChannel, root: int, o: RangeOptions) -> tuple[TreeUse, tuple[int, ...]]:
    nodes = tuple(range(ch.size)) if o.nodes is None else tuple(o.nodes)
    try:
        return ch.tree(root, nodes, o.fattree, o.tree, o.setup_timeout), nodes
    except ValueError as e:  # a bad layout: the same on every rank
        raise MulticastError(f"range tree: {e}") from e


def bcast(ch: RangeChannel, buf: Any, root: int, **params: Any) -> None:
    o = RangeOptions(**params)
    view = memoryview(buf).cast("B")
    fragment = o.fragment or ch.fragment
    dg.check_fragment(fragment)
    use, nodes = _use(ch, root, o)
    ch.next_bid()
    if ch.size == 1:
        return
    sender = use.sender_rank(ch.rank, nodes)
    clock = Clock(ch, o.timeout, f"range-tree broadcast {ch.bid} from rank {root}")
    msg = Message(ch, view, root if sender is None else sender, fragment)
    if sender is None:
        msg.have[:] = b"\x01" * msg.count
        msg.missing = 0
    else:
        _receive(ch, clock, msg, sender, o)
    _send(ch, clock, msg, use, nodes, o)


def _poked(ch: RangeChannel, sender: int) -> bool:
    """A poke of this broadcast from `sender` (older ones, which raced a report, dropped)."""
    pc = ch.pcomm
    while pc.iprobe(source=sender, tag=TAG_POKE):
        if pc.recv(source=sender, tag=TAG_POKE) == ch.bid:
            return True
    return False


def _receive(ch: RangeChannel, clock: Clock, msg: Message, sender: int,
             o: RangeOptions) -> None:
    while msg.missing:
        before = msg.missing
        ch.deliver(msg.on_datagram)
        if msg.missing and msg.end_seen and time.perf_counter() - msg.last_heard > o.idle:
            break
        if msg.missing and _poked(ch, sender):
            ch.deliver(msg.on_datagram)
            break
        clock.wait(msg.missing != before, f"waiting for rank {sender}'s range multicast")
    send_obj(ch, clock, msg.on_datagram, (ch.bid, msg.lacking()), sender, TAG_REPORT)
    if msg.missing:
        for i, data in recv_obj(ch, clock, msg.on_datagram, sender, TAG_REPAIR):
            if msg.put(i, data):
                ch.stats["repaired"] += 1
        if msg.missing:
            raise MulticastError(f"rank {ch.rank}: the repair from rank {sender} left "
                                 f"{msg.missing} fragment(s) missing")


def _send(ch: RangeChannel, clock: Clock, msg: Message, use: TreeUse,
          nodes: Sequence[int], o: RangeOptions) -> None:
    me = nodes[ch.rank]
    pending: dict[int, float] = {}  # receiver rank -> when its multicast ended
    poked: set[int] = set()
    reqs: list[Any] = []
    msg.root = ch.rank  # the datagrams name their sender
    for m in use.tree.sends(me):
        ch.aim(m.lo, m.hi)
        msg.multicast(range(msg.count), o.rate)
        ch.send(dg.END, 0, msg.count)
        ended = time.perf_counter()
        pending |= dict.fromkeys(use.receivers(m), ended)
        _serve(ch, msg, pending, reqs)
    while pending:
        progressed = _serve(ch, msg, pending, reqs)
        now = time.perf_counter()
        for r, ended in pending.items():
            if r not in poked and now - ended > o.poke_after:
                reqs.append(ch.pcomm.isend(ch.bid, dest=r, tag=TAG_POKE))
                poked.add(r)
        clock.wait(progressed, f"no report from rank(s) {sorted(pending)[:8]}")
    complete(ch, clock, msg.on_datagram, reqs)


def _serve(ch: RangeChannel, msg: Message, pending: dict[int, float], reqs: list[Any]) -> bool:
    """Take the reports that arrived; repair what they lack. True if any arrived."""
    pc, served = ch.pcomm, False
    for r in list(pending):
        if not pc.iprobe(source=r, tag=TAG_REPORT):
            continue
        bid, lacking = pc.recv(source=r, tag=TAG_REPORT)
        if bid != ch.bid:
            raise MulticastError(f"rank {ch.rank}: report of broadcast {bid} from rank {r} "
                                 f"during broadcast {ch.bid}")
        del pending[r]
        served = True
        if lacking:
            reqs.append(pc.isend(msg.fragments(lacking), dest=r, tag=TAG_REPAIR))
    return served


# ---- barrier ------------------------------------------------------------------------------
def barrier(ch: RangeChannel, **params: Any) -> None:
    """Arrivals up the range tree to rank 0, release down it from rank 0."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    o = RangeOptions(**params)
    use, nodes = _use(ch, 0, o)
    ch.next_bid(o.timeout)
    if ch.size == 1:
        return
    pc, rank = ch.pcomm, ch.rank
    clock = Clock(ch, o.timeout, f"range-tree barrier {ch.bid}")
    released = [False]
    sender = use.sender_rank(rank, nodes)

    def on_datagram(d: dg.Datagram) -> None:
        if d.kind == dg.RELEASE and d.root == sender:
            released[0] = True
        else:
            ch.stats.reject("shape")

    kids = [r for m in use.tree.sends(nodes[rank]) for r in use.receivers(m)]
    gather_zero(ch, clock, on_datagram, kids, sender, TAG_ARRIVE)
    empty = bytearray(1)
    if sender is not None:
        before, after = _neighbours(use, nodes, rank)
        await_release(ch, clock, on_datagram, released,
                      pc.Irecv([empty, 0, MPI.BYTE], source=before, tag=TAG_RELEASE))
        if after is not None:
            ch.park(pc.Isend([empty, 0, MPI.BYTE], dest=after, tag=TAG_RELEASE))
    for m in use.tree.sends(nodes[rank]):
        ch.send_range(m.lo, m.hi, dg.RELEASE)
        first = next((n for n in range(m.lo, m.hi + 1) if n != nodes[rank]), None)
        if first is not None:
            ch.park(pc.Isend([empty, 0, MPI.BYTE], dest=use.rank_of[first], tag=TAG_RELEASE))


def _neighbours(use: TreeUse, nodes: Sequence[int], rank: int) -> tuple[int, int | None]:
    """From whom this rank gets the point-to-point release, and to whom it passes it on:
    the previous and next member of its range (the sender itself is no member)."""
    members = use.members(nodes[rank])
    i = members.index(rank)
    m = use.tree.receive(nodes[rank])
    assert m is not None
    before = use.rank_of[m.sender] if i == 0 else members[i - 1]
    return before, (members[i + 1] if i + 1 < len(members) else None)
