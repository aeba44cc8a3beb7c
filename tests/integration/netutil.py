"""Helpers the integration tests share: all-pairs ping and a TCP transfer, run in hosts."""

from __future__ import annotations

import json
import time
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


def tcp_transfer(emu: Any, src: str, dst: str, nbytes: int = 4_000_000) -> dict[str, Any]:
    """iperf3 from src to dst moving nbytes; returns the sender's and receiver's summaries."""
    server, client = emu.host(dst), emu.host(src)
    srv = server.popen(["iperf3", "-s", "-1", "-B", server.IP()], text=True)
    time.sleep(0.3)
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
