"""What this process wrote to its TCP sockets that has not left the host yet: the kernel's
count of a socket's unsent bytes (ioctl SIOCOUTQNSD, the bytes TCP has not handed to IP).

A tree node that sends "one message after the other" (send_order fifo, Nupairoj1998's
model) starts its next send when the previous message has left the host. Over MPI's TCP a
completed Isend only means the bytes were copied into the socket: they then leave at the
link's rate, and a second send started at once shares the link with them. The socket's
unsent count falling to zero is the end the model means; what TCP has handed to IP waits
in the link's queue for at most the few packets TCP small queues let through (about 1 ms
of the flow's rate).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import struct
import time

from . import waiting

SIOCOUTQNSD = 0x894B  # linux/sockios.h: unsent bytes of a TCP socket's write queue
NAP_S = 20e-6  # the first look again after this, each nap twice the last,
NAP_MAX_S = 500e-6  # up to this: a 1 KiB frame's wire time at 16 Mbit/s
STALL_S = 0.25  # no byte left in this long: a receiver that does not read holds them


def unsent(fd: int) -> int:
    """Bytes written to TCP socket `fd` and not yet handed to IP (0 for a listener)."""
    with contextlib.suppress(OSError):
        return int(struct.unpack("i", fcntl.ioctl(fd, SIOCOUTQNSD, b"\0\0\0\0"))[0])
    return 0


def pending() -> int:
    """Unsent bytes on every TCP socket of this process that waiting.watch() knows (MPI's
    connections, found as waiting finds them)."""
    return sum(unsent(fd) for fd in waiting.watch().known)


def wait_sent(stall: float = STALL_S) -> None:
    """Return once nothing this process wrote to its TCP sockets waits to be sent, or once
    no byte has left for `stall` s: the link sends steadily, so bytes that do not move are
    held by a receiver that does not read (busy, or waiting for us: waiting on would be a
    deadlock). Asleep in between, naps growing from NAP_S to NAP_MAX_S; `spin` mode looks
    without sleeping, as its MPI waits do."""
    waiting.watch().refresh()  # a connection MPI made since the last look
    left = pending()
    if not left:
        return
    spin = waiting.MODE == "spin"
    moved = time.perf_counter()
    nap = NAP_S
    while left and time.perf_counter() - moved < stall:
        if spin:
            os.sched_yield()
        else:
            time.sleep(nap)
            nap = min(NAP_MAX_S, 2 * nap)
        now = pending()
        if now < left:
            moved = time.perf_counter()
        left = now
