"""Proactive unicast forwarding entries, computed from a topology (pure, no OpenFlow).

Forwarding is destination-based along the topology's routing rule: one entry per
(switch, destination host) for IPv4, one for ARP (matched on the target address, so an
ARP request goes straight to its target and never floods around a mesh or torus), and one
on the destination MAC for any other Ethernet traffic.
"""

from __future__ import annotations

from dataclasses import dataclass

from topologies import Topology

PRIO_UNICAST = 100
PRIO_L2 = 50

ETH_TYPE_IPV4 = 0x0800
ETH_TYPE_ARP = 0x0806


@dataclass(frozen=True)
class FlowEntry:
    """A match (OpenFlow 1.3 OXM fields as keyword arguments) and one output port."""

    priority: int
    match: tuple[tuple[str, object], ...]
    out_port: int

    def match_dict(self) -> dict[str, object]:
        return dict(self.match)


def unicast_entries(topo: Topology, arp: bool = True) -> dict[int, list[FlowEntry]]:
    """dpid -> the unicast flow entries that switch needs. Without `arp` the ARP entries are
    left out (a controller that learns hosts from ARP wants to see all of it)."""
    by_name = {sw.name: sw.dpid for sw in topo.switches}
    hosts = {h.name: h for h in topo.hosts}
    table: dict[int, list[FlowEntry]] = {}
    for sw_name, hops in topo.next_hops().items():
        entries: list[FlowEntry] = []
        for dst_name, port in sorted(hops.items()):
            dst = hosts[dst_name]
            entries.append(
                FlowEntry(PRIO_UNICAST, (("eth_type", ETH_TYPE_IPV4), ("ipv4_dst", dst.ip)), port))
            if arp:
                entries.append(FlowEntry(PRIO_UNICAST, (("eth_type", ETH_TYPE_ARP),
                                                        ("arp_tpa", dst.ip)), port))
            entries.append(FlowEntry(PRIO_L2, (("eth_dst", dst.mac),), port))
        table[by_name[sw_name]] = entries
    return table
