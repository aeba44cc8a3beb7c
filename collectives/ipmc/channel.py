"""One communicator's multicast channel: its group and UDP sockets, joined at set-up and
left when the communicator is freed.

Rank 0 leases a (group, port) and draws a key; every rank learns both over MPI, joins the
group on its data interface (the one the 224/4 route leaves by) and then the channel checks
that datagrams actually reach every rank before the first collective: the switch must have
seen the joins (IGMP) and installed the group. Datagrams are TTL 1, loopback off (unless two
ranks share a host). The group socket's receive buffer is the one the collective running, or
the last one, asked for (`receive_buffer`, ipmc.sockbuf): a rank that enters a broadcast late
finds the datagrams that fit in it waiting in the kernel, and the rest dropped (counted:
`drops`).

Collectives are numbered (bid) the same on every rank; a datagram of the current bid is
delivered, one of a later bid (a fast root already in the next collective) is kept until
then, and one of an earlier bid, or failing its CRC or key, is counted and dropped.

Beside the group socket every rank has a unicast one (`send_to`): a receiver's reports go
to the root alone. A rank that finished a broadcast still answers its root's end markers
of it (`finished`), from any later wait: the root may not have heard the first answer. A
root of a broadcast without completion serves its receivers' NACKs of it the same way
(`keep`, ipmc.gaps)."""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import secrets
import select
import socket
import struct
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from .. import waiting
from . import datagram as dg
from . import rounds, sockbuf
from .accounting import RepairAccount
from .groups import GroupError, lease
from .grtt import GroupRoundTrip
from .grtt import measure as measure_grtt
from .rate import Pace

SIOCGIFADDR, SIOCGIFMTU = 0x8915, 0x8921
SO_RCVBUFFORCE, SO_SNDBUFFORCE = 33, 32
# the kernel's receive time of every multicast datagram (socket(7); Python names neither):
# a receiver's first pass is timed by when the data reached the host, not when a rank that
# waited for a core read it (ipmc.rate)
SO_TIMESTAMPNS = 35
STAMP = struct.Struct("@qq")  # struct timespec
STAMP_SPACE = socket.CMSG_SPACE(STAMP.size)
SNDBUF = 4 << 20
# Datagrams of later collectives kept until this rank gets there: at most STASH_MAX of them
# and STASH_BYTES of payload, and only of the next EARLY_MAX collectives (a rank falls that
# far behind only if its peers run that many collectives that need nothing from it).
STASH_MAX, STASH_BYTES, EARLY_MAX = 1 << 16, 64 << 20, 64
FINISHED_MAX = 16  # broadcasts a rank still answers end markers of
# the window of collectives a datagram may belong to, [bid - FINISHED_MAX, bid + EARLY_MAX]:
# every sender's datagrams carry the collective's bid, so the window is every sender's
# replay window; a genuine datagram replayed outside it is rejected ("window"), inside it
# it is a duplicate the protocols already ignore
READ_MAX = 4096  # datagrams one read() takes, so that a flood cannot keep a rank in it
SETUP_TIMEOUT_S = 10.0
ROUND_S = 0.02  # set-up's probe rounds (_probe_rounds)
# a rank that has heard no probe this long joins the group again: the kernel repeats an
# unsolicited IGMP report once (robustness 2, RFC 3376 8.1 and 8.11), and where both were
# lost (1 % of joins at 10 % loss of every packet) nothing else would before the next
# general query, minutes away (the rejoin came half way through 500 rounds of 20 ms, but
# under that loss each round's allgather takes a second or more: a job ran past 240 s)
REJOIN_S = 1.0


class MulticastError(RuntimeError):
    """A multicast collective that cannot go on (set-up failed, or a deadline passed)."""


def _ifreq(sock: socket.socket, request: int, name: str) -> bytes:
    return fcntl.ioctl(sock.fileno(), request, struct.pack("256s", name.encode()[:15]))


def data_interface(group: str) -> tuple[str, str, int]:
    """(address, interface, MTU) of the interface multicast to `group` leaves by."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect((group, 9))
        except OSError as e:
            raise MulticastError(f"no route for multicast to {group} on this host ({e})") from e
        addr = s.getsockname()[0]
        for _, name in socket.if_nameindex():
            with contextlib.suppress(OSError):
                if socket.inet_ntoa(_ifreq(s, SIOCGIFADDR, name)[20:24]) == addr:
                    mtu = struct.unpack_from("i", _ifreq(s, SIOCGIFMTU, name), 16)[0]
                    return addr, name, mtu
    return addr, "", 1500


class Stats(dict):
    """Datagram counters of one channel: sent, received, delivered, duplicate, stale,
    early (kept for a later collective), rejected (by reason), repaired."""

    def __init__(self) -> None:
        super().__init__(sent=0, received=0, delivered=0, duplicate=0, stale=0, early=0,
                         rejected=0, repaired=0, reasons={})

    def reject(self, reason: str) -> None:
        self["rejected"] += 1
        self["reasons"][reason] = self["reasons"].get(reason, 0) + 1


class Channel:
    """Set up collectively (every rank of `comm` constructs it); `close()` leaves."""

    SETUP_RCVBUF = sockbuf.KERNEL  # the group socket's buffer until a collective asks

    def __init__(self, comm: Any, fragment: int | None = None,
                 setup_timeout: float = SETUP_TIMEOUT_S):
        self.comm, self.rank, self.size = comm, comm.Get_rank(), comm.Get_size()
        self.stats = Stats()
        self.bid = 0
        # two-stage: per broadcast (bid), the fragments the multicast brought first (ipmc.rounds)
        self.arrivals: deque[tuple[int, bytes]] = deque(maxlen=rounds.KEPT)
        # nack and the report scouts, as a root: per broadcast (bid), what its repair cost
        self.repairs: deque[tuple[int, RepairAccount]] = deque(maxlen=rounds.KEPT)
        self._stash: dict[int, list[dg.Datagram]] = {}
        self._stashed = self._stash_bytes = 0
        self._lease = None
        self.recv_sock: socket.socket | None = None
        self.rcvbuf_asked = sockbuf.KERNEL
        self.send_sock: socket.socket | None = None
        self.ucast_sock: socket.socket | None = None
        self.peers: list[tuple[str, int]] = []
        # bid -> (root, count, answer, its kind)
        self._finished: dict[int, tuple[int, int, bytes, int]] = {}
        self.last_loss: int | None = None  # the last broadcast this rank saw a loss in
        self._kept: tuple[int, Callable[[dg.Datagram], None]] | None = None  # (bid, NACKs to)
        self.pcomm: Any = None
        self._parked: list[Any] = []
        self._lingering: list[Any] = []
        info: Any = None
        if self.rank == 0:
            try:
                self._lease = lease()
                info = (self._lease.group, self._lease.port, secrets.token_bytes(dg.KEY_SIZE))
            except GroupError as e:
                info = str(e)
        info = comm.bcast(info, root=0)
        if isinstance(info, str):
            raise MulticastError(f"multicast set-up: {info}")
        self.group, self.port, key = info
        self.codec = dg.Codec(key)
        err = ""
        try:
            self._open()
        except (OSError, MulticastError) as e:
            err = f"rank {self.rank} ({socket.gethostname()}): {e}"
        errors = [e for e in comm.allgather(err) if e]
        if errors:
            self.close()
            raise MulticastError("multicast set-up failed: " + "; ".join(errors))
        payload = dg.payload_for_mtu(min(comm.allgather(self.mtu)))
        try:
            self.fragment = dg.check_fragment(int(fragment) if fragment else payload)
        except ValueError as e:
            self.close()
            raise MulticastError(str(e)) from e
        self._verify(setup_timeout)
        self.pcomm = comm.Dup()  # point-to-point traffic of the collectives: own context
        self.grtt = self._round_trip()  # the reports' round trip (ipmc.grtt)
        self.pace: Pace | None = None  # this rank's pace as a root (ipmc.rate)
        _OPEN.add(self)

    # ---- sockets ---------------------------------------------------------------------------
    def _open(self) -> None:
        self.address, self.interface, self.mtu = data_interface(self.group)
        shared_host = len(set(self.comm.allgather(self.address))) < self.size
        self._sockets(self.group, loop=shared_host)
        self._membership(socket.IP_ADD_MEMBERSHIP)
        self._dest = (self.group, self.port)
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        self.ucast_sock = u
        u.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)  # a report's arrival (accounting)
        u.bind((self.address, 0))
        u.setblocking(False)
        self.peers = self.comm.allgather(u.getsockname())

    def _sockets(self, bind: str, loop: bool) -> None:
        """The non-blocking receive socket on (bind, port) and the TTL-1 send socket."""
        r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        self.recv_sock = r
        r.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.rcvbuf_asked = sockbuf.KERNEL
        self.receive_buffer(self.SETUP_RCVBUF)
        r.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        r.bind((bind, self.port))
        r.setblocking(False)
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_UDP)
        self.send_sock = s
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1 if loop else 0)
        s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(self.address))
        with contextlib.suppress(PermissionError):
            s.setsockopt(socket.SOL_SOCKET, SO_SNDBUFFORCE, SNDBUF)
        s.bind((self.address, 0))

    def receive_buffer(self, asked: int) -> None:
        """Give the group socket the receive buffer `asked` (setsockopt's value: the kernel
        doubles it), or with 0 the kernel's default, the size of a socket that never set
        one (ipmc.sockbuf). Kept until asked otherwise: a rank not yet in a collective
        holds what arrives in the buffer the last one asked for."""
        r = self.recv_sock
        if r is None or asked == self.rcvbuf_asked:
            return
        value = asked or sockbuf.kernel_default() // 2
        try:
            r.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, value)
        except PermissionError:
            r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, value)
        self.rcvbuf_asked = asked

    def receive_buffer_state(self) -> dict[str, int | None]:
        """The group socket's buffer: asked (0: the kernel's default), got (getsockopt),
        the kernel's default here, and the datagrams the socket dropped since it was made
        (None where /proc/net/udp cannot be read)."""
        r = self.recv_sock
        if r is None:
            return {"asked": self.rcvbuf_asked, "got": None, "kernel": None, "drops": None}
        row = sockbuf.queue_and_drops(r)
        return {"asked": self.rcvbuf_asked,
                "got": r.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
                "kernel": sockbuf.kernel_default(), "drops": row and row[1]}

    def _membership(self, option: int) -> None:
        mreq = socket.inet_aton(self.group) + socket.inet_aton(self.address)
        assert self.recv_sock is not None, "channel not open"
        self.recv_sock.setsockopt(socket.IPPROTO_IP, option, mreq)

    def _round_trip(self) -> GroupRoundTrip:
        """The group round trip of the reports, measured now (collectively)."""
        return measure_grtt(self)

    def _verify(self, timeout: float) -> None:
        """Ranks 0 and 1 send probes until every rank has received one (so every rank can
        receive from rank 0, and rank 0 from rank 1). A rank still without one joins again
        every REJOIN_S (its IGMP reports may all have been lost)."""

        def send() -> None:
            if self.rank in (0, 1):
                self._send(self.codec.encode(dg.PROBE, self.rank, 0, 0, 1))

        def rejoin() -> None:
            with contextlib.suppress(OSError):
                self._membership(socket.IP_DROP_MEMBERSHIP)
                self._membership(socket.IP_ADD_MEMBERSHIP)

        ok, got = self._probe_rounds(timeout, send, lambda d: True, self.size == 1, rejoin)
        if ok:
            return
        report = self.comm.allgather((got, socket.gethostname()))
        missing = [f"{r} ({host})" for r, (ok, host) in enumerate(report) if not ok]
        self.close()
        raise MulticastError(
            f"multicast group {self.group}:{self.port} does not reach rank(s) "
            f"{', '.join(missing)} within {timeout:g} s: the "
            "switches do not forward it there (no multicast controller, or a contiguous-mode "
            "one refusing a group with a gap or a failed node: see its state)")

    def _probe_rounds(self, timeout: float, send: Callable[[], None],
                      heard: Callable[[dg.Datagram], bool], got: bool,
                      rejoin: Callable[[], None] | None = None) -> tuple[bool, bool]:
        """Rounds of ROUND_S, collectively: `send()` probes, then read until a probe this
        rank is `heard` to wait for arrives. Returns (every rank got one, this rank got
        one); the first is True as soon as it holds (datagram counters reset), False once
        `timeout` has passed on rank 0's clock (rank 0 decides for all: a round ends in an
        allgather, which takes a TCP retransmission timeout or more under loss of every
        packet, so the rounds are counted in time, not in number). `rejoin` runs in a rank
        still without a probe every REJOIN_S."""
        start = time.perf_counter()
        deadline, joined, warn = start + timeout, start, True
        while True:
            send()
            end = time.perf_counter() + ROUND_S
            while not got and time.perf_counter() < end:
                self.wait_readable(end - time.perf_counter())
                got = any(heard(d) for d in self.probes())  # all read
            now = time.perf_counter()
            every = self.comm.allgather((got, now > deadline))
            if all(g for g, _ in every):
                self.stats["sent"] = self.stats["received"] = 0
                return True, got
            if every[0][1]:
                return False, got
            if not got and rejoin is not None and now - joined >= REJOIN_S:
                rejoin()
                joined = now
            if not got and warn and now - start > timeout / 2:
                warn = False  # said once, so that a job that fails says what it waited for
                print(f"multicast set-up: rank {self.rank} still without a probe "
                      f"{now - start:.1f} s after it began", file=sys.stderr, flush=True)

    def _send(self, data: bytes, dest: tuple[str, int] | None = None) -> None:
        sock = self.send_sock
        assert sock is not None, "channel not open"
        while True:
            try:
                sock.sendto(data, dest or self._dest)
                break
            except BlockingIOError:
                select.select([], [sock], [], 0.01)
            except PermissionError:
                break  # a netfilter rule dropped it on the way out: emulated loss
            except OSError as e:
                if e.errno != errno.ENOBUFS:  # the qdisc is full: try again
                    raise
                time.sleep(0.0005)
        self.stats["sent"] += 1

    def read(self) -> Iterator[dg.Datagram]:
        """The datagrams waiting in the sockets (at most READ_MAX: the caller comes back
        for more) that pass the checks, of any collective (`deliver` sorts them by
        collective)."""
        budget = READ_MAX
        for sock in (self.recv_sock, self.ucast_sock):
            while sock is not None and budget > 0:
                budget -= 1
                try:
                    data, anc, _, _ = sock.recvmsg(65536, STAMP_SPACE)
                except (BlockingIOError, InterruptedError):
                    break
                self.stats["received"] += 1
                try:
                    yield self.codec.decode(data, receive_time(anc))
                except dg.Rejected as e:
                    self.stats.reject(e.reason)

    # ---- collectives -----------------------------------------------------------------------
    def next_bid(self, timeout: float = SETUP_TIMEOUT_S) -> int:
        """Start the next collective: every rank calls it once per collective. Requests an
        earlier collective parked (a barrier's safety-net release) complete first."""
        self.settle(timeout)
        self.bid = (self.bid + 1) & 0xFFFFFFFF or 1
        return self.bid

    def park(self, request: Any) -> None:
        """Keep a request that may complete after the collective returned."""
        self._parked.append(request)

    def linger(self, request: Any) -> None:
        """Keep a request that may complete much later, or never (a repair its receiver
        had no more need for): looked at, not waited for; cancelled at close."""
        self._lingering.append(request)

    def settle(self, timeout: float) -> None:
        if self._lingering:
            self._lingering = [r for r in self._lingering if not r.Test()]
        if not self._parked:
            return
        # importing mpi4py.MPI starts MPI: only inside the ranks
        from mpi4py import MPI

        end = time.perf_counter() + timeout
        while not MPI.Request.Testall(self._parked):
            if time.perf_counter() > end:
                raise MulticastError(f"rank {self.rank}: messages of collective {self.bid} "
                                     f"still pending after {timeout:g} s")
            waiting.pause(min(1e-3, end - time.perf_counter()))
        self._parked = []

    def send(self, kind: int, index: int = 0, count: int = 1,
             payload: bytes | memoryview = b"", root: int | None = None,
             bid: int | None = None) -> None:
        """Multicast one datagram (of the current collective unless `bid` says another)."""
        self._send(self.codec.encode(kind, self.rank if root is None else root,
                                     self.bid if bid is None else bid, index, count, payload))

    def send_to(self, rank: int, kind: int, index: int = 0, count: int = 1,
                payload: bytes | memoryview = b"", bid: int | None = None) -> None:
        """One datagram to one rank's unicast socket, naming this rank as its sender (of
        the current collective unless `bid` says another)."""
        self._send(self.codec.encode(kind, self.rank, self.bid if bid is None else bid,
                                     index, count, payload), self.peers[rank])

    def finished(self, root: int, count: int, answer: bytes = b"",
                 kind: int = dg.REPORT) -> None:
        """This rank holds the whole of the current broadcast (of `count` fragments): it
        answers the root's end markers of it from now on (see deliver), with a datagram of
        this kind and payload (a report; nack's ACK in a tree of acknowledgements)."""
        self._finished[self.bid] = (root, count, answer, kind)
        while len(self._finished) > FINISHED_MAX:
            del self._finished[next(iter(self._finished))]

    def keep(self, handler: Callable[[dg.Datagram], None]) -> None:
        """This rank rooted the current broadcast and returned before its receivers said
        anything: their reports of it go to `handler` from any later wait (the last such
        broadcast only: no receiver can be further behind, its next scout is still due)."""
        self._kept = (self.bid, handler)

    def _answer(self, d: dg.Datagram) -> bool:
        """An end marker of a broadcast this rank finished: tell its root again. A report of
        the broadcast this rank rooted and kept: to its handler."""
        if d.kind == dg.REPORT and self._kept is not None and self._kept[0] == d.bid:
            self._kept[1](d)
            return True
        root, count, answer, kind = self._finished.get(d.bid, (None, None, b"", dg.REPORT))
        if d.kind != dg.END or (root, count) != (d.root, d.count):
            return False
        # a repeated end marker (its number, nack.END_INFO, past 1): a "complete" (this
        # rank's or another's) was lost or is late; the first one crossed this rank's
        if len(d.payload) >= 4 and int.from_bytes(d.payload[:4], "big") > 1:
            self.last_loss = d.bid
        self.send_to(d.root, kind, 0, d.count, answer, bid=d.bid)
        return True

    def wait_readable(self, timeout: float) -> bool:
        """Sleep until a datagram arrives or `timeout` passes; in the block wait mode an
        MPI message ends the sleep too (collectives.waiting). True if woken early."""
        if timeout <= 0:
            return False
        socks = [s for s in (self.recv_sock, self.ucast_sock) if s is not None]
        if waiting.MODE == "block":
            w = waiting.watch()
            w.refresh()
            return w.sleep_with(socks, timeout)
        return bool(select.select(socks, [], [], timeout)[0])

    def deliver(self, handler: Callable[[dg.Datagram], None]) -> None:
        """Hand every waiting datagram of the current collective to `handler` (kept ones
        first); keep those of later collectives, drop those of earlier ones."""
        kept = self._stash.pop(self.bid, None)
        if kept:
            self._stashed -= len(kept)
            self._stash_bytes -= sum(len(d.payload) for d in kept)
            for d in kept:
                handler(d)
        for d in self.read():
            if d.kind != dg.PROBE:
                self._sort(d, handler)

    def probes(self) -> list[dg.Datagram]:
        """The probes waiting (set-up's, ipmc.grtt's). Every other datagram is sorted as
        `deliver` sorts it: a rank still measuring when a fast root has begun the first
        broadcast keeps that broadcast's datagrams for it."""
        out = []
        for d in self.read():
            if d.kind == dg.PROBE:
                out.append(d)
            else:
                self._sort(d, None)
        return out

    def _sort(self, d: dg.Datagram, handler: Callable[[dg.Datagram], None] | None) -> None:
        """One datagram read: to `handler` if of the current collective, kept if of one of
        the next EARLY_MAX, answered or counted if of an earlier one (or of the current one
        when no handler waits for it)."""
        if d.bid == self.bid and handler is not None:
            handler(d)
        elif 0 < dg.ahead(self.bid, d.bid) <= EARLY_MAX:
            if (self._stashed < STASH_MAX
                    and self._stash_bytes + len(d.payload) <= STASH_BYTES):
                self.stats["early"] += 1
                self._stash.setdefault(d.bid, []).append(d)  # checked already
                self._stashed += 1
                self._stash_bytes += len(d.payload)
            else:
                self.stats.reject("stash full")
        elif dg.ahead(d.bid, self.bid) > FINISHED_MAX and d.kind != dg.REPORT:
            self.stats.reject("window")
        elif not self._answer(d):
            self.stats["stale"] += 1

    def close(self) -> None:
        """Leave the group (closing the socket sends the IGMP leave) and give up the lease."""
        pcomm, self.pcomm = self.pcomm, None
        if pcomm is not None:
            # importing mpi4py.MPI starts MPI: only inside the ranks
            from mpi4py import MPI

            if not MPI.Is_finalized():
                with contextlib.suppress(MPI.Exception):
                    for req in self._parked + self._lingering:
                        if not req.Test():
                            req.Cancel()
                    pcomm.Free()
        for s in (self.recv_sock, self.send_sock, self.ucast_sock):
            if s is not None:
                s.close()
        self.recv_sock = self.send_sock = self.ucast_sock = None
        if self._lease is not None:
            self._lease.release()
            self._lease = None
        _OPEN.discard(self)


def receive_time(anc: list[tuple[int, int, bytes]]) -> float:
    """The receive time in a datagram's ancillary data (SO_TIMESTAMPNS), 0 if none."""
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= STAMP.size:
            sec, nsec = STAMP.unpack_from(data)
            return sec + nsec * 1e-9
    return 0.0


_OPEN: set[Channel] = set()


@atexit.register
def _close_all() -> None:
    for ch in list(_OPEN):
        ch.close()


# ---- one channel per communicator, freed with it ---------------------------------------------
_KEYVALS: dict[type, Any] = {}


def channel_for(comm: Any, fragment: int | None = None, cls: type[Channel] = Channel,
                timeout: float | None = None) -> Channel:
    """The communicator's channel of this class, set up on first use (collectively: every
    rank calls the same collective) and closed when the communicator is freed. `timeout`:
    the first collective's own deadline, which its set-up keeps too (at most
    SETUP_TIMEOUT_S): a broadcast told to give up after 3 s does not wait 10 for a rank
    that never joins."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if cls not in _KEYVALS:
        _KEYVALS[cls] = MPI.Comm.Create_keyval(delete_fn=lambda _c, _k, ch: ch.close())
    ch = comm.Get_attr(_KEYVALS[cls])
    if ch is None:
        setup = SETUP_TIMEOUT_S if timeout is None else min(timeout, SETUP_TIMEOUT_S)
        ch = cls(comm, fragment, setup_timeout=setup)
        comm.Set_attr(_KEYVALS[cls], ch)
    return ch


def _channel_of(comm: Any) -> Channel | None:
    chans = [comm.Get_attr(k) for k in _KEYVALS.values()]
    return next((c for c in chans if c is not None), None)


def peek_stats(comm: Any) -> dict[str, Any] | None:
    ch = _channel_of(comm)
    return None if ch is None else {**ch.stats, "reasons": dict(ch.stats["reasons"]),
                                    "group": ch.group, "port": ch.port, "bid": ch.bid,
                                    "fragment": ch.fragment, "grtt_s": ch.grtt.value,
                                    "pace_bps": ch.pace.rate if ch.pace else None,
                                    "rcvbuf": ch.receive_buffer_state()}


def peek_repair(comm: Any) -> RepairAccount | None:
    """The repair account of the channel's latest broadcast if this rank rooted it with
    completion reports (ipmc.accounting), else None."""
    ch = _channel_of(comm)
    if ch is None or not ch.repairs or ch.repairs[-1][0] != ch.bid:
        return None
    return ch.repairs[-1][1]


def peek_arrivals(comm: Any, after_bid: int = 0) -> dict[int, bytes]:
    """The kept two-stage bitmaps (ipmc.rounds) of the broadcasts after `after_bid`."""
    ch = _channel_of(comm)
    return {} if ch is None else {b: m for b, m in ch.arrivals if b > after_bid}

