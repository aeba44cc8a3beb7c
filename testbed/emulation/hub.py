"""A hub as one shared medium (Emulation(switch="hub"); Chen2000's hub).

On a hub every frame reaches every other port, and all stations share one medium: two
frames never cross it at the same time. A switch that floods multicast does neither (it
learns where unicast goes, and each port carries its own frames side by side). Here each
switch becomes a hub: an OVS bridge without a controller whose flows send every frame that
enters a port into a one-way path out of the bridge and back (the medium:
testbed.emulation.one_way, which says why it is two veth pairs and a tc mirror), shaped by
one HTB class at the hub's rate, and send what comes out of it to every port but the one
towards the frame's sender (found by its source MAC along the topology's tree):

    host --[its link's rate]--> port --> hub0 ~ hub1 -mirror-> hub2 ==[one HTB class, the
    hub's rate]==> hub3 --> every port except the one towards the sender --> hosts

A station's own link still sends at its rate (its queue and TCP's backpressure stay in the
host); the hub's side of its ports is not shaped, as the medium already serializes each
frame once. So a frame is serialized twice, on the sender's link and on the medium, as a
switch serializes it on the sender's link and the receiver's. What stays out of reach:
collisions and their backoff (a frame that finds the medium busy waits in the class's
queue, as a station defers), and a hub's cut-through (a real hub repeats bits as they
arrive: one serialization from sender to receivers).
"""

from __future__ import annotations

from topologies import Topology

from . import one_way

MEDIUM_PORTS = (65000, 65001)  # OpenFlow port numbers of the medium's two ends: in, out


def medium_intfs(switch: str) -> one_way.Intfs:
    """The four ends of a switch's medium (one_way.intfs; index 2 the shaped one, whose tx
    is every frame that crossed the medium)."""
    return one_way.intfs(switch, "hub")


def flows(topo: Topology, switch: str) -> str:
    """`ovs-ofctl add-flows` lines turning one bridge into a hub (OpenFlow 1.3)."""
    import networkx as nx  # a quarter second, paid where a hub is built

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


def setup(topo: Topology, switch: str) -> tuple[list[list[str]], str, str]:
    """For one switch: the commands making and attaching its medium, its `tc -batch` (the
    mirror and the shaping at the hub's rate) and its flows."""
    cmds, tc = one_way.setup(switch, medium_intfs(switch), MEDIUM_PORTS,
                             one_way.switch_rate(topo, switch))
    return cmds, tc, flows(topo, switch)
