"""What this process wrote to its TCP sockets that has not left the host yet: the bytes TCP
has not sent (ioctl SIOCOUTQNSD) and the bytes it sent that still wait in the host's queue
(the socket's write memory in flight below TCP, SO_MEMINFO's SK_MEMINFO_WMEM_ALLOC: a
packet stays charged to its socket through the link's qdisc and across the veth, until the
switch's end has taken it, a softirq after it left the qdisc).

A tree node that sends "one message after the other" (send_order fifo, Nupairoj1998's
model) starts its next send when the previous message has left the host. Over MPI's TCP a
completed Isend only means the bytes were copied into the socket: they then leave at the
link's rate, and a second send started at once shares the link with them. Both counts
falling to zero is the end the model means. The unsent count alone is not: TCP small
queues let a flow put about a millisecond of its pacing rate into the qdisc, and on an
emulated link that rate comes from an idle round-trip time, so the whole of a 64 KiB
message could sit in the link's queue once TCP had sent it (measured: 3 sends of 64 KiB at
30 Mbit/s counted as two messages' wire time).
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import os
import socket
import struct
import time

from . import waiting

SIOCOUTQNSD = 0x894B  # linux/sockios.h: unsent bytes of a TCP socket's write queue
SO_MEMINFO = 55  # asm-generic/socket.h: a socket's memory counters, u32[SK_MEMINFO_VARS]
MEMINFO_VARS = 9  # linux/sock_diag.h: SK_MEMINFO_RMEM_ALLOC ... SK_MEMINFO_DROPS
WMEM_ALLOC = 2  # SK_MEMINFO_WMEM_ALLOC: bytes of packets below TCP not yet out of the host
NAP_S = 20e-6  # the first look again after this, each nap twice the last,
NAP_MAX_S = 100e-6  # up to this while nothing has moved yet (a lone frame: about 0.15 ms)
AHEAD = 0.8  # once bytes move: sleep this share of the time the rest should take, at most
LONG_NAP_S = 5e-3  # this long
STALL_S = 0.25  # no byte left in this long: a receiver that does not read holds them


def unsent(fd: int) -> int:
    """Bytes written to TCP socket `fd` and not yet handed to IP (0 for a listener)."""
    with contextlib.suppress(OSError):
        return int(struct.unpack("i", fcntl.ioctl(fd, SIOCOUTQNSD, b"\0\0\0\0"))[0])
    return 0


_LIBC = ctypes.CDLL(None, use_errno=True)  # getsockopt on a bare descriptor: one system call


def queued(fd: int) -> int:
    """Bytes (with packet overheads) TCP socket `fd` handed to IP that have not left the
    host's queues yet (0 where SO_MEMINFO is missing)."""
    info = (ctypes.c_uint32 * MEMINFO_VARS)()
    size = ctypes.c_uint32(ctypes.sizeof(info))
    if _LIBC.getsockopt(fd, socket.SOL_SOCKET, SO_MEMINFO, info, ctypes.byref(size)):
        return 0
    return int(info[WMEM_ALLOC])


def pending() -> int:
    """Bytes not yet out of the host (unsent and queued) on every TCP socket of this process
    that waiting.watch() knows (MPI's connections, found as waiting finds them)."""
    return sum(unsent(fd) + queued(fd) for fd in waiting.watch().known)


def wait_sent(stall: float = STALL_S) -> None:
    """Return once nothing this process wrote to its TCP sockets waits to be sent, or once
    no byte has left for `stall` s: the link sends steadily, so bytes that do not move are
    held by a receiver that does not read (busy, or waiting for us: waiting on would be a
    deadlock). Asleep in between: naps growing from NAP_S to NAP_MAX_S until bytes move, then
    AHEAD of the time the rest should take at the rate they leave (a 64 KiB message at 20
    Mbit/s: a few dozen looks, not hundreds; a lone frame: seen within 0.1 ms of leaving,
    where naps doubling to 0.5 ms overshot by up to 0.3); `spin` mode looks without
    sleeping, as its MPI waits do."""
    waiting.watch().refresh()  # a connection MPI made since the last look
    left = pending()
    if not left:
        return
    spin = waiting.MODE == "spin"
    moved = looked = time.perf_counter()
    nap, rate = NAP_S, 0.0
    while left and looked - moved < stall:
        if spin:
            os.sched_yield()
        elif rate:
            time.sleep(min(LONG_NAP_S, max(NAP_S, AHEAD * left / rate)))
        else:
            time.sleep(nap)
            nap = min(NAP_MAX_S, 2 * nap)
        now, t = pending(), time.perf_counter()
        if now < left:
            rate = (left - now) / max(t - looked, 1e-6)
            moved = t
        left, looked = now, t
