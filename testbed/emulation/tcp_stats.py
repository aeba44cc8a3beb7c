"""What TCP did on the emulated hosts during a run: segments retransmitted and
retransmission timeouts (the kernel's per-namespace counters, /proc/<pid>/net/snmp and
netstat, read from the root namespace through a process of each host).

MPI's messages travel over TCP, so under loss of every packet a point-to-point step can
wait out TCP's exponential backoff (200 ms, doubled at each timeout of the same segment,
up to 120 s): these numbers tell such a stall from a slow algorithm."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

COUNTERS = {"retrans_segs": ("snmp", "Tcp:", "RetransSegs"),
            "timeouts": ("netstat", "TcpExt:", "TCPTimeouts")}


def field(text: str, prefix: str, name: str) -> int:
    """A counter from /proc/net/snmp or netstat: a header line and a value line per group."""
    lines = [ln.split() for ln in text.splitlines() if ln.startswith(prefix)]
    for head, values in zip(lines[::2], lines[1::2], strict=False):
        if name in head:
            return int(values[head.index(name)])
    return 0


def counters(pids: Iterable[int]) -> dict[str, int]:
    """COUNTERS summed over the network namespaces of these processes (one per host)."""
    out = dict.fromkeys(COUNTERS, 0)
    for pid in pids:
        for key, (file, prefix, name) in COUNTERS.items():
            try:
                out[key] += field(Path(f"/proc/{pid}/net/{file}").read_text(), prefix, name)
            except (OSError, ValueError):
                continue
    return out


def since(before: dict[str, int], pids: Iterable[int]) -> dict[str, int]:
    """The counters' growth since `before` (from `counters` of the same processes)."""
    now = counters(pids)
    return {k: now[k] - before.get(k, 0) for k in now}
