"""The testbed's controller is checked without connecting to it (the race of Mininet's
telnet check: a binary OpenFlow hello decoded as UTF-8)."""

from __future__ import annotations

import socket
import threading

import pytest

from testbed.emulation.hosts import ListeningController
from testbed.errors import RunFailed


class HelloFirst:
    """A listener that answers every connection with bytes that are not UTF-8 (as an
    OpenFlow hello with an unlucky transaction id is) and counts the connections."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.accepted += 1
            conn.sendall(b"\x04\x00\x00\x10\xff\xfe\xc3\x28\x00\x01\x00\x08\x00\x00\x00\x10")
            conn.close()

    def close(self) -> None:
        self.sock.close()


def test_controller_check_does_not_connect(caps) -> None:
    server = HelloFirst()
    try:
        c0 = ListeningController("c0", ip="127.0.0.1", port=server.port)
        c0.terminate()
        assert server.accepted == 0
    finally:
        server.close()


def test_controller_check_fails_clearly_without_listener(caps) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening
        with pytest.raises(RunFailed, match=f"no controller listens on 127.0.0.1:{port}"):
            ListeningController("c0", ip="127.0.0.1", port=port)
