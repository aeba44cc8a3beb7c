"""A hub as one shared medium (Emulation(hub=True); Chen2000's hub).

On a hub every frame reaches every other port, and all stations share one medium: two
frames never cross it at the same time. A switch that floods multicast does neither (it
learns where unicast goes, and each port carries its own frames side by side). Here each
switch becomes a hub: an OVS bridge without a controller whose flows send every frame that
enters a port into a veth pair looped back into the same bridge (the medium), shaped by one
HTB class at the hub's rate, and send what comes out of the loop to every port but the one
towards the frame's sender (found by its source MAC along the topology's tree):

    host --[its link's rate]--> port --> medium0 ==[one HTB class, the hub's rate]==> medium1
    medium1 --> every port except the one towards the sender --> hosts (unshaped)

A station's own link still sends at its rate (its queue and TCP's backpressure stay in the
host); the hub's side of its ports is not shaped, as the medium already serializes each
frame once. So a frame is serialized twice, on the sender's link and on the medium, as a
switch serializes it on the sender's link and the receiver's. What stays out of reach:
collisions and their backoff (a frame that finds the medium busy waits in the class's
queue, as a station defers), and a hub's cut-through (a real hub repeats bits as they
arrive: one serialization from sender to receivers).
"""

from __future__ import annotations

import networkx as nx

from topologies import LinkParams, Topology

from . import linkshape

MEDIUM_PORTS = (65000, 65001)  # OpenFlow port numbers of the loop's two ends


def medium_intfs(switch: str) -> tuple[str, str]:
    """The two ends of a switch's medium loop (root-namespace veths)."""
    return f"{switch}-hub0", f"{switch}-hub1"


def switch_rate(topo: Topology, switch: str) -> float | None:
    """A loop's rate (a hub's medium, a range lane): the slowest of the switch's links
    (None: all unshaped)."""
    rates = [lk.params.bw_mbit for lk in topo.links
             if switch in (lk.node1, lk.node2) and lk.params.bw_mbit is not None]
    return min(rates) if rates else None


def flows(topo: Topology, switch: str) -> str:
    """`ovs-ofctl add-flows` lines turning one bridge into a hub (OpenFlow 1.3)."""
    m0, m1 = MEDIUM_PORTS
    ports = sorted(topo.ports(switch))
    lines = [f"priority=10,in_port={p},actions=output:{m0}" for p in ports]
    for h in topo.hosts:
        towards = topo.port_to(switch, nx.shortest_path(topo.graph(), switch, h.name)[1])
        out = ",".join(f"output:{p}" for p in ports if p != towards)
        lines.append(f"priority=20,in_port={m1},dl_src={h.mac},actions={out or 'drop'}")
    lines.append(f"priority=10,in_port={m1},actions="
                 + ",".join(f"output:{p}" for p in ports))  # a sender no host has
    return "\n".join(lines) + "\n"


def veth_loop(switch: str, ends: tuple[str, str], ofports: tuple[int, int],
              rate: float | None) -> tuple[list[list[str]], str]:
    """A veth pair looped back into `switch`'s bridge as OpenFlow ports `ofports`, its first
    end shaped by one HTB class at `rate` (the hub's medium): the commands making and
    attaching it, and its `tc -batch` shaping ('' when `rate` is None). Frames queued there
    stay charged to OVS's one AF_PACKET send buffer, so OVS drops beyond about 100 queued
    full frames (testbed.emulation.lane says why and how its range lane avoids that)."""
    a, b = ends
    pa, pb = ofports
    cmds = [
        ["ip", "link", "add", a, "type", "veth", "peer", "name", b],
        ["ip", "link", "set", a, "up"], ["ip", "link", "set", b, "up"],
        ["sysctl", "-qw", f"net.ipv6.conf.{a}.disable_ipv6=1",
         f"net.ipv6.conf.{b}.disable_ipv6=1"],
        ["ovs-vsctl", "add-port", switch, a, "--", "set", "Interface", a,
         f"ofport_request={pa}", "--", "add-port", switch, b, "--", "set", "Interface", b,
         f"ofport_request={pb}"],
    ]
    tc = "" if rate is None else linkshape.tc_batch(a, LinkParams(bw_mbit=rate), netem=False)
    return cmds, tc


def setup(topo: Topology, switch: str) -> tuple[list[list[str]], str, str]:
    """For one switch: the commands making and attaching its medium loop, its `tc -batch`
    shaping ('' when the hub is unshaped) and its flows."""
    cmds, tc = veth_loop(switch, medium_intfs(switch), MEDIUM_PORTS, switch_rate(topo, switch))
    return cmds, tc, flows(topo, switch)
