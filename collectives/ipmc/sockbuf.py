"""A multicast socket's receive buffer: the size each algorithm asks for (the option
`rcvbuf`), and how to read what the kernel gave and how many datagrams it dropped.

Linux keeps a datagram that reaches a joined socket before its rank reads it, up to the
socket's receive buffer, every datagram counted at its truesize (2304 B for the default
1444 B payload on the testbed's veths, measured: docs/ip-multicast.md#receive-buffers);
what arrives beyond is dropped and counted per socket (/proc/net/udp's `drops`). A rank
not yet in a collective, or one that falls behind reading, loses what does not fit:
Siebert2006's "if a node is not ready to receive a multicast datagram, then an incoming
datagram ... usually gets lost" (section 1.7).

`rcvbuf` is the value given to setsockopt (SO_RCVBUFFORCE where allowed, else SO_RCVBUF,
capped at net.core.rmem_max); the kernel doubles it. 0 sets nothing: the socket keeps the
kernel's default (net.core.rmem_default as the rank's network namespace has it). Per
algorithm, by default:

- two-stage (Siebert2006), scout-linear and scout-binary (Chen2000): 0. Neither paper sets
  a receive buffer (Siebert's ipmc creates "a socket which is suitable for IP multicast",
  section 3.5, and names seven parameters, none a buffer; Chen2000 names none), so their
  sockets had their kernel's default, and the thesis's root-first loss is a default
  buffer's.
- nack, mcast-sequential and mcast-concurrent (ours): LARGE. nack's receivers nap between
  reads while its root paces at the link rate (ipmc.rate.batch_nap), and in the concurrent
  allgather every rank's block comes at once; a large buffer is part of their design, as
  UFTP's (-B, 256 KiB by default) and NORM's (NormSetRxSocketBuffer) are of theirs.
- a range tree (Coll2003) keeps LARGE from set-up (range_trees.channel): the Elite's
  hardware broadcast writes into every receiver's memory, whether or not it is in the call.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping, Sequence
from typing import Any

KERNEL = 0  # rcvbuf=0: set nothing, the kernel's default
LARGE = 32 << 20  # ours: a 4 MiB broadcast is ~2900 datagrams of 2304 B truesize, 6.7 MB
MAX = 1 << 30
OURS = frozenset({"nack", "mcast-sequential", "mcast-concurrent"})
PROC_UDP = "/proc/net/udp"  # the reading process's network namespace (/proc/self/net)


def default_for(algorithm: str) -> int:
    """The receive buffer `algorithm` asks for unless told (see the module's docstring)."""
    return LARGE if algorithm in OURS else KERNEL


def check(value: object) -> int | None:
    """`value` as an rcvbuf option (None: the algorithm's default), or ValueError."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX:
        raise ValueError(f"rcvbuf is a whole number of bytes in 0..{MAX} (0: the kernel's "
                         f"default), got {value!r}")
    return value


def resolve(algorithm: str, asked: int | None) -> int:
    """The receive buffer a collective of `algorithm` asks for: `asked`, or its default."""
    value = check(asked)
    return default_for(algorithm) if value is None else value


def kernel_default() -> int:
    """The receive buffer a UDP socket gets that never sets one, in this process's network
    namespace (net.core.rmem_default there)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        return s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)


def udp_row(table: str, inode: int) -> tuple[int, int] | None:
    """(bytes queued, datagrams dropped) of the socket with this inode in the text of
    /proc/net/udp (rx_queue is the queue's truesize, hexadecimal; drops the last column),
    None if it is not there."""
    for line in table.splitlines()[1:]:
        f = line.split()
        if len(f) >= 13 and f[9] == str(inode):
            return int(f[4].split(":")[1], 16), int(f[-1])
    return None


def queue_and_drops(sock: socket.socket) -> tuple[int, int] | None:
    """(bytes queued, datagrams dropped) of this UDP socket, None if unreadable."""
    try:
        inode = os.fstat(sock.fileno()).st_ino
        with open(PROC_UDP) as f:
            return udp_row(f.read(), inode)
    except OSError:
        return None


def _one(values: list[Any]) -> Any:
    """The value every rank has, or the list by rank where they differ."""
    return values[0] if len(set(map(repr, values))) == 1 else values


def summary(before: Sequence[Mapping[str, Any] | None],
            after: Sequence[Mapping[str, Any] | None]) -> dict[str, Any] | None:
    """Every rank's group socket over a measurement, from its Channel.receive_buffer_state()
    before and after (before None: no channel yet, so nothing dropped before): the buffer
    asked for and got, the kernel's default (each one value where all ranks agree, else a
    list by rank), and the datagrams dropped meanwhile, by rank and in all (None where a
    rank's count could not be read). None without a channel on any rank."""
    if all(a is None for a in after):
        return None
    drops: list[int | None] = []
    for b, a in zip(before, after, strict=True):
        was = 0 if b is None else b.get("drops")
        now = None if a is None else a.get("drops")
        drops.append(None if now is None or was is None else now - was)
    ranks = [a for a in after if a is not None]
    return {"asked": _one([a["asked"] for a in ranks]),
            "got": _one([a["got"] for a in ranks]),
            "kernel": _one([a["kernel"] for a in ranks]),
            "drops": None if None in drops else sum(d for d in drops if d is not None),
            "drops_by_rank": drops}


def describe(s: Mapping[str, Any], broadcasts: int) -> str:
    """One line of a summary(): the buffer asked for and got, and the drops."""
    asked = s["asked"]
    what = ("not set (the kernel's default)" if asked == KERNEL else
            f"{asked} B asked" if isinstance(asked, int) else f"asked by rank {asked}")
    got = s["got"]
    got_text = f"{got} B" if isinstance(got, int) else f"by rank {got}"
    drops = s.get("drops")
    dropped = ("drops unread" if drops is None else
               f"{drops} datagram(s) dropped by full buffers, "
               f"{drops / max(broadcasts, 1):.1f} a broadcast")
    return f"group sockets' receive buffer: {what}, {got_text} got; {dropped}"
