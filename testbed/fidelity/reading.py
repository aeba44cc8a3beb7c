"""One reading of a server for the fidelity monitor (testbed.fidelity.flags.Monitor): its
cores' busy time, how long its software switch waited for a core, the bytes the hosts put on
the links of its switches and the frames those switch ends dropped on arrival, and the bytes
and drops of its tunnel ends. Taken where it runs:
on this server directly, on another server of a cluster through its agent
(`python -m testbed.cluster.agent sample`), since /proc and /sys are each server's own."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from collectives.timing import cpu_jiffies

from ..emulation.priority import switch_pid, threads


def switch_sched() -> tuple[int, int] | None:
    """(ns on a core, ns runnable but waiting for one) of every ovs-vswitchd thread, from
    /proc/<pid>/task/*/schedstat: with MPICH ranks polling busily the machine is always
    busy, so its load says little; time the software switch wanted a core and had none is
    what delays the emulated network."""
    pid = switch_pid()
    if pid is None:
        return None
    try:
        run = wait = 0
        for tid in threads(pid):
            fields = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
            run, wait = run + int(fields[0]), wait + int(fields[1])
        return run, wait
    except (OSError, ValueError, IndexError):
        return None


def counter(intf: str, name: str) -> int:
    try:
        return int(Path(f"/sys/class/net/{intf}/statistics/{name}").read_text())
    except (OSError, ValueError):
        return 0


def reading(intfs: list[str], tunnels: list[str]) -> dict[str, Any]:
    """{"t", "cpu": (busy, total) jiffies, "sched": (run, wait) ns of the switch, "rx":
    {switch end of a host link: bytes the host sent}, "dropped": {the same end: frames it
    dropped on arrival}, "tunnels": {end: (bytes sent, frames dropped either way)}}.

    A switch end's rx_dropped counts frames the kernel could not hand to the switch: on an
    AF_XDP port, frames that found the socket's receive ring full because the software
    switch had not emptied it in time (emulated loss is dropped on the host's side, and an
    emulated queue on the egress side, so neither counts here). Measured with a 300 Mbit/s
    UDP stream through two switches on this 2-core VM: 24,572 dropped here, 25,007 lost."""
    return {"t": time.time(), "cpu": cpu_jiffies(), "sched": switch_sched(),
            "rx": {i: counter(i, "rx_bytes") for i in intfs},
            "dropped": {i: counter(i, "rx_dropped") for i in intfs},
            "tunnels": {t: (counter(t, "tx_bytes"),
                            counter(t, "tx_dropped") + counter(t, "rx_dropped"))
                        for t in tunnels}}
