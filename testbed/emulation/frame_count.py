"""Frames on the wire during marked stretches of an MPI job, from the switches' port counters.

The job (collectives.programs.bcast_bench or barrier_bench --mark-dir; the bracket is
collectives.programs.marks') writes a mark file and waits; a thread here reads the
controller's live port counters, records them under the mark's name and answers with
<name>.ok. Each bracket of collectives (marks <bracket>-start and -end) is counted less the
job's empty one. Frames "sent" are packets the switches received on host ports (what hosts
put on their links: Chen2000 counts these), frames "delivered" are packets the switches sent
out of host ports.

Frames that carry data apart from TCP's pure acknowledgements: at every mark the counter
also reads, in each host's network namespace (/proc/<pid>/net/snmp and netstat of a process
there), the segments without data its TCP sent: Tcp OutSegs (every segment sent but
retransmissions: new data, or none) less TcpExt TCPOrigDataSent (those with new data). Over
the job's hosts that is the pure ACKs they put on the switch (and SYN, FIN, RST, which an
established job's bracket hardly has), and frames sent less it are the frames with data (TCP
segments with payload, retransmitted ones too, and datagrams). Chen2000's formulas count
these.

Without a controller (hubs: testbed.emulation.hub) the switch ports' counters are the
kernel's, read from the switch-side interfaces in sysfs, and each hub's medium counts too:
every frame crosses a hub's medium once (`medium`), which is what Chen2000's hub carries.

Not TcpExt TCPPureAcks + TCPHPAcks (what was read before): TCPHPAcks counts every
segment the fast path took that acknowledges new data, one with data too, so where one
message answers another (a barrier's release its arrival) data went down as ACKs: the tree
barrier on 4 hosts sent 6.0 frames a barrier, 6.0 of them "ACKs" (now 0.03; broadcasts,
whose data flows one way on each connection, counted the same both ways)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from collectives.programs.marks import EMPTY

from .controller_proc import api_get
from .hub import medium_intfs
from .periodic import Periodic
from .ports import intf_name
from .tcp_stats import field

SEGMENTS = ("snmp", "Tcp:", "OutSegs")  # sent: new data or none (retransmissions left out)
DATA_SEGMENTS = ("netstat", "TcpExt:", "TCPOrigDataSent")  # sent: new data


def interface_counters(intf: str) -> dict[str, int]:
    """The kernel's rx/tx packet and byte counters of an interface of this namespace."""
    base = Path("/sys/class/net") / intf / "statistics"
    return {k: int((base / k).read_text()) for k in ("rx_packets", "tx_packets", "rx_bytes",
                                                     "tx_bytes")}


def pure_acks(pids: Iterable[int]) -> int:
    """Segments without data (pure ACKs) TCP sent in the network namespaces of these
    processes (one a host): OutSegs less TCPOrigDataSent."""
    total = 0
    for pid in pids:
        try:
            texts = {f: Path(f"/proc/{pid}/net/{f}").read_text() for f in ("snmp", "netstat")}
        except OSError:
            continue
        total += (field(texts[SEGMENTS[0]], *SEGMENTS[1:])
                  - field(texts[DATA_SEGMENTS[0]], *DATA_SEGMENTS[1:]))
    return total


class FrameCounter:
    def __init__(self, emu: Any, pids: Iterable[int] = ()):
        """`pids`: a process in each host whose pure ACKs are counted (the job's hosts)."""
        self.emu = emu
        self.pids = tuple(pids)
        self.dir = Path(emu.run_dir) / f"marks-{uuid.uuid4().hex[:8]}"
        self.counts: dict[str, tuple[int, int, int, int]] = {}
        self.links: dict[str, dict[tuple[str, str], int]] = {}
        self._poll = Periodic(self._answer_marks, 0.002)

    def __enter__(self) -> FrameCounter:
        self.dir.mkdir(parents=True)
        self._poll.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._poll.stop(10)

    def _ports(self) -> dict[str, dict[str, dict[str, Any]]]:
        """Per switch and port, its counters and neighbour: the controller's, or without
        one the kernel's of the switch-side interfaces."""
        if self.emu.controller is not None:
            return api_get(self.emu.controller.api, "/ports")
        topo, out = self.emu.topo, {}
        for sw in topo.switches:
            out[sw.name] = {str(p): {**interface_counters(intf_name(sw.name, p)),
                                     "neighbour": nb} for p, nb in topo.ports(sw.name).items()}
        return out

    def _medium(self) -> int:
        """Frames that crossed the hubs' media (0 without hubs)."""
        if not getattr(self.emu, "hub", False):
            return 0
        return sum(interface_counters(medium_intfs(sw.name)[2])["tx_packets"]
                   for sw in self.emu.topo.switches)

    def _read(self) -> tuple[tuple[int, int, int, int], dict[tuple[str, str], int]]:
        """(frames sent, frames delivered on host ports, pure ACKs received by the hosts,
        frames across the hubs' media), and bytes per directed link: a switch's tx on a
        port is its link towards the neighbour; a host's link towards its switch is the
        switch port's rx."""
        ports = self._ports()
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
        return (sent, delivered, pure_acks(self.pids), self._medium()), links

    def _answer_marks(self) -> None:
        for mark in self.dir.iterdir():
            name = mark.name
            if name.endswith(".ok") or name in self.counts:
                continue
            self.counts[name], self.links[name] = self._read()
            (self.dir / f"{name}.ok").write_text("")

    @staticmethod
    def _marks(bracket: str) -> tuple[str, str, str, str]:
        return (f"{bracket}-start", f"{bracket}-end", f"{EMPTY}-start", f"{EMPTY}-end")

    def link_bytes(self, iters: int, bracket: str = "bcast"
                   ) -> dict[tuple[str, str], float] | None:
        """Bytes per collective of `bracket` on every directed link, less the empty
        bracket's, or None if a mark is missing."""
        start, end, e0, e1 = need = self._marks(bracket)
        if iters < 1 or any(n not in self.links for n in need):
            return None
        lk = self.links
        return {key: ((lk[end][key] - lk[start][key]) - (lk[e1][key] - lk[e0][key])) / iters
                for key in lk[start]}

    def per_iteration(self, iters: int, bracket: str = "bcast"
                      ) -> dict[str, float | None] | None:
        """Frames sent and delivered per collective of `bracket` (bcast_bench's "bcast"),
        less the bracket's own (the barriers around it), or None if a mark is missing; of
        those sent, TCP's pure ACKs (`acks`) and the rest, frames that carry data (`data`):
        None without `pids`; on hubs the frames across their media (`medium`)."""
        start, end, e0, e1 = need = self._marks(bracket)
        if iters < 1 or any(n not in self.counts for n in need):
            return None
        c = self.counts
        out: dict[str, float | None] = {}
        for i, key in enumerate(("sent", "delivered", "acks", "medium")):
            full = c[end][i] - c[start][i]
            empty = c[e1][i] - c[e0][i]
            out[key] = (full - empty) / iters
        if not self.pids:
            out["acks"] = None
        if not getattr(self.emu, "hub", False):
            del out["medium"]
        sent, acks = out["sent"], out["acks"]
        out["data"] = None if sent is None or acks is None else sent - acks
        return out
