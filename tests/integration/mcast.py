"""Multicast endpoints run inside emulated hosts with real sockets: a receiver that joins a
group and counts datagrams, and a sender."""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from testbed.hostprogs import command

RECEIVER = r"""
import json, socket, struct, sys, time
group, port, ip, seconds, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
    float(sys.argv[4]), sys.argv[5]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", port))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton(ip)))
open(ready, "w").close()
s.settimeout(0.2)
got, first = [], None
end = time.time() + seconds
while time.time() < end:
    try:
        data, addr = s.recvfrom(65535)
    except socket.timeout:
        continue
    got.append(data.decode(errors="replace"))
    first = first or time.time()
print(json.dumps({"count": len(got), "payloads": got, "first": first}))
"""

class Receiver:
    def __init__(self, host: Any, group: str, seconds: float, tmpdir: Any, port: int = 5000):
        self.ready = tmpdir / f"ready-{host.name}-{group}-{port}"
        self.proc = host.popen([sys.executable, "-c", RECEIVER, group, str(port), host.IP(),
                                str(seconds), str(self.ready)], text=True)
        self.host = host

    def wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.time() + timeout
        while not self.ready.exists():
            assert self.proc.poll() is None, self.proc.communicate()
            assert time.time() < deadline, f"receiver on {self.host.name} did not start"
            time.sleep(0.05)

    def result(self) -> dict[str, Any]:
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return json.loads(out)


def send(host: Any, group: str, count: int = 5, gap: float = 0.02, port: int = 5000) -> None:
    # payload "<sender ip> <i>", as the receivers' payload checks expect
    out = host.popen(command("group_send", group, port, host.IP(), count, gap, host.IP()),
                     text=True)
    _o, err = out.communicate(timeout=60)
    assert out.returncode == 0, err


def receive_counts(emu: Any, sender: str, group: str, listeners: list[str], tmpdir: Any,
                   count: int = 5, settle: float = 0.5, seconds: float = 3.0) -> dict[str, int]:
    """Every listener runs a receiver of `group` (joining it); `sender` sends `count`
    datagrams after `settle` s; returns datagrams received per listener."""
    rx = {h: Receiver(emu.host(h), group, seconds, tmpdir) for h in listeners}
    for r in rx.values():
        r.wait_ready()
    time.sleep(settle)
    send(emu.host(sender), group, count)
    return {h: r.result()["count"] for h, r in rx.items()}


class Sniffer(Receiver):
    """Counts the group's datagrams arriving on the host's interface, joined or not."""

    def __init__(self, host: Any, group: str, seconds: float, tmpdir: Any):
        self.ready = tmpdir / f"sniff-{host.name}-{group}"
        self.proc = host.popen(command("mcast_sniff", f"{host.name}-eth0", f"{group}/32",
                                       seconds, self.ready), text=True)
        self.host = host


def wire_counts(emu: Any, sender: str, group: str, tmpdir: Any, count: int = 5,
                settle: float = 0.3, seconds: float = 2.5) -> dict[str, int]:
    """`sender` sends `count` datagrams to `group`; returns how many arrived on the wire
    at every host (the sender included)."""
    sn = {h.name: Sniffer(h, group, seconds, tmpdir) for h in emu.hosts}
    for s in sn.values():
        s.wait_ready()
    time.sleep(settle)
    send(emu.host(sender), group, count)
    return {h: s.result()["count"] for h, s in sn.items()}
