"""One reading of a server for the fidelity monitor (testbed.fidelity.flags.Monitor): its
cores' busy time, each of its software switch's threads' time on a core and waiting for
one, the bytes the hosts put on the links of its switches and the frames those switch ends
dropped on arrival, and the bytes and drops of its tunnel ends. Taken where it runs:
on this server directly, on another server of a cluster through its agent
(`python -m testbed.cluster.agent sample`), since /proc and /sys are each server's own."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from collectives.timing import cpu_jiffies

from ..emulation.priority import switch_pid, threads


def switch_threads() -> dict[str, Any] | None:
    """{"pid": ovs-vswitchd's pid, "threads": {tid: [ns on a core, ns runnable but waiting
    for one]}} of every thread of the switch, from /proc/<pid>/task/*/schedstat (None where
    no switch runs): with the ranks busy the machine is always busy, so its load says
    little; time the software switch wanted a core and had none, and time its forwarding
    thread had work at all, is what delays the emulated network (switch_load). A thread
    that ends while it is read is left out."""
    pid = switch_pid()
    if pid is None:
        return None
    out: dict[str, list[int]] = {}
    for tid in threads(pid):
        try:
            fields = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
            out[str(tid)] = [int(fields[0]), int(fields[1])]
        except (OSError, ValueError, IndexError):
            continue
    return {"pid": pid, "threads": out} if out else None


def counter(intf: str, name: str) -> int:
    try:
        return int(Path(f"/sys/class/net/{intf}/statistics/{name}").read_text())
    except (OSError, ValueError):
        return 0


def reading(intfs: list[str], tunnels: list[str]) -> dict[str, Any]:
    """{"t", "cpu": (busy, total) jiffies, "switch": the switch's threads (switch_threads),
    "rx": {switch end of a host link: bytes the host sent}, "dropped": {the same end: frames
    it dropped on arrival}, "tunnels": {end: (bytes sent, frames dropped either way)}}.

    A switch end's rx_dropped counts frames the kernel could not hand to the switch: on an
    AF_XDP port, frames that found the socket's receive ring full because the software
    switch had not emptied it in time (emulated loss is dropped on the host's side, and an
    emulated queue on the egress side, so neither counts here). Measured with a 300 Mbit/s
    UDP stream through two switches on this 2-core VM: 24,572 dropped here, 25,007 lost."""
    return {"t": time.time(), "cpu": cpu_jiffies(), "switch": switch_threads(),
            "rx": {i: counter(i, "rx_bytes") for i in intfs},
            "dropped": {i: counter(i, "rx_dropped") for i in intfs},
            "tunnels": {t: (counter(t, "tx_bytes"),
                            counter(t, "tx_dropped") + counter(t, "rx_dropped"))
                        for t in tunnels}}
