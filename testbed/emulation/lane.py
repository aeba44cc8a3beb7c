"""Range lanes: strict contiguous mode's one serialization per switch (controller.lane says
why and which frames take it).

In strict contiguous mode (ControllerConfig(mode="contiguous-strict")) every switch gets a
range lane, two veth pairs in the root namespace, carrying range multicasts only (the
controller's flows decide what enters it and where it goes after):

    OVS LANE_IN  rl0 ~~ rl1 --[ingress: mirred *mirror*]--> rl2 ==[HTB]==> ~~ rl3  OVS LANE_OUT

Why not the hub's single veth loop (testbed.emulation.hub.veth_loop) shaped on its OVS end:
ovs-vswitchd sends on every AF_PACKET ("system") port through one shared packet socket
(lib/netdev-linux.c), and an skb stays charged to that socket's send buffer
(net.core.wmem_default, 212992 B) until it is freed. Frames queued in an HTB on the path
OVS sends into are still the socket's: ~100 queued 1400 B frames fill it, then OVS's sends
fail and it drops (measured: 478 of 600 frames of two range multicasts entered a 20 Mbit/s
lane, HTB reporting 0 drops). Crossing into another network namespace does not help on this
kernel (6.18: skb_scrub_packet no longer orphans; measured, 96 of 600 sent), and neither
does a tc `redirect`, which moves the skb itself. A tc `mirror` at rl1's ingress queues a
clone, which no socket owns, and the original is freed at once in rl1's stack (rl1 has no
addresses): OVS's send buffer is released as soon as a frame enters the lane, and rl2's HTB
holds the queue (its pfifo, txqueuelen 1000 frames, as a switch port's) at the link rate
(measured without OVS: 600 of 600 frames, 0.335 s, 600 x 1400 B at 20 Mbit/s being 0.336 s).
The way back (rl3 to rl2, should OVS ever send there) ends in rl2's stack: the lane is one
way. The switch's own ports stay shaped as ever, so a range-multicast frame is serialized
once more per switch it crosses (one frame's store and forward).
"""

from __future__ import annotations

from controller.lane import LANE_PORTS
from topologies import Topology

from . import linkshape
from .hub import switch_rate
from .linkshape import LinkParams


def lane_intfs(switch: str) -> tuple[str, str, str, str]:
    """The four ends of a switch's range lane (root namespace): OVS's entry, its peer (the
    mirror), the shaped end, its peer (OVS's exit). Deleting rl0 and rl2 removes them all."""
    return f"{switch}-rl0", f"{switch}-rl1", f"{switch}-rl2", f"{switch}-rl3"


def shaped_intf(switch: str) -> str:
    """The lane end whose egress HTB class runs at the switch's link rate."""
    return lane_intfs(switch)[2]


def setup(topo: Topology, switch: str) -> tuple[list[list[str]], str]:
    """For one switch: the commands making and attaching its range lane, and its `tc -batch`
    (the mirror from rl1 into rl2, and rl2's shaping at the switch's link rate)."""
    r0, r1, r2, r3 = lane_intfs(switch)
    lane_in, lane_out = LANE_PORTS
    cmds = [
        ["ip", "link", "add", r0, "type", "veth", "peer", "name", r1],
        ["ip", "link", "add", r2, "type", "veth", "peer", "name", r3],
        ["sysctl", "-qw", *(f"net.ipv6.conf.{i}.disable_ipv6=1" for i in (r0, r1, r2, r3))],
        *(["ip", "link", "set", i, "up"] for i in (r0, r1, r2, r3)),
        ["ovs-vsctl", "add-port", switch, r0, "--", "set", "Interface", r0,
         f"ofport_request={lane_in}", "--", "add-port", switch, r3, "--", "set", "Interface",
         r3, f"ofport_request={lane_out}"],
    ]
    rate = switch_rate(topo, switch)
    tc = "" if rate is None else linkshape.tc_batch(r2, LinkParams(bw_mbit=rate), netem=False)
    tc += (f"qdisc add dev {r1} handle ffff: ingress\n"
           f"filter add dev {r1} parent ffff: protocol all u32 match u32 0 0 "
           f"action mirred egress mirror dev {r2}\n")
    return cmds, tc
