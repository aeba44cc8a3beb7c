"""Multicast endpoints run inside emulated hosts with real sockets: a receiver that joins a
group and counts datagrams, and a sender."""

from __future__ import annotations

import contextlib
import itertools
import json
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from controller import igmp
from testbed.emulation.controller_proc import api_get, group_members
from testbed.hostprogs import command
from testbed.hostprogs.mcast_sniff import QUIET_S

_READY = itertools.count()


def ready_file(tmpdir: Path, *parts: object) -> Path:
    """A file a host program creates once it listens: a new name for every program, so that
    a second program on the same host never finds the first one's file and seems ready."""
    return tmpdir / "-".join(map(str, ("ready", *parts, next(_READY))))


RECEIVER = r"""
import json, os, select, socket, struct, sys, time
group, port, ip, seconds, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
    float(sys.argv[4]), sys.argv[5]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", port))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP,
             struct.pack("4s4s", socket.inet_aton(group), socket.inet_aton(ip)))
open(ready, "w").close()
got, first, quiet_from = [], None, None
limit, watched = time.time() + seconds, [s, sys.stdin]
while True:  # SECONDS at most; told to stop: until QUIET s pass without a datagram
    end = limit if quiet_from is None else min(limit, quiet_from + QUIET)
    if time.time() >= end:
        break
    readable = select.select(watched, [], [], max(0.0, min(0.2, end - time.time())))[0]
    if sys.stdin in readable:
        os.read(sys.stdin.fileno(), 4096)
        watched.remove(sys.stdin)
        quiet_from = time.time()
    if s in readable:
        got.append(s.recv(65535).decode(errors="replace"))
        first = first or time.time()
        quiet_from = quiet_from and time.time()
print(json.dumps({"count": len(got), "payloads": got, "first": first}))
""".replace("QUIET", repr(QUIET_S))

class Receiver:
    """A process on `host` counting what arrives for SECONDS at most; `result()` tells it to
    stop (it counts on until QUIET_S pass without a datagram: what is still on the way is
    counted) and reads what it got."""

    def __init__(self, host: Any, group: str, seconds: float, tmpdir: Any, port: int = 5000):
        self.ready = ready_file(tmpdir, host.name, group, port)
        self.proc = host.popen([sys.executable, "-c", RECEIVER, group, str(port), host.IP(),
                                str(seconds), str(self.ready)], stdin=subprocess.PIPE,
                               text=True)
        self.host = host

    def wait_ready(self, timeout: float = 10.0) -> None:
        deadline = time.time() + timeout
        while not self.ready.exists():
            assert self.proc.poll() is None, self.proc.communicate()
            assert time.time() < deadline, f"receiver on {self.host.name} did not start"
            time.sleep(0.05)

    def stop(self) -> None:
        """Say stop (a receiver run for its full SECONDS has no input: see IgmpSniffer)."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.write("stop\n")
                self.proc.stdin.flush()

    def result(self) -> dict[str, Any]:
        self.stop()
        out, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return json.loads(out)


def results(receivers: Iterable[Receiver]) -> list[dict[str, Any]]:
    """Every receiver's result, told to stop all at once (their quiet times overlap)."""
    receivers = list(receivers)
    for r in receivers:
        r.stop()
    return [r.result() for r in receivers]


def send(host: Any, group: str, count: int = 5, gap: float = 0.02, port: int = 5000) -> None:
    # payload "<sender ip> <i>", as the receivers' payload checks expect
    out = host.popen(command("group_send", group, port, host.IP(), count, gap, host.IP()),
                     text=True)
    _o, err = out.communicate(timeout=60)
    assert out.returncode == 0, err


class Sniffer(Receiver):
    """Counts the group's datagrams arriving on the host's interface, joined or not; told
    to stop, it counts on until `at_least` have come (mcast_sniff --at-least)."""

    def __init__(self, host: Any, group: str, seconds: float, tmpdir: Any, at_least: int = 0):
        self.ready = ready_file(tmpdir, "sniff", host.name, group)
        self.proc = host.popen(command("mcast_sniff", f"{host.name}-eth0", f"{group}/32",
                                       seconds, self.ready, "--until-stop",
                                       f"--at-least={at_least}"),
                               stdin=subprocess.PIPE, text=True)
        self.host = host


DUE_S = 10.0  # how much longer than `seconds` a sniffer waits for datagrams due to it


def wire_counts(emu: Any, sender: str, group: str, tmpdir: Any, count: int = 5,
                settle: float | None = None, seconds: float = 2.5,
                also: Iterable[Receiver] = (), due: Iterable[str] = ()) -> dict[str, int]:
    """`sender` sends `count` datagrams to `group`; returns how many arrived on the wire
    at every host (the sender included). At the hosts in `due` all `count` are due: their
    sniffers count until they have them (DUE_S longer at most), so that a datagram a busy
    controller forwards late (the first of a new flow, at a switch its entries have not
    reached yet) is counted, not lost to the quiet time. Receivers in `also` are told to
    stop with the sniffers (their quiet times overlap; read them with `results` after).
    The send waits `settle` seconds after the sniffers are ready; by default (None) until
    the switches have confirmed every change the controller sent them (`confirmed`), not a
    fixed time (0.3 s, as it was: 4 s of make test over its callers)."""
    wanted = set(due)
    sn = {h.name: (Sniffer(h, group, seconds + DUE_S, tmpdir, count) if h.name in wanted
                   else Sniffer(h, group, seconds, tmpdir)) for h in emu.hosts}
    for s in sn.values():
        s.wait_ready()
    if settle is None:
        confirmed(emu)
    else:
        time.sleep(settle)
    send(emu.host(sender), group, count)
    for r in also:
        r.stop()
    return {h: got["count"] for h, got in zip(sn, results(sn.values()), strict=True)}


def wire_counts_together(emu: Any, sends: list[tuple[str, str]], tmp_path: Any,
                         count: int = 5) -> list[dict[str, int]]:
    """`wire_counts` of several (sender, group) pairs at the same time, one group each (its
    sniffers count that group only): what arrived at every host, per pair, in their order.
    For one switch: on a fat tree, two new flows set up at once once cost a downstream host
    two of its five datagrams (test_contiguous), so tests there count one at a time."""
    from concurrent.futures import ThreadPoolExecutor

    assert len({g for _s, g in sends}) == len(sends), "one pair per group"
    with ThreadPoolExecutor(len(sends)) as pool:
        return list(pool.map(lambda sg: wire_counts(emu, sg[0], sg[1], tmp_path, count),
                             sends))


def send_igmp(host: Any, *messages: igmp.IgmpMessage) -> None:
    """`host` sends IGMP messages (controller.igmp builds them: from its MAC and address, to
    where each goes, TTL 1 and the router alert option)."""
    send_frames(host, *(igmp.frame(m, host.MAC()) for m in messages))


def v3_report(host: Any, *records: tuple[str, str, tuple[str, ...]]) -> None:
    """`host` sends one IGMPv3 report: records (type, group, sources), type by its
    controller.source_filter.RECORDS name."""
    recs = tuple(igmp.GroupRecord(t, g, frozenset(s)) for t, g, s in records)
    send_igmp(host, igmp.IgmpMessage(3, "report", src_ip=host.IP(), records=recs))


class FilteredMember(Receiver):
    """A kernel socket that asks for `group` from `sources` only (mode "include", the
    IP_ADD_SOURCE_MEMBERSHIP of SSM) or from all but `sources` (mode "exclude",
    IP_ADD_MEMBERSHIP then IP_BLOCK_SOURCE): the host's own IGMPv3 reports say so."""

    def __init__(self, host: Any, group: str, mode: str, sources: list[str], tmpdir: Any):
        self.ready = ready_file(tmpdir, "filter", host.name, group)
        self.proc = host.popen(command("source_member", group, host.IP(), mode, self.ready,
                                       *sources), text=True)
        self.host = host


IGMP_SNIFF = r"""
import json, socket, sys, time
iface, seconds, ready = sys.argv[1], float(sys.argv[2]), sys.argv[3]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((iface, 0))
open(ready, "w").close()
s.settimeout(0.2)
seen, end = [], time.monotonic() + seconds
while time.monotonic() < end:
    try:
        data, addr = s.recvfrom(65535)
    except TimeoutError:
        continue
    ihl = (data[14] & 0x0F) * 4
    if addr[2] != 4 and data[23] == 2:  # not outgoing; IGMP
        seen.append([data[14 + ihl], socket.inet_ntoa(data[26:30])])
print(json.dumps({"frames": seen}))
"""


class IgmpSniffer(Receiver):
    """The IGMP frames arriving on a host's interface: [type, source address] each."""

    def __init__(self, host: Any, seconds: float, tmpdir: Any):
        self.ready = ready_file(tmpdir, "igmp", host.name)
        self.proc = host.popen([sys.executable, "-c", IGMP_SNIFF, f"{host.name}-eth0",
                                str(seconds), str(self.ready)], text=True)
        self.host = host

    def frames(self) -> list[tuple[int, str]]:
        return [(t, src) for t, src in self.result()["frames"]]


SEND_FRAMES = r"""
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
for f in sys.argv[2:]:
    s.send(bytes.fromhex(f))
"""


def send_frames(host: Any, *frames: bytes) -> None:
    """`host` sends these Ethernet frames as they are, from its interface."""
    out = host.popen([sys.executable, "-c", SEND_FRAMES, f"{host.name}-eth0",
                      *(f.hex() for f in frames)], text=True)
    _o, err = out.communicate(timeout=60)
    assert out.returncode == 0, err


class SourceSniffer(Receiver):
    """UDP datagrams to groups in `prefix` arriving on a host's wire, per (source, group)."""

    def __init__(self, host: Any, prefix: str, seconds: float, tmpdir: Any):
        self.ready = ready_file(tmpdir, "udp", host.name, prefix.replace('/', '_'))
        self.proc = host.popen(command("mcast_sniff", f"{host.name}-eth0", prefix, seconds,
                                       self.ready, "--until-stop"),
                               stdin=subprocess.PIPE, text=True)
        self.host = host

    def counts(self) -> dict[tuple[str, str], int]:
        return {tuple(k.split()): v for k, v in self.result()["by"].items()}  # type: ignore[misc]


def until(done: Any, deadline: float) -> None:
    """Poll `done()` until it holds or the deadline (time.monotonic) passes: a wait for an
    awaited state with an upper bound; the caller's assertions then say whether it held."""
    while not done() and time.monotonic() < deadline:
        time.sleep(0.05)


def confirmed(emu: Any, within: float = 10.0) -> None:
    """Until every switch has confirmed the changes the controller sent it (its barrier
    replies: /state's `unconfirmed`), so that what is sent next meets the forwarding the
    controller has decided on (a member it lists gone is off the tree), at most `within`
    seconds; at once without a controller."""
    if emu.controller is not None:
        api = emu.controller.api
        until(lambda: not api_get(api, "/state")["unconfirmed"], time.monotonic() + within)


def members(api: Path, group: str) -> set[str]:
    """The group's members at the controller (those in their last-member time too)."""
    return set(group_members(api, group))


def members_for(n: int) -> list[str]:
    """Three members spread over the network, never h0 (the sender)."""
    return sorted({f"h{i}" for i in (1, n // 2, n - 1)})


def deliver_to_exactly_the_members(emu: Any, tmp_path: Any) -> None:
    """Members spread over the network (sockets joined) get h0's datagrams, and only they:
    on their wire and in their sockets; the controller's tree for h0 reaches them."""
    joined = members_for(len(emu.topo.hosts))
    group = "239.1.2.3"
    rx = {m: Receiver(emu.host(m), group, 4.0, tmp_path) for m in joined}
    for r in rx.values():
        r.wait_ready()
    # h0 sends once the controller has every join (its first datagram asks for the tree),
    # not a settling time after the sockets joined
    until(lambda: members(emu.controller.api, group) == set(joined), time.monotonic() + 10)
    wire = wire_counts(emu, "h0", group, tmp_path, settle=0, also=rx.values())
    got = {m: r["count"] for m, r in zip(rx, results(rx.values()), strict=True)}
    state = api_get(emu.controller.api, "/groups")
    assert got == {m: 5 for m in joined}
    assert wire == {h.name: (5 if h.name in joined else 0) for h in emu.topo.hosts}, wire
    src = state[group]["sources"]["h0"]
    assert src["kind"] == "tree" and src["receivers"] == joined
