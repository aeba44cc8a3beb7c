"""A one-way path out of an OVS bridge and back into it, shaped by HTB: a hub's medium
(testbed.emulation.hub, one class) and a range lane (testbed.emulation.lane, a class per
port of the switch) are each one.

    OVS port in  p0 ~~ p1 --[ingress: mirred *mirror*]--> p2 ==[HTB]==> ~~ p3  OVS port out

Why not one veth pair looped back, shaped on the end OVS sends into: ovs-vswitchd sends on
every AF_PACKET ("system") port through one shared packet socket (lib/netdev-linux.c), and
an skb stays charged to that socket's send buffer (net.core.wmem_default, 212992 B) until
it is freed. Frames queued in an HTB on the path OVS sends into are still the socket's:
~100 queued 1400 B frames fill it, then OVS's sends fail and it drops (measured: 478 of 600
frames of two range multicasts entered a 20 Mbit/s lane, HTB reporting 0 drops; a 9-host
hub carried 76.9 of the 86.5 frames a 8 KiB binomial broadcast's hosts sent, and TCP sent
the rest again). Crossing into another network namespace does not help on this kernel
(6.18: skb_scrub_packet no longer orphans; measured, 96 of 600 sent), and neither does a
tc `redirect`, which moves the skb itself. A tc `mirror` at p1's ingress queues a clone,
which no socket owns, and the original is freed at once in p1's stack (p1 has no
addresses): OVS's send buffer is released as soon as a frame enters the path, and p2's HTB
holds the queue (its pfifo, txqueuelen 1000 frames, as a switch port's) at the rate
(measured without OVS: 600 of 600 frames, 0.335 s, 600 x 1400 B at 20 Mbit/s being
0.336 s). The way back (p3 to p2, should OVS ever send there) ends in p2's stack: the
path is one way."""

from __future__ import annotations

from topologies import LinkParams, Topology

from . import linkshape

Intfs = tuple[str, str, str, str]


def switch_rate(topo: Topology, switch: str) -> float | None:
    """A path's rate: the slowest of the switch's links (None: all unshaped)."""
    rates = [lk.params.bw_mbit for lk in topo.links
             if switch in (lk.node1, lk.node2) and lk.params.bw_mbit is not None]
    return min(rates) if rates else None


def intfs(switch: str, tag: str) -> Intfs:
    """The four ends of a switch's path (root namespace): OVS's entry, its peer (the
    mirror), the shaped end (index 2: its tx is what crossed), its peer (OVS's exit).
    Deleting the first and the third removes them all."""
    return f"{switch}-{tag}0", f"{switch}-{tag}1", f"{switch}-{tag}2", f"{switch}-{tag}3"


def setup(switch: str, ends: Intfs, ofports: tuple[int, int], rate: float | None
          ) -> tuple[list[list[str]], str]:
    """The commands making the path and attaching its two OVS ends as OpenFlow ports
    `ofports` (in, out), and its `tc -batch`: the mirror, and one HTB class at `rate` (none
    when None: the range lanes shape the third end with a class per port)."""
    p0, p1, p2, p3 = ends
    port_in, port_out = ofports
    cmds = [
        ["ip", "link", "add", p0, "type", "veth", "peer", "name", p1],
        ["ip", "link", "add", p2, "type", "veth", "peer", "name", p3],
        ["sysctl", "-qw", *(f"net.ipv6.conf.{i}.disable_ipv6=1" for i in ends)],
        *(["ip", "link", "set", i, "up"] for i in ends),
        ["ovs-vsctl", "add-port", switch, p0, "--", "set", "Interface", p0,
         f"ofport_request={port_in}", "--", "add-port", switch, p3, "--", "set", "Interface",
         p3, f"ofport_request={port_out}"],
    ]
    tc = "" if rate is None else linkshape.tc_batch(p2, LinkParams(bw_mbit=rate), netem=False)
    tc += (f"qdisc add dev {p1} handle ffff: ingress\n"
           f"filter add dev {p1} parent ffff: protocol all u32 match u32 0 0 "
           f"action mirred egress mirror dev {p2}\n")
    return cmds, tc
