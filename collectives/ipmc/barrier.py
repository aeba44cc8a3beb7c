"""The multicast barrier of Chen2000: zero-byte arrivals reduced up the binary scout tree to
rank 0, then one zero-data multicast releases everyone.

By the option `release` (collectives.algorithms.RELEASES):

- "both" (the default), made safe against a lost release: after its release every rank also
  sends a zero-byte release to its tree children point to point. A rank whose multicast
  release arrives returns at once (the point-to-point one is parked and completes in the
  background); a rank whose release was lost returns when its parent's point-to-point
  release arrives, one hop later. 2N - 1 messages.
- "multicast", Chen2000's: the multicast alone, N messages (N - 1 arrivals and one
  datagram). Chen2000 had no recovery: a rank whose release is lost waits until the
  deadline and raises a MulticastError that says so (NO_RECOVERY)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..algorithms import DEFAULT_RELEASE, check_release
from . import datagram as dg
from .channel import Channel
from .deadline import TIMEOUT_S, Clock, gather_zero
from .plans import parents, scout_binary_tree

TAG_ARRIVE, TAG_RELEASE = 0x5C11, 0x5C12
NO_RECOVERY = ("release 'multicast' is Chen2000's barrier, which has no recovery: a lost "
               "release is never sent again (release='both' also releases point to point)")


def barrier(ch: Channel, timeout: float = TIMEOUT_S, release: str = DEFAULT_RELEASE) -> None:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    p2p = check_release(release) == "both"
    ch.next_bid(timeout)
    if ch.size == 1:
        return
    pc, rank = ch.pcomm, ch.rank
    tree = scout_binary_tree(ch.size)
    kids = tree.get(rank, [])
    parent = parents(tree).get(rank)
    empty = bytearray(1)
    clock = Clock(ch, timeout, f"multicast barrier {ch.bid}")
    released = [False]

    def on_datagram(d: dg.Datagram) -> None:
        if d.kind == dg.RELEASE and d.root == 0:
            released[0] = True
        else:
            ch.stats.reject("shape")

    gather_zero(ch, clock, on_datagram, kids, parent, TAG_ARRIVE)
    if parent is None:
        ch.send(dg.RELEASE, root=0)
    elif not p2p:
        while True:
            ch.deliver(on_datagram)
            if released[0]:
                break
            clock.wait(False, f"waiting for the multicast release; {NO_RECOVERY}")
    else:
        await_release(ch, clock, on_datagram, released,
                      pc.Irecv([empty, 0, MPI.BYTE], source=parent, tag=TAG_RELEASE))
    if p2p:
        for kid in kids:
            ch.park(pc.Isend([empty, 0, MPI.BYTE], dest=kid, tag=TAG_RELEASE))


def await_release(ch: Channel, clock: Clock, on_datagram: Callable[[dg.Datagram], None],
                  released: list[bool], release: Any) -> None:
    """Return once the multicast release (`on_datagram` sets released[0]) or the
    point-to-point one (`release`, then parked) arrived; datagrams are looked at first, so
    a point-to-point release is counted (as repaired) only if it came first."""
    while True:
        ch.deliver(on_datagram)
        if released[0]:
            break
        if release.Test():
            ch.stats["repaired"] += 1
            break
        clock.wait(False, "waiting for the release")
    ch.park(release)
