"""The controller's OpenFlow listener on a TCP address (a cluster's, over TLS): the listening
socket, the accept loop, the TLS handshakes and the limits on them. os-ken's own accept loop
(hub.StreamServer.serve_forever) ends at the first error accept() raises (too many open
files, say) and with it every new switch for the rest of the run; and it does each TLS
handshake in a thread of its own with no timeout and no cap, so connections that never
finish one pile up until it raises.

Here:
- **the accept loop survives**: an error is counted, logged, waited out (ACCEPT_BACKOFF_S)
  and the loop goes on; it ends only when the listener is closed;
- **a connection cap**: at most `max_connections` open at once (handshakes under way and
  switches connected); one more is closed at once;
- **a handshake timeout**: a TLS handshake not finished `handshake_timeout` seconds after its
  connection was accepted is dropped;
- **a cap on handshakes under way**: at most `max_handshakes`; one more drops the oldest
  (so that idle connections, however many, cannot keep a switch's handshake out: it needs
  milliseconds, theirs are the oldest);
- addresses the configuration does not admit are closed before any TLS.

All handshakes run in one thread (non-blocking sockets, one selector); a finished one is
handed, blocking again, to os-ken's datapath_connection_factory in a thread of its own, as
os-ken would. Division of labour: os-ken's OpenFlowController still starts the loop
(server_loop, which `install` replaces) and owns every connected switch; this module owns
what comes before. Its counts are `STATS` (the app's /state shows them as "listener").
"""

from __future__ import annotations

import contextlib
import logging
import queue
import resource
import selectors
import socket
import ssl
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

LOG = logging.getLogger("mcastlab.controller.listener")
ACCEPT_BACKOFF_S = 0.1  # after accept() failed (no file descriptor left, say)
BACKLOG = 128
FD_RESERVE = 256  # files the controller opens besides its switches' connections
STATS: Counter[str] = Counter()  # this process's listener's counts
_STATS_LOCK = threading.Lock()


@dataclass(frozen=True)
class Limits:
    """What a listener allows (ControllerConfig carries them; checked there)."""

    handshake_timeout: float = 10.0  # seconds from accept to a finished TLS handshake
    max_handshakes: int = 64         # TLS handshakes under way at once (the oldest dropped)
    max_connections: int = 1024      # open connections at once (one more is closed)

    def __post_init__(self) -> None:
        if self.handshake_timeout <= 0:
            raise ValueError("the TLS handshake timeout must be positive")
        if self.max_handshakes < 1 or self.max_connections < 1:
            raise ValueError("the handshakes and connections a listener takes must be at "
                             "least 1")
        if self.max_handshakes > self.max_connections:
            raise ValueError("the handshakes under way cannot exceed the connections")


class Pending:
    """Handshakes under way, oldest first: at most `cap`, each for `timeout` seconds."""

    def __init__(self, cap: int, timeout: float) -> None:
        self.cap, self.timeout = cap, timeout
        self._deadline: OrderedDict[Any, float] = OrderedDict()

    def __len__(self) -> int:
        return len(self._deadline)

    def __contains__(self, item: Any) -> bool:
        return item in self._deadline

    def add(self, item: Any, now: float) -> list[Any]:
        """Take `item`, accepted at `now`; the oldest that no longer fit (to be dropped)."""
        self._deadline[item] = now + self.timeout
        evicted = []
        while len(self._deadline) > self.cap:
            evicted.append(self._deadline.popitem(last=False)[0])
        return evicted

    def remove(self, item: Any) -> bool:
        """Forget `item` (its handshake ended); whether it was under way."""
        return self._deadline.pop(item, None) is not None

    def expired(self, now: float) -> list[Any]:
        """The items whose time is up at `now`, forgotten (to be dropped)."""
        out = []
        while self._deadline:
            item, deadline = next(iter(self._deadline.items()))
            if deadline > now:
                break
            self._deadline.popitem(last=False)
            out.append(item)
        return out

    def wait(self, now: float) -> float | None:
        """Seconds from `now` until the next deadline (None: nothing under way)."""
        if not self._deadline:
            return None
        return max(0.0, next(iter(self._deadline.values())) - now)


def tls_context(key: str, cert: str, ca: str) -> ssl.SSLContext:
    """The server side of mutual TLS: this certificate shown, the peer's required and
    checked against `ca`, TLS 1.2 or later."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2
    ctx.load_cert_chain(cert, key)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(ca)
    return ctx


def raise_fd_limit(limits: Limits, reserve: int = FD_RESERVE) -> int:
    """Raise this process's open-file limit (the soft one, up to the hard one) so that
    `limits.max_connections` connections fit beside `reserve` other files; the soft limit
    now. (Past it accept() fails, which the loop survives, but no switch gets in.)"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = limits.max_connections + reserve
    if soft != resource.RLIM_INFINITY and soft < want:
        soft = want if hard == resource.RLIM_INFINITY else min(hard, want)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return soft


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket on host:port (IPv4 or IPv6), reusing the address."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=BACKLOG)


Handle = Callable[[Any, Any], Any]


class Listener:
    """Accepts on `server` (a listening socket) and hands each connection, through TLS when
    `ctx` is given, to `handle(sock, address)` in a thread of its own."""

    def __init__(self, server: socket.socket, handle: Handle, limits: Limits,
                 ctx: ssl.SSLContext | None = None,
                 admits: Callable[[Any], bool] = lambda address: True,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.server, self.handle, self.limits, self.ctx = server, handle, limits, ctx
        self.admits, self.clock = admits, clock
        self.closed = False
        self._lock = threading.Lock()
        self.live = 0  # open connections: handshakes under way and switches connected
        self.pending = Pending(limits.max_handshakes, limits.handshake_timeout)
        self._addresses: dict[Any, Any] = {}
        self._new: queue.SimpleQueue[tuple[socket.socket, Any]] = queue.SimpleQueue()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)  # (a byte waiting already wakes the thread)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._handshaker: threading.Thread | None = None

    # ---- the accept loop --------------------------------------------------------------
    def serve_forever(self) -> None:
        """Accept until closed; no error ends the loop."""
        if self.ctx is not None:
            self._handshaker = threading.Thread(target=self._handshake_loop, daemon=True,
                                                name="openflow-tls-handshakes")
            self._handshaker.start()
        while not self.closed:
            try:
                sock, address = self.server.accept()
            except Exception as exc:  # EMFILE, ENFILE, ENOBUFS, ECONNABORTED, ...
                if self.closed:
                    break
                self._count("accept_errors")
                LOG.warning("OpenFlow listener: accept failed (%s); going on", exc)
                time.sleep(ACCEPT_BACKOFF_S)
                continue
            try:
                self._take(sock, address)
            except Exception:
                self._count("errors")
                LOG.exception("OpenFlow listener: a connection from %s failed", address)
                _close(sock)

    def _take(self, sock: socket.socket, address: Any) -> None:
        if not self.admits(address):
            self._count("refused_address")
            LOG.warning("OpenFlow listener: %s is not an allowed address; closed", address)
            _close(sock)
            return
        with self._lock:
            if self.live >= self.limits.max_connections:
                full = True
            else:
                full, self.live = False, self.live + 1
        if full:
            self._count("over_cap")
            LOG.warning("OpenFlow listener: %d connections open, the cap; %s closed",
                        self.limits.max_connections, address)
            _close(sock)
            return
        if self.ctx is None:
            self._start(sock, address)
        else:
            self._new.put((sock, address))
            with contextlib.suppress(BlockingIOError):
                self._wake_w.send(b"x")

    def _start(self, sock: Any, address: Any) -> None:
        """`handle` the connection in a thread of its own (its end frees its place)."""
        try:
            threading.Thread(target=self._serve, args=(sock, address), daemon=True,
                             name=f"openflow-{address}").start()
        except Exception:  # no thread left
            self._release()
            raise

    def _serve(self, sock: Any, address: Any) -> None:
        try:
            self._count("connections")
            self.handle(sock, address)
        except Exception as exc:  # os-ken's factory has logged it
            LOG.debug("OpenFlow connection from %s ended: %s", address, exc)
        finally:
            _close(sock)
            self._release()

    def _release(self) -> None:
        with self._lock:
            self.live -= 1

    # ---- the handshakes (one thread) --------------------------------------------------
    def _handshake_loop(self) -> None:
        while not self.closed:
            try:
                self._handshake_round()
            except Exception:
                self._count("errors")
                LOG.exception("OpenFlow listener: a handshake round failed; going on")
                time.sleep(ACCEPT_BACKOFF_S)

    def _handshake_round(self) -> None:
        for key, _ in self._selector.select(self.pending.wait(self.clock())):
            if key.fileobj is self._wake_r:
                with contextlib.suppress(BlockingIOError):
                    self._wake_r.recv(4096)
            elif key.fileobj in self.pending:
                self._step(key.fileobj)
        while True:
            try:
                sock, address = self._new.get_nowait()
            except queue.Empty:
                break
            self._begin(sock, address)
        for tls in self.pending.expired(self.clock()):
            self._drop(tls, "handshake_timeout")

    def _begin(self, sock: socket.socket, address: Any) -> None:
        assert self.ctx is not None
        try:
            sock.setblocking(False)
            tls = self.ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        except (OSError, ValueError):
            self._count("handshake_failed")
            _close(sock)
            self._release()
            return
        self._addresses[tls] = address
        for old in self.pending.add(tls, self.clock()):
            self._drop(old, "handshake_evicted")
        self._selector.register(tls, selectors.EVENT_READ)
        self._step(tls)

    def _step(self, tls: Any) -> None:
        """Take the handshake of `tls` as far as its peer's bytes allow."""
        try:
            tls.do_handshake()
        except ssl.SSLWantReadError:
            self._selector.modify(tls, selectors.EVENT_READ)
            return
        except ssl.SSLWantWriteError:
            self._selector.modify(tls, selectors.EVENT_WRITE)
            return
        except (ssl.SSLError, OSError) as exc:
            LOG.warning("OpenFlow listener: TLS handshake with %s failed: %s",
                        self._addresses.get(tls), exc)
            self._drop(tls, "handshake_failed")
            return
        self.pending.remove(tls)
        self._selector.unregister(tls)
        address = self._addresses.pop(tls)
        try:
            tls.setblocking(True)
            self._start(tls, address)
        except Exception:
            self._count("errors")
            LOG.exception("OpenFlow listener: no thread for %s; closed", address)
            _close(tls)

    def _drop(self, tls: Any, why: str) -> None:
        self.pending.remove(tls)
        with contextlib.suppress(KeyError, ValueError):  # (not registered yet)
            self._selector.unregister(tls)
        self._addresses.pop(tls, None)
        _close(tls)
        self._release()
        self._count(why)  # (once closed: a count seen is a connection ended)

    # ---- ending -----------------------------------------------------------------------------
    def close(self) -> None:
        """End the loops (the switches connected stay connected)."""
        self.closed = True
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)  # wakes accept() (close would not)
        _close(self.server)
        with contextlib.suppress(OSError):  # (BlockingIOError among them)
            self._wake_w.send(b"x")
        if self._handshaker is not None:
            self._handshaker.join(timeout=5)

    @staticmethod
    def _count(what: str) -> None:
        with _STATS_LOCK:
            STATS[what] += 1


def _close(sock: Any) -> None:
    with contextlib.suppress(OSError):
        sock.close()


def install(listen_host: str, limits: Limits, ctx: ssl.SSLContext | None,
            admits: Callable[[Any], bool]) -> None:
    """Make os-ken's OpenFlowController serve its TCP port through a Listener (its own
    server_loop is replaced before the app starts)."""
    # os-ken's alone, and loaded only when the controller starts
    from os_ken.controller import controller

    def server_loop(self: Any, tcp_port: int | None, ssl_port: int | None) -> None:
        port = ssl_port if ctx is not None else tcp_port
        assert port is not None

        def handle(sock: Any, address: Any) -> Any:  # looked up at each connection
            return controller.datapath_connection_factory(sock, address)

        raise_fd_limit(limits)
        Listener(listen(listen_host, port), handle, limits, ctx, admits).serve_forever()

    controller.OpenFlowController.server_loop = server_loop
