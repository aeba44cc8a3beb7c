"""Allgather over IP multicast (issue 39): every rank's block to every rank, `recvbuf`
holding p blocks of equal size, block i from rank i.

- mcast-sequential: ranks 0..p-1 in turn broadcast their block with `nack` (ipmc.nack), each
  into its slice of every rank's recvbuf: correct under any loss because nack is; p
  broadcasts one after the other, each (p-1)/p of a receiver's link idle while it runs.
- mcast-concurrent: every rank multicasts its block at once on the communicator's one
  group, at 1/(p-1) of the link rate (the p-1 streams fill each receiver's link), and
  receivers report the gaps of all senders in one datagram (ipmc.concurrent).

Every wait has a deadline (`timeout`): an allgather that cannot complete raises
MulticastError instead of hanging."""

from __future__ import annotations

from typing import Any

from . import datagram as dg
from .bcast import bcast
from .channel import Channel
from .concurrent import allgather_concurrent
from .message import Options

ALGORITHMS = ("mcast-sequential", "mcast-concurrent")


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


def allgather(ch: Channel, sendbuf: Any, recvbuf: Any, algorithm: str, **params: Any) -> None:
    """Every rank's `sendbuf` into slot (rank) of every rank's `recvbuf`. Collective: every
    rank calls it with the same algorithm, parameters and block size. `params` as in
    ipmc.message.Options (fragment, rate, timeout)."""
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown multicast allgather {algorithm!r}; choose from "
                         f"{', '.join(ALGORITHMS)}")
    send, recv, m = blocks(sendbuf, recvbuf, ch.size)
    recv[ch.rank * m:(ch.rank + 1) * m] = send
    if algorithm == "mcast-sequential":
        for root in range(ch.size):
            bcast(ch, recv[root * m:(root + 1) * m], root, "nack", **params)
        return
    opts = Options(**{"fragment": ch.fragment, **params})
    dg.check_fragment(opts.fragment)
    allgather_concurrent(ch, recv, m, opts)
