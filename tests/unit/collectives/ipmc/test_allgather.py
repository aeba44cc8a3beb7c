"""collectives.ipmc.allgather: the buffers are checked before any datagram (recvbuf must
hold p blocks of sendbuf's size and be writable), an unknown algorithm is refused; the
allgathers themselves need MPI and a network (tests/integration/test_mcast_allgather.py)."""

from __future__ import annotations

import array

import pytest

from collectives.ipmc.allgather import ALGORITHMS, allgather, blocks


def test_blocks_are_byte_views_of_the_block_size() -> None:
    send, recv, m = blocks(bytearray(b"abc"), bytearray(12), 4)
    assert (bytes(send), len(recv), m) == (b"abc", 12, 3)


def test_typed_buffers_count_in_bytes() -> None:
    send, recv, m = blocks(array.array("i", [1, 2]), array.array("i", [0] * 6), 3)
    assert (m, len(recv)) == (8, 24)


def test_empty_blocks_are_allowed() -> None:
    assert blocks(b"", bytearray(), 16)[2] == 0


@pytest.mark.parametrize("recv_size", [11, 13, 0])
def test_a_recvbuf_not_p_blocks_long_is_refused(recv_size: int) -> None:
    with pytest.raises(ValueError, match="recvbuf must hold 4 blocks of 3 bytes"):
        blocks(b"abc", bytearray(recv_size), 4)


def test_a_read_only_recvbuf_is_refused() -> None:
    with pytest.raises(ValueError, match="writable"):
        blocks(b"abc", bytes(6), 2)


def test_an_unknown_algorithm_is_refused_before_the_channel_is_used() -> None:
    with pytest.raises(ValueError, match="ring is not a multicast allgather"):
        allgather(None, b"", bytearray(), "ring")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown allgather 'fast'; choose from mpich, ring"):
        allgather(None, b"", bytearray(), "fast")  # type: ignore[arg-type]
    assert "mcast-sequential" in ALGORITHMS
