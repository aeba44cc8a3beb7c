"""collectives.outqueue on plain TCP sockets over loopback standing for MPI's: a receiver that
does not read keeps the sender's bytes unsent; once it reads, they leave and wait_sent
returns. The send orders are checked, fifo by default."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from collectives import outqueue, waiting
from collectives.algorithms import DEFAULT_SEND_ORDER, SEND_ORDERS, check_send_order


@pytest.fixture
def pair():
    """A connected TCP pair whose receiver reads nothing until told, with small buffers."""
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen()
    tx = socket.socket()
    tx.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 10)
    tx.connect(lst.getsockname())
    rx, _ = lst.accept()
    rx.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 10)
    tx.setblocking(False)
    yield tx, rx
    for s in (tx, rx, lst):
        s.close()


def fill(tx: socket.socket) -> int:
    """Write until the socket takes no more; the bytes written."""
    n = 0
    while True:
        try:
            n += tx.send(b"x" * 8192)
        except BlockingIOError:
            return n


def drain(rx: socket.socket, n: int) -> None:
    while n > 0:
        n -= len(rx.recv(65536))


def test_unsent_counts_what_a_peer_that_does_not_read_holds(pair):
    tx, rx = pair
    assert outqueue.unsent(tx.fileno()) == 0
    written = fill(tx)
    held = outqueue.unsent(tx.fileno())
    assert 0 < held <= written
    drain(rx, written)
    deadline = time.monotonic() + 5
    while outqueue.unsent(tx.fileno()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert outqueue.unsent(tx.fileno()) == 0


def test_a_listener_or_closed_descriptor_has_nothing_unsent_or_queued():
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen()
    assert outqueue.unsent(lst.fileno()) == 0 == outqueue.queued(lst.fileno())
    fd = lst.fileno()
    lst.close()
    assert outqueue.unsent(fd) == 0 == outqueue.queued(fd)


def test_queued_reads_the_sockets_write_memory_below_tcp(pair):
    tx, rx = pair
    # loopback frees a packet as it is sent: what a full socket holds is unsent, not queued
    written = fill(tx)
    assert outqueue.queued(tx.fileno()) == 0 < outqueue.unsent(tx.fileno())
    drain(rx, written)
    # a UDP datagram to nowhere on loopback also leaves at once; the call reads the same
    # counter for any socket (SO_MEMINFO), never raising
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.sendto(b"x" * 1000, ("127.0.0.1", 9))
    assert outqueue.queued(udp.fileno()) == 0
    udp.close()


def test_wait_sent_returns_once_the_bytes_left(pair):
    tx, rx = pair
    written = fill(tx)
    waiting.watch().refresh(0.0)
    assert outqueue.pending() > 0
    t0 = time.monotonic()
    outqueue.wait_sent(stall=0.2)  # nobody reads: nothing moves, it gives up
    assert 0.2 <= time.monotonic() - t0 < 2 and outqueue.pending() > 0
    reader = threading.Thread(target=lambda: (time.sleep(0.1), drain(rx, written)))
    reader.start()
    outqueue.wait_sent(stall=5)
    waited = time.monotonic() - t0
    reader.join()
    assert outqueue.pending() == 0 and waited < 5


def test_send_orders_are_checked_and_fifo_is_the_default():
    assert DEFAULT_SEND_ORDER == "fifo" and set(SEND_ORDERS) == {"fifo", "overlapped"}
    assert check_send_order("overlapped") == "overlapped"
    with pytest.raises(ValueError, match="send_order must be one of fifo, overlapped"):
        check_send_order("lifo")
