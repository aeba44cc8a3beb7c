"""testbed.emulation.controller_proc: the controller's JSON endpoint (the real eventlet server
of controller.api, in a subprocess) answers root and its own user only, and only bounded
requests, over its Unix socket; wait_confirmed waits for its /state's `unconfirmed`; and
tcp_listening reads /proc/net/tcp, in a process's
namespace too."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from testbed.emulation.controller_proc import (
    ApiError,
    api_get,
    api_post,
    unix_listening,
    wait_confirmed,
)

NOBODY = 65534

SERVER = """
import sys, eventlet
eventlet.monkey_patch()
from controller import api
api.IDLE_S = 1.0
failed = []
unconfirmed = [2]  # changes sent that no switch has confirmed yet, until /confirm
api.serve(sys.argv[1], lambda: {"ready": True, "failed": failed,
                                "unconfirmed": unconfirmed[0]},
          actions={"/nodes/fail": lambda body: failed.extend(body["nodes"]) or
                   {"failed": failed},
                   "/confirm": lambda body: unconfirmed.clear() or unconfirmed.append(0) or
                   {"unconfirmed": 0}},
          refused=lambda why: print(why, flush=True))
print("listening", flush=True)
eventlet.sleep(120)
"""


@pytest.fixture
def endpoint() -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    folder = Path(tempfile.mkdtemp(prefix="mcastlab-api-"))  # 0700, in /tmp: nobody's way in
    path = folder / "api.sock"
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(SERVER), str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "listening", \
            proc.stderr.read() if proc.stderr else ""
        yield path, proc
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(folder)


def as_nobody(path: Path) -> str:
    """What user nobody gets connecting to `path` and asking GET /state: the answer, or
    the error's name."""
    code = ("import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n"
            "    s.connect(sys.argv[1]); s.sendall(b'GET /state HTTP/1.0\\r\\n\\r\\n')\n"
            "    print(s.recv(4096).decode() or 'closed')\n"
            "except OSError as e:\n    print(type(e).__name__)\n")
    out = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                          "--clear-groups", sys.executable, "-c", code, str(path)],
                         capture_output=True, text=True, timeout=30)
    return out.stdout.strip() or out.stderr.strip()


def raw(path: Path, request: bytes) -> tuple[int, bytes]:
    """Send `request` as it is; the status and body of the answer."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(str(path))
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_root_is_answered_and_the_socket_is_its_alone(endpoint) -> None:
    path, _ = endpoint
    assert unix_listening(path) and (path.stat().st_mode & 0o777) == 0o600
    assert api_get(path)["ready"] is True
    assert api_post(path, "/nodes/fail", {"nodes": [3]}) == {"failed": [3]}


def test_wait_confirmed_waits_for_the_switches_barriers(endpoint) -> None:
    path, _proc = endpoint
    t0 = time.monotonic()
    assert not wait_confirmed(path, 0.3)  # two changes unconfirmed: not within 0.3 s
    assert time.monotonic() - t0 >= 0.3
    assert api_post(path, "/confirm", {}) == {"unconfirmed": 0}
    assert wait_confirmed(path, 0.0)  # asked once even with no time left


def test_another_user_cannot_reach_it(endpoint) -> None:
    path, proc = endpoint
    assert as_nobody(path) == "PermissionError"  # the folder is 0700, the socket 0600
    # were both opened to everyone, the peer's credentials still shut nobody out
    path.parent.chmod(0o755)
    path.chmod(0o666)
    assert as_nobody(path) in ("closed", "ConnectionResetError", "BrokenPipeError")
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == f"API connection from uid {NOBODY} refused"
    assert api_get(path)["failed"] == []  # and root is still answered


def test_a_post_must_be_json_of_bounded_size(endpoint) -> None:
    path, _ = endpoint
    status, body = raw(path, b"POST /nodes/fail HTTP/1.0\r\nContent-Type: application/"
                             b"x-www-form-urlencoded\r\nContent-Length: 9\r\n\r\nnodes=1,2")
    assert status == 415 and b"application/json" in body
    status, _ = raw(path, b"POST /nodes/fail HTTP/1.0\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 1000000\r\n\r\n{}")
    assert status == 413
    status, _ = raw(path, b"POST /nodes/fail HTTP/1.0\r\nContent-Type: application/json"
                          b"\r\n\r\n{}")
    assert status == 411
    with pytest.raises(ApiError, match="HTTP 400"):
        api_post(path, "/nodes/fail", {"no_nodes": 1})
    assert api_get(path)["failed"] == []


def test_an_idle_connection_is_closed(endpoint) -> None:
    path, _ = endpoint
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(path))
        s.settimeout(10)
        t0 = time.monotonic()
        s.sendall(b"GET /sta")  # and then nothing
        assert s.recv(100) == b""  # closed by the server
        assert 0.8 < time.monotonic() - t0 < 5
    assert api_get(path)["ready"] is True


def test_a_socket_path_holding_a_file_is_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "api.sock").write_text("mine")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(SERVER),
                          str(tmp_path / "api.sock")], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode != 0 and "exists and is not a socket" in out.stderr
    assert (tmp_path / "api.sock").read_text() == "mine"


def test_tcp_listening_reads_proc_net_tcp() -> None:
    from testbed.emulation.controller_proc import tcp_listening

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        assert not tcp_listening(port)  # bound is not listening
        s.listen()
        assert tcp_listening(port)
        assert not tcp_listening(port, "127.0.0.2")
    assert not tcp_listening(port)


def test_tcp_listening_on_any_address_of_a_process_namespace() -> None:
    """ip None: a listener on any address, IPv6 (iperf3's dual-stack socket) included, looked
    up in /proc/PID/net (a Mininet host's namespace is its shell's)."""
    import os

    from testbed.emulation.controller_proc import tcp_listening

    with socket.socket(socket.AF_INET6) as s:
        s.bind(("::", 0))
        port = s.getsockname()[1]
        assert not tcp_listening(port, None, os.getpid())
        s.listen()
        assert tcp_listening(port, None, os.getpid())
        assert tcp_listening(port, None)
        assert not tcp_listening(port)  # not an IPv4 listener on 127.0.0.1
    assert not tcp_listening(port, None, os.getpid())
