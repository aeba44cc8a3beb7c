"""The controller answers its own run only (issue 36): on one server its OpenFlow and JSON
endpoints are Unix sockets only root reaches, and a second connection claiming a connected
switch's dpid is refused, so the real switch stays connected and programmed."""

from __future__ import annotations

import socket
import struct
import subprocess
import time

from testbed.emulation.controller_proc import api_get
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .mcast import Receiver, results, wire_counts

OFP13 = 4
HELLO, FEATURES_REQUEST, FEATURES_REPLY = 0, 5, 6
NOBODY = 65534

AS_NOBODY = ("import socket, sys\ns = socket.socket(socket.AF_UNIX)\ntry:\n"
             "    s.connect(sys.argv[1]); print('connected')\n"
             "except OSError as e:\n    print(type(e).__name__)\n")


def nobody_connects(path: str) -> str:
    out = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                          "--clear-groups", "/usr/bin/python3", "-c", AS_NOBODY, path],
                         capture_output=True, text=True, timeout=30)
    return out.stdout.strip() or out.stderr.strip()


def messages(sock: socket.socket, deadline: float) -> list[tuple[int, int]]:
    """OpenFlow messages (type, xid) read until one is a features request, or the
    connection closes ([] then), or the deadline."""
    got, data = [], b""
    while time.monotonic() < deadline:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        chunk = sock.recv(4096)
        if not chunk:
            return []
        data += chunk
        while len(data) >= 8:
            _, kind, length, xid = struct.unpack("!BBHI", data[:8])
            got.append((kind, xid))
            data = data[length:]
        if any(k == FEATURES_REQUEST for k, _ in got):
            return got
    return got


def closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        pass
    return True


def test_a_second_connection_for_a_live_dpid_is_refused(caps, clean_after, tmp_path):
    with Emulation(parse_spec("tree:leaves=2,hosts_per_leaf=2"), caps=caps) as emu:
        ofp, api = emu.controller.config.listen, str(emu.controller.api)
        assert nobody_connects(ofp) == "PermissionError"
        assert nobody_connects(api) == "PermissionError"

        s1 = emu.topo.switches[0]
        with socket.socket(socket.AF_UNIX) as fake:  # root, claiming to be s1
            fake.connect(ofp)
            fake.sendall(struct.pack("!BBHI", OFP13, HELLO, 8, 1))
            got = messages(fake, time.monotonic() + 10)
            xid = next(x for k, x in got if k == FEATURES_REQUEST)
            fake.sendall(struct.pack("!BBHIQIBB2xII", OFP13, FEATURES_REPLY, 32, xid,
                                     s1.dpid, 256, 254, 0, 0x4F, 0))
            assert closed_within(fake, 10), "the controller kept the second s1"
        state = api_get(emu.controller.api, "/state")
        assert state["counters"].get("duplicate_switch") == 1
        info = state["switches"][str(s1.dpid)]
        assert info["connected"] and info["ready"] and info["connects"] == 1, info

        # the real s1 is still programmed: a join made now is delivered through it
        rx = [Receiver(emu.host(h), "239.6.6.7", 4.0, tmp_path) for h in (1, 2, 3)]
        for r in rx:
            r.wait_ready()
        wire = wire_counts(emu, "h0", "239.6.6.7", tmp_path, count=5)
        got = results(rx)
    assert wire == {"h0": 0, "h1": 5, "h2": 5, "h3": 5}, wire
    assert [r["count"] for r in got] == [5, 5, 5], got
