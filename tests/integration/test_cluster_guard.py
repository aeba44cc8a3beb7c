"""The cluster's tunnel guard (testbed.cluster.guard) on the real kernel: two private network
namespaces ("servers" A and B, a veth between them, a VXLAN device on each, the run's guard
applied to both by nft). The kernel's own tunnel datagrams pass (a ping through the tunnel,
answered by B's kernel); root's sockets pass; a socket of a user other than root (nobody,
setpriv) can send neither a VXLAN datagram to a server's UDP 4789, from a server's own
address or to it, nor a frame into a tunnel, nor reach the OpenFlow port: each is dropped
and counted by the guard (the sender sees EPERM, but for a frame into a tunnel), and the
tunnel receives none of it.

Nothing of this machine's own network is touched: the namespaces are anonymous (unshare)
and go with their processes. (The guard in a whole run across two servers:
test_cluster_network.py.)"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator

import pytest

from testbed.cluster.guard import VXLAN_PORT, guard_script
from testbed.emulation.linkshape import nft_table

from .guard_probe import probe

RUN = "guardtest"
ADDR = {"A": "10.77.0.1", "B": "10.77.0.2"}
INNER = {"A": "192.168.77.1", "B": "192.168.77.2"}
VNI, OFP = 4242, 6653
EPERM = ["PermissionError"] * 3  # each of 3 sends dropped on its way out


class Server:
    """A private network namespace, held by a sleeping process."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.proc = subprocess.Popen(["unshare", "-n", "sleep", "600"])
        deadline = time.monotonic() + 10
        while _netns(self.proc.pid) == _netns("self"):  # until unshare has made it
            assert time.monotonic() < deadline, "unshare made no namespace"
            time.sleep(0.01)

    def run(self, *argv: str, input: str | None = None) -> str:
        out = subprocess.run(["nsenter", "-t", str(self.proc.pid), "-n", *argv], input=input,
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, (argv, out.stderr)
        return out.stdout

    def rx(self) -> int:
        info = json.loads(self.run("ip", "-s", "-j", "link", "show", "dev", "vx"))
        return info[0]["stats64"]["rx"]["packets"]

    def dropped(self, match: str) -> int:
        """Packets the guard's output chain dropped for `match`."""
        text = self.run("nft", "list", "chain", "inet", nft_table(RUN), "guard_out")
        hit = re.search(rf"{match} meta skuid != 0 counter packets (\d+)", text)
        assert hit, text
        return int(hit[1])


def _netns(pid: int | str) -> str:
    return subprocess.run(["readlink", f"/proc/{pid}/ns/net"], capture_output=True,
                          text=True).stdout


@pytest.fixture
def servers() -> Iterator[dict[str, Server]]:
    made: dict[str, Server] = {}
    try:
        for name in ADDR:
            made[name] = Server(name)
        a, b = made["A"], made["B"]
        a.run("ip", "link", "add", "va", "type", "veth", "peer", "name", "vb", "netns",
              str(b.proc.pid))
        for s, dev in ((a, "va"), (b, "vb")):
            other = ADDR["B" if s is a else "A"]
            s.run("ip", "-batch", "-", input="\n".join([
                "link set lo up", f"addr add {ADDR[s.name]}/30 dev {dev}", f"link set {dev} up",
                f"link add vx type vxlan id {VNI} local {ADDR[s.name]} remote {other} "
                f"dstport {VXLAN_PORT} nolearning",
                f"addr add {INNER[s.name]}/24 dev vx", "link set vx up"]) + "\n")
            s.run("nft", "-f", "-", input=guard_script(RUN, list(ADDR.values()), "vxlan", OFP,
                                                       controller_here=s is a))
        yield made
    finally:
        for s in made.values():
            s.proc.kill()
            s.proc.wait()


def _send(s: Server, nobody: bool, kind: str, src: str, dst: str, port: int) -> list[str]:
    return s.run(*probe(kind, src, dst, port, VNI, nobody)).split()


def _until_rx(s: Server, want: int) -> int:
    deadline = time.monotonic() + 5
    while (got := s.rx()) < want and time.monotonic() < deadline:
        time.sleep(0.02)
    return got


def test_only_root_and_the_kernel_reach_the_tunnels_and_the_controller(servers):
    a, b = servers["A"], servers["B"]
    # the kernel's tunnel datagrams pass both ways (B's answers are its kernel's, no socket)
    out = a.run("ping", "-c", "3", "-W", "2", INNER["B"])
    assert "3 received" in out, out
    assert a.dropped(f"udp dport {VXLAN_PORT}") == b.dropped(f"udp dport {VXLAN_PORT}") == 0

    rx = b.rx()
    # nobody on A, from A's address (which B's input rule admits), to B's tunnel port
    assert _send(a, True, "udp", ADDR["A"], ADDR["B"], VXLAN_PORT) == EPERM
    assert a.dropped(f"udp dport {VXLAN_PORT}") == 3
    # nobody on B, to its own address (delivered here, never on a wire)
    assert _send(b, True, "udp", ADDR["B"], ADDR["B"], VXLAN_PORT) == EPERM
    assert b.dropped(f"udp dport {VXLAN_PORT}") == 3
    # nobody sends into A's tunnel: the datagram it becomes is nobody's too, and dropped
    # (the device's send fails after nobody's own has succeeded: no EPERM for it)
    assert _send(a, True, "udp", INNER["A"], INNER["B"], 9) == ["sent"] * 3
    assert a.dropped(f"udp dport {VXLAN_PORT}") == 6
    # root's datagrams pass (the control): the tunnel receives these 3 and none before
    assert _send(a, False, "udp", ADDR["A"], ADDR["B"], VXLAN_PORT) == ["sent"] * 3
    assert _until_rx(b, rx + 3) == rx + 3

    # the controller's port (it listens on A): nobody on B or on A is kept off it
    for s in (b, a):
        got = _send(s, True, "tcp", ADDR[s.name], ADDR["A"], OFP)
        assert "sent" not in got and s.dropped(f"tcp dport {OFP}") >= 3, got
    # root reaches it (nothing listens: refused, which means it arrived)
    assert _send(b, False, "tcp", ADDR["B"], ADDR["A"], OFP) == ["ConnectionRefusedError"] * 3

