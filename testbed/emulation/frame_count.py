"""Frames on the wire during marked stretches of an MPI job, from the switches' port counters.

The job (collectives.programs.bcast_bench --mark-dir) writes a mark file and waits; a thread here
reads the controller's live port counters, records them under the mark's name and answers
with <name>.ok. Frames "sent" are packets the switches received on host ports (what hosts
put on their links: Chen2000 counts these), frames "delivered" are packets the switches sent
out of host ports.

Frames that carry data apart from TCP's pure acknowledgements: at every mark the counter
also reads, in each host's network namespace (/proc/<pid>/net/netstat of a process there),
the pure ACKs TCP received, TcpExt TCPPureAcks (slow path) + TCPHPAcks (fast path): every
pure ACK one rank's host sends to another is received by it, so over the job's hosts their
sum is the pure ACKs the hosts put on the switch, and frames sent less that sum are the
frames with data (TCP segments with payload, datagrams). Chen2000's formulas count these."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .controller_proc import api_get
from .periodic import Periodic
from .tcp_stats import field

PURE_ACKS = (("TcpExt:", "TCPPureAcks"), ("TcpExt:", "TCPHPAcks"))


def pure_acks(pids: Iterable[int]) -> int:
    """Pure ACKs TCP received in the network namespaces of these processes (one a host)."""
    total = 0
    for pid in pids:
        try:
            text = Path(f"/proc/{pid}/net/netstat").read_text()
        except OSError:
            continue
        total += sum(field(text, prefix, name) for prefix, name in PURE_ACKS)
    return total


class FrameCounter:
    def __init__(self, emu: Any, pids: Iterable[int] = ()):
        """`pids`: a process in each host whose pure ACKs are counted (the job's hosts)."""
        self.emu = emu
        self.pids = tuple(pids)
        self.dir = Path(emu.run_dir) / f"marks-{uuid.uuid4().hex[:8]}"
        self.counts: dict[str, tuple[int, int, int]] = {}
        self.links: dict[str, dict[tuple[str, str], int]] = {}
        self._poll = Periodic(self._answer_marks, 0.002)

    def __enter__(self) -> FrameCounter:
        self.dir.mkdir(parents=True)
        self._poll.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._poll.stop(10)

    def _read(self) -> tuple[tuple[int, int, int], dict[tuple[str, str], int]]:
        """(frames sent, frames delivered on host ports, pure ACKs received by the hosts),
        and bytes per directed link: a switch's tx on a port is its link towards the
        neighbour; a host's link towards its switch is the switch port's rx."""
        ports = api_get(self.emu.controller.api_port, "/ports")
        sent = delivered = 0
        links: dict[tuple[str, str], int] = {}
        for switch, per_port in ports.items():
            for c in per_port.values():
                nb = c["neighbour"]
                links[(switch, nb)] = c["tx_bytes"]
                if self.emu.topo.is_host(nb):
                    sent += c["rx_packets"]
                    delivered += c["tx_packets"]
                    links[(nb, switch)] = c["rx_bytes"]
        return (sent, delivered, pure_acks(self.pids)), links

    def _answer_marks(self) -> None:
        for mark in self.dir.iterdir():
            name = mark.name
            if name.endswith(".ok") or name in self.counts:
                continue
            self.counts[name], self.links[name] = self._read()
            (self.dir / f"{name}.ok").write_text("")

    def link_bytes(self, iters: int) -> dict[tuple[str, str], float] | None:
        """Bytes per broadcast on every directed link, less the empty bracket's, or None if
        a mark is missing."""
        need = ("bcast-start", "bcast-end", "empty-start", "empty-end")
        if iters < 1 or any(n not in self.links for n in need):
            return None
        lk = self.links
        return {key: ((lk["bcast-end"][key] - lk["bcast-start"][key])
                      - (lk["empty-end"][key] - lk["empty-start"][key])) / iters
                for key in lk["bcast-start"]}

    def per_iteration(self, iters: int) -> dict[str, float | None] | None:
        """Frames sent and delivered per broadcast, less the bracket's own (the barriers
        around it), or None if a mark is missing; of those sent, TCP's pure ACKs (`acks`)
        and the rest, frames that carry data (`data`): None without `pids`."""
        need = ("bcast-start", "bcast-end", "empty-start", "empty-end")
        if iters < 1 or any(n not in self.counts for n in need):
            return None
        c = self.counts
        out: dict[str, float | None] = {}
        for i, key in enumerate(("sent", "delivered", "acks")):
            full = c["bcast-end"][i] - c["bcast-start"][i]
            empty = c["empty-end"][i] - c["empty-start"][i]
            out[key] = (full - empty) / iters
        if not self.pids:
            out["acks"] = None
        sent, acks = out["sent"], out["acks"]
        out["data"] = None if sent is None or acks is None else sent - acks
        return out
