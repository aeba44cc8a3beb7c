"""A datagram's receive time comes from the kernel (SO_TIMESTAMPNS), not from when a rank
read it: a receiver that waited for a core is not taken for a slow one (ipmc.rate)."""

from __future__ import annotations

import select
import socket
import time

from collectives.ipmc.channel import SO_TIMESTAMPNS, STAMP_SPACE, receive_time


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
