"""collectives.waiting.SocketWatch with plain TCP sockets standing for MPI's: it watches
every TCP socket of the process once, never its own duplicates, and leaks nothing when
sockets close and their numbers come back."""

from __future__ import annotations

import os
import socket

import pytest

from collectives import waiting


def listener() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s


def open_fds() -> set[int]:
    return {int(n) for n in os.listdir("/proc/self/fd")}


@pytest.fixture
def watch():
    w = waiting.SocketWatch()
    yield w
    w.close()


def test_watches_tcp_sockets_not_udp_nor_its_own_duplicates(watch):
    a, b = listener(), listener()
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    watch.refresh(0.0)
    assert {a.fileno(), b.fileno()} <= watch.known.keys()
    assert u.fileno() not in watch.known
    assert not watch.known.keys() & set(watch.dups.values())
    for s in (a, b, u):
        s.close()


def test_a_closed_socket_whose_number_comes_back_leaks_nothing(watch):
    """MPI closes a socket and opens another, which gets the same number (the lowest free):
    the watch forgets the old one (closing its duplicate), watches the new one, and does
    not take the freed duplicate's number, listed a moment before, for one of MPI's (that
    made a duplicate of a duplicate at every look, without end)."""
    a, b = listener(), listener()
    watch.refresh(0.0)
    a.close()
    c = listener()  # most likely a's old number
    for _ in range(5):
        watch.refresh(0.0)
    before = open_fds()
    for _ in range(5):
        watch.refresh(0.0)
    assert open_fds() == before  # nothing opened look after look
    assert {b.fileno(), c.fileno()} <= watch.known.keys()
    assert not watch.known.keys() & set(watch.dups.values())
    # one entry per socket: none is a duplicate of another (of one of ours). Counted for
    # this test's sockets: the process may hold other tests' sockets, some under two numbers
    # (under pytest-xdist a worker runs them in another order, before this one)
    mine = {watch.known[b.fileno()], watch.known[c.fileno()]}
    assert len(mine) == 2 and sum(v in mine for v in watch.known.values()) == 2
    # each watched socket has exactly one duplicate open, and nothing else of ours is
    ours = set(watch.dups.values())
    assert len(ours) == len(watch.known) and ours <= open_fds()
    b.close()
    c.close()


def test_a_socket_is_seen_once_it_sits_on_a_freed_duplicates_number(watch):
    a, b = listener(), listener()
    watch.refresh(0.0)
    dup_of_a = watch.dups[a.fileno()]
    a.close()
    watch.refresh(0.0)  # forgets a, closes its duplicate
    assert dup_of_a not in open_fds() or dup_of_a in watch.dups.values()
    c = listener()
    watch.refresh(0.0)
    assert c.fileno() in watch.known
    b.close()
    c.close()
