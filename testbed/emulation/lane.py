"""Range lanes: strict contiguous mode's one serialization per egress port of a switch
(controller.lane says why and which frames take which).

In strict contiguous mode (ControllerConfig(mode="contiguous-strict")) every switch gets a
range lane, a one-way path out of its bridge and back (testbed.emulation.one_way, which says
why it is two veth pairs and a tc mirror). Its shaped end holds an HTB with one class per
port of the switch, class 1:t for the port whose copies carry VLAN id t
(controller.lane.lane_tag), at that port's link rate: a lossless queue of 1000 frames (the
class's pfifo, txqueuelen) per egress port. A classic-BPF classifier picks the class from
the frame's VLAN id; the tag is out of the frame by then (the kernel takes it out when the
path's first end receives the frame, and keeps it beside it), so a class counts the frame
as the port's wire carries it. Frames of a port whose link is unshaped, or with a tag no
class has, pass unshaped (HTB's direct queue).

Why one path with a class per port and not a path per port: the classes cost no OVS port,
so the bridge polls two more ports per switch either way (a path per port would add two per
port: 96 more on the 16-host fat tree k=4,n=2, 32 on a 16-host star), and every port gets
its class, whichever ports a range multicast can take. The price is per copy: each copy a
switch makes of a range multicast crosses the bridge twice more (into the lane, out of it)
where one lane per switch took one frame per switch through it. The switch's own ports stay
shaped as ever, so a range-multicast frame is serialized once more per switch it crosses
(one frame's store and forward)."""

from __future__ import annotations

from controller.lane import LANE_PORTS, lane_tag
from topologies import Topology

from ..errors import UsageError
from . import linkshape, one_way

# The classifier, classic BPF in tc's bytecode form (cls_bpf returns the class id; a kernel
# without cls_flower and em_meta has no other way to read a VLAN id the kernel took out of
# the frame): A = the frame's VLAN tag (ancillary load SKF_AD_VLAN_TAG, k = -0x1000 + 44);
# A &= 0xfff (its VLAN id); A |= 0x10000 (the HTB's major, 1:); return A. So the class is
# 1:<VLAN id>, as controller.lane.lane_tag asks.
CLASSIFIER = "4,32 0 0 4294963244,84 0 0 4095,68 0 0 65536,22 0 0 0"


def lane_intfs(switch: str) -> one_way.Intfs:
    """The four ends of a switch's range lane (one_way.intfs)."""
    return one_way.intfs(switch, "rl")


def shaped_intf(switch: str) -> str:
    """The lane end whose egress HTB holds a class per port of the switch."""
    return lane_intfs(switch)[2]


def port_rates(topo: Topology, switch: str) -> dict[int, float | None]:
    """Each port of the switch and its link's rate (None: unshaped)."""
    rates = {port: lk.params.bw_mbit for lk in topo.links
             for node, port in ((lk.node1, lk.port1), (lk.node2, lk.port2)) if node == switch}
    return dict(sorted(rates.items()))


def check(topo: Topology) -> None:
    """Refuse a topology whose switch ports a lane cannot tag (UsageError)."""
    for sw in topo.switches:
        for port in topo.ports(sw.name):
            try:
                lane_tag(port)
            except ValueError as e:
                raise UsageError(f"strict contiguous mode on {sw.name}: {e}") from None


def classes(topo: Topology, switch: str, verb: str = "add") -> str:
    """`tc -batch` lines adding (or changing: `verb` "change") the lane's class of every
    shaped port of the switch at its link's rate."""
    return "".join(linkshape.htb_class(verb, shaped_intf(switch), rate, lane_tag(port))
                   for port, rate in port_rates(topo, switch).items() if rate is not None)


def setup(topo: Topology, switch: str) -> tuple[list[list[str]], str]:
    """For one switch: the commands making and attaching its range lane, and its `tc -batch`
    (a class per shaped port and the classifier, and the mirror)."""
    cmds, mirror = one_way.setup(switch, lane_intfs(switch), LANE_PORTS, None)
    shaped = classes(topo, switch)
    if not shaped:  # no port is shaped: nothing to serialize
        return cmds, mirror
    intf = shaped_intf(switch)
    tc = (f"qdisc add dev {intf} root handle 1: htb\n" + shaped
          + f'filter add dev {intf} parent 1: protocol all prio 1 bpf bytecode "{CLASSIFIER}"\n')
    return cmds, tc + mirror
