"""Helpers the integration tests share: all-pairs ping and a TCP transfer, run in hosts; the
TCP segments of a capture."""

from __future__ import annotations

import ipaddress
import json
import struct
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from testbed.emulation.controller_proc import tcp_listening


def all_pairs_ping(emu: Any, count: int = 1) -> dict[tuple[str, str], bool]:
    """Every host pings every other host (each source in parallel); (src, dst) -> reached."""
    hosts = emu.hosts
    procs = {}
    for src in hosts:
        script = "".join(
            f"(ping -c{count} -W2 -q {dst.IP()} >/dev/null 2>&1 && echo ok {dst.name} "
            f"|| echo fail {dst.name}) &\n" for dst in hosts if dst is not src) + "wait\n"
        procs[src.name] = src.popen(["sh", "-c", script], text=True)
    result = {}
    for src_name, proc in procs.items():
        out, _ = proc.communicate(timeout=60)
        for line in out.split("\n"):
            if line.strip():
                status, dst = line.split()
                result[(src_name, dst)] = status == "ok"
    return result


IPERF_PORT = 5201  # iperf3's default


def tcp_transfer(emu: Any, src: str, dst: str, nbytes: int = 4_000_000) -> dict[str, Any]:
    """iperf3 from src to dst moving nbytes; returns the sender's and receiver's summaries."""
    server, client = emu.host(dst), emu.host(src)
    srv = server.popen(["iperf3", "-s", "-1", "-B", server.IP()], text=True)
    wait_listening(server, IPERF_PORT, srv)
    out = client.cmd(f"iperf3 -c {server.IP()} -n {nbytes} -J")
    srv.communicate(timeout=30)
    end = json.loads(out)["end"]
    return {"sent": end["sum_sent"], "received": end["sum_received"]}


def wait_listening(host: Any, port: int, proc: Any, timeout: float = 10.0) -> None:
    """Wait until a TCP socket listens on `port` in `host` (a server `proc` started), instead
    of a fixed time; fail if `proc` ends first or the timeout passes."""
    deadline = time.monotonic() + timeout
    while not tcp_listening(port, None, host.pid):  # the host's /proc/PID/net/tcp{,6}
        assert proc.poll() is None, f"the server on {host.name} ended"
        assert time.monotonic() < deadline, f"nothing listens on {host.name}:{port}"
        time.sleep(0.05)


def tcp_segments(pcap: Path) -> Iterator[tuple[str, bytes]]:
    """(destination address, payload) of every IPv4 TCP segment of a tcpdump capture on an
    Ethernet interface, in capture order (scapy would cost 1.7 s to import)."""
    data = pcap.read_bytes()
    order = {b"\xd4\xc3\xb2\xa1": "<", b"\x4d\x3c\xb2\xa1": "<",
             b"\xa1\xb2\xc3\xd4": ">", b"\xa1\xb2\x3c\x4d": ">"}[data[:4]]
    assert struct.unpack(order + "I", data[20:24])[0] == 1, "not an Ethernet capture"
    at = 24
    while at + 16 <= len(data):
        length = struct.unpack(order + "I", data[at + 8:at + 12])[0]
        frame, at = data[at + 16:at + 16 + length], at + 16 + length
        ip = frame[14:]
        if frame[12:14] != b"\x08\x00" or ip[9] != 6:
            continue
        ihl, total = (ip[0] & 0xF) * 4, struct.unpack(">H", ip[2:4])[0]
        offset = ihl + (ip[ihl + 12] >> 4) * 4
        yield str(ipaddress.IPv4Address(ip[16:20])), ip[offset:total]
