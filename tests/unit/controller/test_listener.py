"""controller.listener: the OpenFlow listener on a TCP address, on real sockets on loopback
with real mutual TLS (a run's certificates, testbed.cluster.tls). Handshakes under way are
capped, the oldest dropped; a handshake not finished in time is dropped; connections beyond
the cap are closed at once; a switch with the run's certificate gets in while idle
connections are held; the accept loop goes on after accept() fails; an address not admitted
is closed before any TLS. (The listener in the controller, with Open vSwitch: the cluster's
integration tests.)"""

from __future__ import annotations

import argparse
import errno
import os
import select
import socket
import ssl
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller import listener as lmod
from controller.__main__ import add_arguments, config_from
from controller.config import ControllerConfig
from controller.listener import Limits, Listener, Pending, listen, tls_context
from testbed.cluster.tls import RunPki, make_pki
from testbed.emulation import run_records

WAIT_S = 10.0  # an upper bound on waits for state (each ends when the state is reached)


def test_pending_drops_the_oldest_beyond_its_cap_and_each_at_its_deadline():
    p = Pending(cap=2, timeout=5.0)
    assert p.wait(0.0) is None
    assert p.add("a", 0.0) == [] and p.add("b", 1.0) == []
    assert p.add("c", 2.0) == ["a"]  # the oldest makes way
    assert "a" not in p and len(p) == 2
    assert p.wait(3.0) == 3.0  # b's deadline is 6
    assert p.expired(5.9) == []
    assert p.expired(6.0) == ["b"] and p.remove("c") and not p.remove("c")
    assert len(p) == 0 and p.wait(7.0) is None


@pytest.mark.parametrize("kw", [{"handshake_timeout": 0}, {"max_handshakes": 0},
                                {"max_connections": 0},
                                {"max_handshakes": 9, "max_connections": 8}])
def test_limits_out_of_range_are_refused(kw):
    with pytest.raises(ValueError):
        Limits(**kw)
    with pytest.raises(ValueError):
        ControllerConfig(**kw)


def test_the_limits_travel_with_the_configuration():
    cfg = ControllerConfig(handshake_timeout=2.5, max_handshakes=3, max_connections=7)
    assert ControllerConfig.from_json(cfg.to_json()) == cfg
    ap = argparse.ArgumentParser()
    add_arguments(ap)
    assert config_from(ap.parse_args(cfg.to_args())).limits == Limits(2.5, 3, 7)


def test_the_open_file_limit_is_raised_to_fit_the_cap():
    """In a child process (the limit is the process's): a soft limit of 300 is raised to
    fit 1024 connections and 256 other files, within the hard limit."""
    code = ("import resource; from controller.listener import Limits, raise_fd_limit\n"
            "hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]\n"
            "resource.setrlimit(resource.RLIMIT_NOFILE, (300, hard))\n"
            "print(raise_fd_limit(Limits(max_connections=1024)),"
            " resource.getrlimit(resource.RLIMIT_NOFILE)[0], min(hard, 1280))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == out[1] == out[2], out


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunPki]:
    folder = tmp_path_factory.mktemp("ovs")
    saved = run_records.OVS_RUNDIR
    run_records.OVS_RUNDIR = folder  # (the run's sockets folder, in a folder of the test's)
    try:
        yield make_pki(f"unit-{os.getpid()}")
    finally:
        run_records.OVS_RUNDIR = saved


class Switches:
    """The connections the listener handed on (held open until `release`)."""

    def __init__(self) -> None:
        self.got: list[Any] = []
        self.done = threading.Event()
        self.cond = threading.Condition()

    def __call__(self, sock: Any, address: Any) -> None:
        with self.cond:
            self.got.append((sock, address))
            self.cond.notify_all()
        self.done.wait()

    def wait_for(self, n: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.got) >= n, WAIT_S), self.got


def _serve(limits: Limits, handle: Any, ctx: ssl.SSLContext | None = None,
           admits: Any = lambda a: True, server: Any = None) -> tuple[Listener, int]:
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    if server is not None:
        server.real = sock
    lst = Listener(server or sock, handle, limits, ctx, admits)
    threading.Thread(target=lst.serve_forever, daemon=True).start()
    return lst, port


def _client_ctx(pki: RunPki) -> ssl.SSLContext:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # as Open vSwitch: its certificate shown
    ctx.check_hostname = False
    ctx.load_cert_chain(pki.cert("switch"), pki.key("switch"))
    ctx.load_verify_locations(pki.ca)
    return ctx


def _closed(sock: socket.socket) -> bool:
    """The peer closed `sock` (readable, and nothing but the end to read)."""
    if not select.select([sock], [], [], 0)[0]:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK) == b""
    except ConnectionResetError:
        return True


def _until(cond: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not cond():
        assert time.monotonic() < deadline, what
        time.sleep(0.01)


def _stats() -> dict[str, int]:
    return dict(lmod.STATS)


def _grown(before: dict[str, int]) -> dict[str, int]:
    return {k: v - before.get(k, 0) for k, v in lmod.STATS.items() if v != before.get(k, 0)}


def test_idle_connections_keep_no_switch_out_and_time_out(pki: RunPki):
    """6 connections that never begin a handshake, with room for 4 handshakes: the 2
    oldest are closed at once; a switch's TLS connection makes way for itself (the oldest
    idle one goes) and is handed on; the 3 idle ones left are closed at their timeout,
    not before."""
    timeout = 3.0
    before = _stats()
    switches = Switches()
    lst, port = _serve(Limits(timeout, 4, 16), switches,
                       tls_context(pki.key("controller"), pki.cert("controller"), pki.ca))
    try:
        opened = time.monotonic()
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(6)]
        _until(lambda: _closed(idle[0]) and _closed(idle[1]), "the 2 oldest not closed")
        with socket.create_connection(("127.0.0.1", port)) as raw, \
                _client_ctx(pki).wrap_socket(raw) as tls:
            switches.wait_for(1)  # while the idle ones were held: it made the oldest go
            assert _closed(idle[2]) and not any(_closed(s) for s in idle[3:])
            _until(lambda: all(_closed(s) for s in idle), "idle connections not dropped")
            assert time.monotonic() - opened >= timeout  # (its clock starts after that)
            assert tls.version() in ("TLSv1.2", "TLSv1.3")
            assert _grown(before) == {"handshake_evicted": 3, "handshake_timeout": 3,
                                      "connections": 1}
        for s in idle:
            s.close()
    finally:
        switches.done.set()
        lst.close()


def test_a_peer_without_the_runs_certificate_is_dropped(pki: RunPki, tmp_path: Path):
    switches = Switches()
    before = _stats()
    lst, port = _serve(Limits(5.0, 4, 16), switches,
                       tls_context(pki.key("controller"), pki.cert("controller"), pki.ca))
    try:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # no certificate of its own
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        with socket.create_connection(("127.0.0.1", port)) as raw:
            try:
                with ctx.wrap_socket(raw) as tls:
                    got = tls.recv(1)  # (TLS 1.3: refused after the client's Finished)
            except (ssl.SSLError, OSError):
                got = b""
        assert got == b""
        _until(lambda: lmod.STATS["handshake_failed"] > before.get("handshake_failed", 0),
               "the failed handshake not counted")
        assert switches.got == []
    finally:
        switches.done.set()
        lst.close()


def test_connections_beyond_the_cap_are_closed_at_once():
    switches = Switches()
    before = _stats()
    lst, port = _serve(Limits(5.0, 2, 3), switches)  # plain TCP: handed on at once
    try:
        held = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
        switches.wait_for(3)
        with socket.create_connection(("127.0.0.1", port)) as extra:
            _until(lambda: _closed(extra), "the 4th connection was not closed")
        assert len(switches.got) == 3 and _grown(before)["over_cap"] == 1
        switches.done.set()  # every handler returns, and frees its place
        _until(lambda: lst.live == 0, "places not freed")
        with socket.create_connection(("127.0.0.1", port)):
            switches.wait_for(4)
        for s in held:
            s.close()
    finally:
        switches.done.set()
        lst.close()


class FailingAccept:
    """A listening socket whose accept() fails `fails` times first (EMFILE: no file
    descriptor left), as a process out of them sees it."""

    def __init__(self, fails: int) -> None:
        self.fails = fails
        self.real: socket.socket | None = None

    def accept(self) -> tuple[socket.socket, Any]:
        assert self.real is not None
        if self.fails:
            self.fails -= 1
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
        return self.real.accept()

    def shutdown(self, how: int) -> None:
        assert self.real is not None
        self.real.shutdown(how)

    def close(self) -> None:
        assert self.real is not None
        self.real.close()


def test_the_accept_loop_survives_errors_and_a_failing_handler():
    calls: list[Any] = []

    def handle(sock: Any, address: Any) -> None:
        calls.append(address)
        raise RuntimeError("a malformed switch")  # os-ken's factory re-raises

    before = _stats()
    server = FailingAccept(fails=2)
    lst, port = _serve(Limits(5.0, 2, 4), handle, server=server)
    try:
        for n in (1, 2):
            with socket.create_connection(("127.0.0.1", port)):
                _until(lambda n=n: len(calls) == n, "the loop stopped accepting")
        _until(lambda: lst.live == 0, "a failed handler kept its place")
        assert _grown(before)["accept_errors"] == 2 and server.fails == 0
    finally:
        lst.close()


def test_an_address_not_admitted_is_closed_before_any_tls(pki: RunPki):
    switches = Switches()
    before = _stats()
    lst, port = _serve(Limits(5.0, 2, 4), switches,
                       tls_context(pki.key("controller"), pki.cert("controller"), pki.ca),
                       admits=lambda address: address[0] != "127.0.0.1")
    try:
        with socket.create_connection(("127.0.0.1", port)) as s:
            _until(lambda: _closed(s), "not closed")
        assert _grown(before) == {"refused_address": 1} and lst.live == 0
    finally:
        switches.done.set()
        lst.close()
