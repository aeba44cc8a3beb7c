"""Allgather over IP multicast (issue 39): every rank's block to every rank, `recvbuf`
holding p blocks of equal size, block i from rank i (`allgather`), or each rank's block in
its own slot of any size (`allgather_slots`, an Allgatherv's layout).

- mcast-sequential: ranks 0..p-1 in turn broadcast their block with `nack` (ipmc.nack), each
  into its slice of every rank's recvbuf: correct under any loss because nack is; p
  broadcasts one after the other, each (p-1)/p of a receiver's link idle while it runs.
- mcast-concurrent: every rank multicasts its block at once on the communicator's one
  group, at 1/(p-1) of the link rate (the p-1 streams fill each receiver's link), and
  receivers report the gaps of all senders in one datagram (ipmc.concurrent).

Every wait has a deadline (`timeout`): an allgather that cannot complete raises
MulticastError instead of hanging."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..algorithms import Algorithm, Named, names, resolve
from . import datagram as dg
from . import sockbuf
from .bcast import bcast
from .channel import Channel
from .concurrent import allgather_concurrent
from .message import Options

ALGORITHMS = names("multicast", collective="allgather")  # the registry's, in its order


def blocks(sendbuf: Any, recvbuf: Any, size: int) -> tuple[memoryview, memoryview, int]:
    """(send view, receive view, block size m) as bytes, or ValueError when recvbuf does not
    hold `size` blocks of sendbuf's size."""
    send, recv = memoryview(sendbuf).cast("B"), memoryview(recvbuf).cast("B")
    if len(recv) != size * len(send):
        raise ValueError(f"recvbuf must hold {size} blocks of {len(send)} bytes "
                         f"({size * len(send)}), got {len(recv)}")
    if recv.readonly:
        raise ValueError("recvbuf must be writable")
    return send, recv, len(send)


def _multicast(algorithm: Named) -> Algorithm:
    """The record of `algorithm`, a multicast allgather (the registry's one wording for an
    unknown name; the executor runs the others)."""
    record = resolve("allgather", algorithm)
    if record.family != "multicast":
        raise ValueError(f"{record.name} is not a multicast allgather (one of "
                         f"{', '.join(ALGORITHMS)}); collectives.allgather runs it")
    return record


def allgather(ch: Channel, sendbuf: Any, recvbuf: Any, algorithm: Named, **params: Any
              ) -> None:
    """Every rank's `sendbuf` into slot (rank) of every rank's `recvbuf`. Collective: every
    rank calls it with the same algorithm, parameters and block size. `params` as in
    ipmc.message.Options (fragment, rate, timeout, rcvbuf)."""
    record = _multicast(algorithm)
    send, recv, m = blocks(sendbuf, recvbuf, ch.size)
    slots = [recv[r * m:(r + 1) * m] for r in range(ch.size)]
    slots[ch.rank][:] = send
    allgather_slots(ch, slots, record, **params)


def allgather_slots(ch: Channel, slots: Sequence[memoryview], algorithm: Named,
                    **params: Any) -> None:
    """Every rank's block, already in `slots[rank]`, into `slots[rank]` of every rank:
    writable views, one per rank, of any sizes that every rank agrees on."""
    record = _multicast(algorithm)
    if len(slots) != ch.size:
        raise ValueError(f"{len(slots)} slots for {ch.size} ranks (one per rank)")
    if record.name == "mcast-sequential":
        for root in range(ch.size):
            bcast(ch, slots[root], root, "nack", **params)
        return
    opts = Options(**{"fragment": ch.fragment, **params})
    dg.check_fragment(opts.fragment)
    ch.receive_buffer(sockbuf.resolve(record.name, opts.rcvbuf))
    allgather_concurrent(ch, slots, opts)
