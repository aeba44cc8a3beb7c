"""collectives.ipmc.channel on real UDP sockets over loopback: its defences against genuine
datagrams replayed or flooded at it (the window of collectives a datagram may belong to, the
stash's cap in bytes, one read's budget, the tag compared in constant time). A datagram's
receive time comes from the kernel (SO_TIMESTAMPNS), not from when a rank read it."""

from __future__ import annotations

import select
import socket
import time
from collections.abc import Iterator

import pytest

from collectives.ipmc import channel as ch
from collectives.ipmc import datagram as dg
from collectives.ipmc.channel import SO_TIMESTAMPNS, STAMP_SPACE, receive_time

KEY = bytes(range(16))
NOW = 100  # the collective the channel is in


@pytest.fixture
def chan() -> Iterator[ch.Channel]:
    """A channel in collective NOW reading one loopback socket (no MPI, no group)."""
    c = ch.Channel.__new__(ch.Channel)
    c.stats, c.bid, c.codec = ch.Stats(), NOW, dg.Codec(KEY)
    c._stash, c._stashed, c._stash_bytes = {}, 0, 0
    c._finished, c._kept = {}, None
    c.recv_sock, c.ucast_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM), None
    c.recv_sock.bind(("127.0.0.1", 0))
    c.recv_sock.setblocking(False)
    yield c
    c.recv_sock.close()


def send(c: ch.Channel, bids: list[int], size: int = 100) -> None:
    """Genuine data datagrams of these collectives, as a replaying host would send them."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for i, bid in enumerate(bids):
            s.sendto(c.codec.encode(dg.DATA, 0, bid & 0xFFFFFFFF, i, len(bids), b"x" * size),
                     c.recv_sock.getsockname())
    time.sleep(0.05)  # loopback delivers at once; this leaves it no excuse


def delivered(c: ch.Channel) -> list[int]:
    got: list[int] = []
    c.deliver(lambda d: got.append(d.bid))
    return got


def test_a_datagram_outside_the_window_of_collectives_is_rejected(chan) -> None:
    send(chan, [NOW, NOW, NOW + 1, NOW + ch.EARLY_MAX, NOW + ch.EARLY_MAX + 1,
                NOW - ch.FINISHED_MAX, NOW - ch.FINISHED_MAX - 1, NOW - 2**31, 0])
    assert delivered(chan) == [NOW, NOW]  # a replay inside it: a duplicate, for the protocol
    assert chan.stats["early"] == 2 and sorted(chan._stash) == [NOW + 1, NOW + ch.EARLY_MAX]
    assert chan.stats["stale"] == 1  # FINISHED_MAX behind: may still be answered
    assert chan.stats["reasons"] == {"window": 4}
    chan.bid = NOW + 1
    assert delivered(chan) == [NOW + 1]  # the stashed one, when its collective comes


def test_the_stash_holds_at_most_its_bytes(chan, monkeypatch) -> None:
    monkeypatch.setattr(ch, "STASH_BYTES", 1000)
    send(chan, [NOW + 1] * 15, size=100)
    assert delivered(chan) == []
    assert chan.stats["early"] == 10 and chan._stash_bytes == 1000
    assert chan.stats["reasons"] == {"stash full": 5}
    chan.bid = NOW + 1
    assert len(delivered(chan)) == 10 and chan._stash_bytes == 0 == chan._stashed


def test_one_read_takes_at_most_its_budget(chan, monkeypatch) -> None:
    monkeypatch.setattr(ch, "READ_MAX", 10)
    send(chan, [NOW] * 25)
    assert [len(delivered(chan)) for _ in range(4)] == [10, 10, 5, 0]


def test_the_tag_is_compared_in_constant_time(monkeypatch) -> None:
    seen: list[tuple[bytes, bytes]] = []

    def spy(a, b):
        seen.append((bytes(a), bytes(b)))
        return a == b

    monkeypatch.setattr(dg.hmac, "compare_digest", spy)
    c = dg.Codec(KEY)
    data = c.encode(dg.DATA, 0, 1, 0, 1, b"payload")
    assert bytes(c.decode(data).payload) == b"payload"
    with pytest.raises(dg.Rejected, match="tag"):
        c.decode(data[:-1] + bytes([data[-1] ^ 1]))
    assert len(seen) == 2 and seen[0] == (data[-dg.TAG_SIZE:],) * 2


def test_the_receive_time_is_when_the_datagram_came_not_when_it_was_read() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as r, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        r.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        r.bind(("127.0.0.1", 0))
        _stamping_on(r, s)
        before = time.time()
        s.sendto(b"x", r.getsockname())
        # Queued by the time poll says readable (on a busy machine the kernel may take a
        # while to deliver it, so the sender's clock alone cannot bound the stamp).
        assert select.select([r], [], [], 5.0)[0]
        queued = time.time()
        time.sleep(0.05)  # read it late
        _, anc, _, _ = r.recvmsg(16, STAMP_SPACE)
        read = time.time()
    came = receive_time(anc)
    assert before - 1e-3 <= came <= queued + 1e-3
    assert came < read - 0.04


def _stamping_on(r: socket.socket, s: socket.socket) -> None:
    """The kernel turns receive stamps on for everyone when the first socket asks, through a
    deferred work item: until it ran (late on a busy machine) a datagram is stamped when
    read. Wait until a probe is stamped before it is read."""
    for _ in range(100):
        s.sendto(b"probe", r.getsockname())
        time.sleep(0.02)
        _, anc, _, _ = r.recvmsg(16, STAMP_SPACE)
        if receive_time(anc) < time.time() - 0.01:
            return
    raise AssertionError("receive stamps never came on")


def test_no_receive_time_without_the_option() -> None:
    assert receive_time([]) == 0.0


def test_reading_probes_keeps_the_next_collectives_datagrams(chan) -> None:
    """A receiver still measuring the group round trip (ipmc.grtt) when a fast root has begun
    the first broadcast: the probes are read, the broadcast's data kept for it (it was
    thrown away, and that broadcast needed a repair round: 10 of 60 jobs, 2026-12-07)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for kind, bid, index in ((dg.PROBE, 0, 7), (dg.DATA, NOW + 1, 0), (dg.DATA, NOW + 1, 1),
                                 (dg.PROBE, 0, 8)):
            s.sendto(chan.codec.encode(kind, 0, bid, index, 9, b"x"), chan.recv_sock.getsockname())
    time.sleep(0.05)
    assert [d.index for d in chan.probes()] == [7, 8]
    assert chan.stats["early"] == 2
    chan.bid = NOW + 1
    got: list[int] = []
    chan.deliver(lambda d: got.append(d.index))
    assert got == [0, 1]
