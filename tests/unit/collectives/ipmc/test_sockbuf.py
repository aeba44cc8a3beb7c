"""collectives.ipmc.sockbuf: the receive buffer each multicast algorithm asks for, the
kernel's answer read back, and the drops of a full buffer counted from /proc/net/udp, on real
loopback sockets (a datagram the buffer cannot hold is dropped by the kernel, as on the
testbed's veths)."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest

from collectives.ipmc import channel as ch
from collectives.ipmc import sockbuf
from collectives.ipmc.message import Options

# /proc/net/udp as Linux 6.18 writes it: one bound socket (inode 72081) that has 0x33C00 B
# queued and dropped 308 datagrams
TABLE = (
    "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
    "timeout inode ref pointer drops            \n"
    " 1274: 0100007F:D754 00000000:0000 07 00000000:00033C00 00:00000000 00000000     0    "
    "    0 72081 2 0000000077f8704b 308         \n"
    " 1275: 0100007F:D755 00000000:0000 07 00000000:00000000 00:00000000 00000000     0    "
    "    0 72082 2 0000000077f8704c 0         \n")


def test_the_papers_algorithms_keep_the_kernels_default_ours_a_large_buffer() -> None:
    for alg in ("two-stage", "scout-linear", "scout-binary"):
        assert sockbuf.default_for(alg) == sockbuf.KERNEL == 0
    for alg in ("nack", "mcast-sequential", "mcast-concurrent"):
        assert sockbuf.default_for(alg) == sockbuf.LARGE == 32 << 20
    assert sockbuf.resolve("two-stage", None) == 0
    assert sockbuf.resolve("two-stage", 1 << 20) == 1 << 20  # asked: as asked
    assert sockbuf.resolve("nack", 0) == 0  # nack told to keep the kernel's


@pytest.mark.parametrize("bad", [-1, 1.5, "big", True, (1 << 30) + 1])
def test_an_rcvbuf_that_is_not_a_byte_count_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="rcvbuf is a whole number of bytes"):
        Options(fragment=1000, rcvbuf=bad)  # type: ignore[arg-type]
    assert Options(fragment=1000, rcvbuf=0).rcvbuf == 0


def test_a_sockets_queue_and_drops_are_read_from_its_proc_net_udp_row() -> None:
    assert sockbuf.udp_row(TABLE, 72081) == (0x33C00, 308)
    assert sockbuf.udp_row(TABLE, 72082) == (0, 0)
    assert sockbuf.udp_row(TABLE, 1) is None


def test_the_summary_over_ranks_counts_the_drops_of_the_measurement_only() -> None:
    def state(drops: int | None, got: int = 212992) -> dict:
        return {"asked": 0, "got": got, "kernel": 212992, "drops": drops}

    s = sockbuf.summary([None, state(5), state(0)], [state(0), state(300), state(40)])
    assert s == {"asked": 0, "got": 212992, "kernel": 212992, "drops": 335,
                 "drops_by_rank": [0, 295, 40]}
    uneven = sockbuf.summary([state(0), state(0)], [state(0, 1 << 20), state(None)])
    assert uneven is not None
    assert uneven["got"] == [1 << 20, 212992] and uneven["drops"] is None
    assert sockbuf.summary([None, None], [None, None]) is None
    line = sockbuf.describe(s, 5)
    assert "not set (the kernel's default), 212992 B got" in line
    assert "335 datagram(s) dropped by full buffers, 67.0 a broadcast" in line


@pytest.fixture
def sock() -> Iterator[socket.socket]:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.setblocking(False)
    yield s
    s.close()


def test_a_channel_asks_for_its_buffer_and_gives_it_back_to_the_kernels_default(sock) -> None:
    c = ch.Channel.__new__(ch.Channel)
    c.recv_sock, c.rcvbuf_asked = sock, sockbuf.KERNEL
    default = sockbuf.kernel_default()
    assert c.receive_buffer_state()["got"] == default
    c.receive_buffer(1 << 20)
    assert c.receive_buffer_state()["got"] == 2 << 20  # the kernel doubles what is asked
    assert c.receive_buffer_state()["asked"] == 1 << 20
    c.receive_buffer(sockbuf.KERNEL)
    state = c.receive_buffer_state()
    assert state["got"] == default == state["kernel"] and state["asked"] == 0


def test_datagrams_beyond_a_full_buffer_are_dropped_and_counted(sock) -> None:
    c = ch.Channel.__new__(ch.Channel)
    c.recv_sock, c.rcvbuf_asked = sock, sockbuf.KERNEL
    c.receive_buffer(8 << 10)  # 16 KiB: a handful of 1444 B datagrams
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _ in range(100):
            s.sendto(b"x" * 1444, sock.getsockname())
    time.sleep(0.05)
    queued, dropped = sockbuf.queue_and_drops(sock) or (0, 0)
    kept = 0
    while True:
        try:
            sock.recv(2048)
        except BlockingIOError:
            break
        kept += 1
    assert 0 < kept < 100 and dropped == 100 - kept
    assert queued >= kept * 1444  # truesize: each counted with its overhead
    assert c.receive_buffer_state()["drops"] == dropped
