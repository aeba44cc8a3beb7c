"""A channel's defences against genuine datagrams replayed or flooded at it (real UDP
sockets on loopback): the window of collectives a datagram may belong to, the stash's cap in
bytes, one read's budget; and the tag compared in constant time."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from collectives.ipmc import channel as ch
from collectives.ipmc import datagram as dg

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
