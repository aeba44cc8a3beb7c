"""How a rank waits: asleep, so that on a machine emulating many hosts the ranks that wait
leave the cores to the ranks that work and to the software switch, as on a cluster where
every node has its own core.

MPICH (ch4, UCX or OFI over TCP) has no blocking wait: its waits poll, 100 % of a core for
as long as they last, and no control variable changes that (MPIR_CVAR_ENABLE_HEAVY_YIELD
plus a long timer slack gets down to 2 % at +1-2 ms per wake-up). But MPI's messages
arrive on the process's own TCP sockets, which epoll can wait on: a rank sleeps in epoll on
every TCP socket it has (MPI's connections and listener; new ones are picked up as MPI
makes them) and tests its requests when one becomes readable, or writable again after
filling up (a large send's next chunk), or after MAX_SLEEP_S at the latest. Measured on
two ranks over loopback (bench/fidelity.md): 0.5-0.7 % of a core while waiting 1 s, about
+0.1 ms per wake-up.

Modes (MCASTLAB_WAIT): `block` (the default, as above), `spin` (MPI's own waits, and
MPI_Bcast/MPI_Barrier themselves), `yield` (sched_yield between tests), `sleep` (naps of
growing length between tests).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import socket
import stat
import time
from collections.abc import Callable
from typing import Any

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["DEFAULT", "MODES", "SocketWatch", "connect_all", "pause", "probe", "recv", "send",
           "until", "wait", "watch"]

MODES = ("block", "spin", "yield", "sleep")
DEFAULT = "block"
MODE = os.environ.get("MCASTLAB_WAIT", DEFAULT)

def _low_timer_slack() -> None:
    """1 us timer slack (Linux prctl PR_SET_TIMERSLACK) for this thread: naps stay short."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(29, 1000, 0, 0, 0)


if MODE == "sleep":
    _low_timer_slack()

# a wake-up that epoll cannot see (none known) costs at most this; idle, a rank wakes this
# often. 10 ms: an MPI wait 1.4-1.8 % of a core and a nack receiver's loop 1.9-2.3 % (over
# the 2 % goal on a slow afternoon); 20 ms: 1.1-1.3 % and 1.1-1.2 %, the wake-up latency
# the same (idle_bench on 2 emulated hosts, side by side, 2026-11-25 14:1x)
MAX_SLEEP_S = 0.02
RESCAN_S = 0.25     # look for MPI's new sockets at most this often (~50 us a look),
RESCAN_IDLE_S = 0.02  # or this often while sleeps run out
CAP_MIN_S = 100e-6  # the first sleep, and the next one after a wake-up
SETTLE_S = 100e-6   # after a wake-up, test without sleeping this long (measured on two
                    # emulated hosts: without it MPI_Ibcast noticed its message 0.4 ms late)
SPIN_S = 50e-6      # sleep mode: poll this long first,
NAP_S = 20e-6       # then nap, each nap twice as long as the last,
NAP_MAX_S = 2e-4    # up to this


class SocketWatch:
    """An epoll set over this process's TCP sockets: level-triggered for input, and
    edge-triggered for output (a duplicate descriptor, so that a socket that always has
    room does not wake anyone: only one that was full and drained does)."""

    def __init__(self) -> None:
        self.ep = select.epoll()
        self.known: dict[int, tuple[int, int]] = {}  # fd -> (device, inode) of its socket
        self.dups: dict[int, int] = {}               # fd -> its duplicate for output
        self.other: dict[int, tuple[int, int] | None] = {}  # fds that are not MPI's
        self.fds: frozenset[int] = frozenset()
        self.scanned = -1.0

    def refresh(self, within: float = RESCAN_S) -> None:
        """Watch sockets MPI opened since the last look (it connects on first contact,
        and accepts connections in a thread of its own). A look lists /proc/self/fd
        (~50 us); it is taken if the last is older than `within`; only a changed list
        costs more."""
        now = time.perf_counter()
        if now - self.scanned < within:
            return
        self.scanned = now
        try:
            fds = frozenset(int(n) for n in os.listdir("/proc/self/fd"))
        except OSError:
            return
        if fds == self.fds:
            return
        # our own duplicates are in the listing; those closed below may get their numbers
        # back as new duplicates at once, so none of these numbers is a candidate this time
        # (taking one for MPI's made a duplicate of our duplicate, over and over: a leak of
        # descriptors and a refresh at every look, 5-10 % of a core)
        ours = set(self.dups.values())
        for fd, ident in list(self.known.items()):
            # closed, or closed and the number reused: our duplicate keeps the old socket
            # (and its registrations) alive until it is closed too
            if fd not in fds or _ident(fd) != ident:
                self._forget(fd)
        self.other = {fd: ident for fd, ident in self.other.items()
                      if fd in fds and _ident(fd) == ident}
        for fd in sorted(fds - self.known.keys() - ours - self.other.keys()):
            if fd not in self.dups.values():
                self._consider(fd)
        # a socket MPI opens next may get the number of a duplicate closed above: the
        # next listing must differ from this one for it to be looked at
        self.fds = fds - (ours - set(self.dups.values()))

    def _consider(self, fd: int) -> None:
        with contextlib.suppress(OSError):
            st = os.fstat(fd)
            self.other[fd] = (st.st_dev, st.st_ino)
            if not stat.S_ISSOCK(st.st_mode):
                return
            dup = os.dup(fd)
            try:
                s = socket.socket(fileno=dup)
                kind = (s.family, s.type)
                s.detach()
            except OSError:
                os.close(dup)
                return
            if kind[0] not in (socket.AF_INET, socket.AF_INET6) or \
                    kind[1] != socket.SOCK_STREAM:
                os.close(dup)
                return
            try:
                self.ep.register(fd, select.EPOLLIN)
            except OSError:
                os.close(dup)
                return
            try:
                self.ep.register(dup, select.EPOLLOUT | select.EPOLLET)
            except OSError:
                self.ep.unregister(fd)
                os.close(dup)
                return
            del self.other[fd]
            self.known[fd] = (st.st_dev, st.st_ino)
            self.dups[fd] = dup

    def _forget(self, fd: int) -> None:
        self.known.pop(fd, None)
        with contextlib.suppress(OSError):
            self.ep.unregister(fd)  # fails when MPI closed it: closing the dup frees both
        dup = self.dups.pop(fd, None)
        if dup is not None:
            with contextlib.suppress(OSError):
                self.ep.unregister(dup)
            os.close(dup)

    def close(self) -> None:
        """Stop watching: close the duplicates and the epoll set."""
        for fd in list(self.known):
            self._forget(fd)
        self.ep.close()

    def sleep(self, timeout: float) -> bool:
        """Sleep until a watched socket wants attention or `timeout` passes; True if one
        did."""
        try:
            return bool(self.ep.poll(max(0.0, timeout)))
        except InterruptedError:
            return True

    def sleep_with(self, socks: list[Any], timeout: float) -> bool:
        """`sleep`, also woken by input on `socks` (a multicast channel's), watched for this
        sleep only: a datagram left unread there (a late copy, an end marker after the
        rank had all it needed) must not wake the MPI waits that follow, or they spin."""
        fds = [s.fileno() for s in socks]
        for fd in fds:
            self.ep.register(fd, select.EPOLLIN)
        try:
            return self.sleep(timeout)
        finally:
            for fd in fds:
                with contextlib.suppress(OSError):
                    self.ep.unregister(fd)


def _ident(fd: int) -> tuple[int, int] | None:
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return st.st_dev, st.st_ino


_WATCH: SocketWatch | None = None


def watch() -> SocketWatch:
    """This process's SocketWatch (made on first use)."""
    global _WATCH
    if _WATCH is None:
        _WATCH = SocketWatch()
    return _WATCH


def wait(requests: list[Any], mode: str | None = None,
         statuses: list[Any] | None = None) -> None:
    """Complete MPI requests the way `mode` (default MODE) says; `statuses` (one
    MPI.Status per request), when given, are filled in."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if MPI.Request.Testall(requests, statuses):
        return
    mode = mode or MODE
    if mode == "spin":
        MPI.Request.Waitall(requests, statuses)
    else:
        until(lambda: MPI.Request.Testall(requests, statuses), mode)


def probe(comm: Any, source: int, tag: int, status: Any) -> None:
    """MPI_Probe (`status` filled in), waiting as MODE says. A receiver that does not know
    its sender (DYN-Tree's) probes for any source. Spin: a bare MPI_Iprobe loop (a
    blocking MPI_Recv from any source never saw a first message from a new peer here)."""
    if MODE == "spin":
        while not comm.Iprobe(source=source, tag=tag, status=status):
            pass
    else:
        until(lambda: comm.Iprobe(source=source, tag=tag, status=status))


def until(test: Callable[[], bool], mode: str | None = None) -> None:
    """Call `test` (an MPI test: it also moves MPI's progress on) until it is true, asleep
    in between as `mode` (default MODE: block, yield or sleep) says."""
    mode = mode or MODE
    if mode == "block":
        _block(test)
    else:
        _nap(test, mode)


def _block(test: Callable[[], bool]) -> None:
    """Sleep in epoll between tests. After a wake-up, test for up to SETTLE_S without
    sleeping, and keep the next sleeps short (CAP_MIN_S): a collective's next step (an
    MPI_Ibcast taking the message in and passing it on, a probe's header read off the
    socket but not yet matched) needs more tests although no socket stirs. Idle, the
    sleeps double up to MAX_SLEEP_S."""
    w = watch()
    w.refresh()
    cap = CAP_MIN_S
    while True:
        woke = w.sleep(cap)
        if test():
            return
        if woke:
            cap = CAP_MIN_S
            end = time.perf_counter() + SETTLE_S
            while time.perf_counter() < end:
                if test():
                    return
            w.refresh()
        else:  # a sleep ran out: perhaps the message came on a socket not yet watched
            cap = min(MAX_SLEEP_S, 2 * cap)
            w.refresh(RESCAN_IDLE_S)


def _nap(test: Callable[[], bool], mode: str) -> None:
    start, nap = time.perf_counter(), NAP_S
    while not test():
        if mode == "yield" or time.perf_counter() - start < SPIN_S:
            os.sched_yield()
        else:
            time.sleep(nap)
            nap = min(NAP_MAX_S, 2 * nap)


def connect_all(comm: Any) -> None:
    """Make every connection now (MPI connects on first contact) and watch them all: a
    benchmark's first measured broadcasts must not pay for it. Every pair exchanges one
    empty message."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    rank, size = comm.Get_rank(), comm.Get_size()
    empty = bytearray(1)
    reqs = [comm.Irecv([empty, 0, MPI.BYTE], source=p, tag=CONNECT_TAG)
            for p in range(size) if p != rank]
    reqs += [comm.Isend([empty, 0, MPI.BYTE], dest=p, tag=CONNECT_TAG)
             for p in range(size) if p != rank]
    wait(reqs, mode="block")
    watch().refresh(0.0)


CONNECT_TAG = 0x4D4E


def send(comm: Any, buf: Any, dest: int, tag: int) -> None:
    """MPI_Send, waiting as MODE says."""
    wait([comm.Isend(buf, dest=dest, tag=tag)])


def recv(comm: Any, buf: Any, source: int, tag: int) -> None:
    """MPI_Recv, waiting as MODE says."""
    wait([comm.Irecv(buf, source=source, tag=tag)])


def pause(timeout: float, mode: str | None = None) -> None:
    """Between polls of something MPI cannot wait on (MPI_Iprobe for any source, a
    multicast socket): sleep until a socket wakes us (block), or as `mode` says."""
    mode = mode or MODE
    if mode == "block":
        w = watch()
        w.refresh()
        w.sleep(timeout)
    elif mode == "spin":
        return
    elif mode == "yield":
        os.sched_yield()
    else:
        time.sleep(min(timeout, NAP_MAX_S))
