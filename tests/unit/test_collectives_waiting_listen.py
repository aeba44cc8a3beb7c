"""A socket listened to (waiting.SocketWatch.listen) is drained from inside the rank's
sleeping waits: a multicast receiver that has returned still answers its root's end
markers while it waits in MPI. Real sockets, real epoll."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from collectives.waiting import SocketWatch


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as r, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        r.bind(("127.0.0.1", 0))
        r.setblocking(False)
        s.connect(r.getsockname())
        yield r, s


def drainer(sock: socket.socket, got: list[bytes]):
    def drain() -> None:
        while True:
            try:
                got.append(sock.recv(64))
            except BlockingIOError:
                return
    return drain


def test_a_listened_socket_is_drained_from_a_sleep(pair) -> None:
    r, s = pair
    w, got = SocketWatch(), []
    w.listen(r, drainer(r, got))
    s.send(b"end marker")
    start = time.perf_counter()
    assert w.sleep(2.0)
    assert time.perf_counter() - start < 1.0  # woken by the datagram, not the timeout
    assert got == [b"end marker"]
    assert not w.sleep(0.05)  # drained: the next sleep is not woken again
    assert got == [b"end marker"]


def test_a_waiter_reading_the_socket_itself_is_not_robbed(pair) -> None:
    r, s = pair
    w, got = SocketWatch(), []
    w.listen(r, drainer(r, got))
    s.send(b"repair")
    assert w.sleep_with([r], 2.0)
    assert got == []  # left for the caller
    assert r.recv(64) == b"repair"
    s.send(b"later")  # still listened to after the caller's own sleep
    assert w.sleep(2.0) and got == [b"later"]


def test_unlisten_stops_draining(pair) -> None:
    r, s = pair
    w, got = SocketWatch(), []
    w.listen(r, drainer(r, got))
    w.listen(r, drainer(r, got))  # twice is once
    w.unlisten(r)
    s.send(b"x")
    assert not w.sleep(0.05)
    assert got == []
    w.unlisten(r)  # twice is harmless
