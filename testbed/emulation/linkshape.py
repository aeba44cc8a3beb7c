"""Link emulation with what the kernel offers: HTB for bandwidth, netem for delay and loss,
and, where netem is missing, random loss on host links with the netfilter statistic match
and (set at run time) on switch-to-switch links with an nftables egress chain.

A setting the kernel cannot emulate is refused up front with the missing feature named;
nothing is silently skipped.
"""

from __future__ import annotations

import re

from topologies import Link, LinkParams, Topology

from ..errors import CapabilityError
from .environment import Capabilities

# One class under the root: quantum is set so that HTB does not warn about r2q at high rates.
# The class counts a frame as the wire carries it (overhead: preamble 8, gap 12, FCS 4; mpu:
# the 84 bytes of a minimal frame), so a link's rate is its rate in wire time
# (testbed.fidelity.wire_units.FRAME_BYTES). Its buckets (burst, cburst) hold what the link
# carries in BURST_S: less than one full frame up to 100 Mbit/s, so a frame that follows
# another waits its own wire time (tc's defaults, burst 15k and cburst one MTU, let the
# first two full frames out together and ten 1 KiB messages in a row), while a timer that
# fires up to BURST_S late costs no rate. Measured on a 2-core VM (TCP through one link,
# bucket against rate): 100 bytes held 10 and 30 Mbit/s but lost 12 % at 100; one frame
# lost 5 % at 300 (docs/fidelity.md, "Per-frame serialization"). A lone frame after an idle
# spell still leaves at once: delaying it by its own wire time needs netem's rate or fq's
# departure times, neither of which this kernel has.
BURST_S = 100e-6
WIRE_OVERHEAD = 24
MIN_FRAME = 84


def htb_burst(mbit: float) -> int:
    """The bytes of an HTB class's buckets at `mbit` (at least 1)."""
    return max(1, round(mbit * 1e6 / 8 * BURST_S))


def htb_class(verb: str, intf: str, mbit: float, minor: int = 1) -> str:
    """A `tc -batch` line adding (`verb` add) or changing (change) the HTB class 1:`minor`
    of an interface whose root is HTB 1: (tc_batch's holds class 1:1 alone)."""
    b = htb_burst(mbit)
    return (f"class {verb} dev {intf} parent 1: classid 1:{minor:x} htb rate {mbit:g}mbit "
            f"burst {b} cburst {b} overhead {WIRE_OVERHEAD} mpu {MIN_FRAME} quantum 1514\n")


def htb_rate_change(intf: str, mbit: float) -> str:
    """A `tc -batch` line giving an interface's HTB class (made by tc_batch) a new rate."""
    return htb_class("change", intf, mbit)


def _link_name(link: Link) -> str:
    return f"{link.node1}-{link.node2}"


def check(topo: Topology, caps: Capabilities) -> None:
    """Refuse link settings this machine cannot emulate, naming the link and the feature."""
    for link in topo.links:
        p, name = link.params, _link_name(link)
        if p.bw_mbit is not None and not caps.sch_htb:
            raise CapabilityError(f"link {name} asks for {p.bw_mbit:g} Mbit/s but this kernel "
                                  "has no sch_htb, so bandwidth cannot be emulated")
        if p.delay_ms > 0 and not caps.sch_netem:
            raise CapabilityError(f"link {name} asks for {p.delay_ms:g} ms delay but this kernel "
                                  "has no sch_netem, so delay cannot be emulated")
        if p.loss_pct > 0 and not caps.sch_netem:
            host_link = topo.is_host(link.node1) or topo.is_host(link.node2)
            if not (host_link and caps.netfilter_statistic):
                raise CapabilityError(
                    f"link {name} asks for {p.loss_pct:g}% loss: without sch_netem loss is "
                    "only possible on host links, with the netfilter statistic match"
                    + ("" if caps.netfilter_statistic else " (also missing)"))


def tc_batch(intf: str, p: LinkParams, netem: bool) -> str:
    """`tc -batch` lines shaping the egress of one interface ('' if nothing to do)."""
    netem_args = []
    if p.delay_ms > 0:
        netem_args.append(f"delay {p.delay_ms:g}ms")
    if p.loss_pct > 0 and netem:
        netem_args.append(f"loss {p.loss_pct:g}%")
    if p.max_queue:
        netem_args.append(f"limit {p.max_queue}")
    lines = ""
    parent = "root"
    if p.bw_mbit is not None:
        lines += (f"qdisc add dev {intf} root handle 1: htb default 1\n"
                  + htb_class("add", intf, p.bw_mbit))
        parent = "parent 1:1"
    if netem and (p.delay_ms > 0 or p.loss_pct > 0):
        lines += f"qdisc add dev {intf} {parent} handle 10: netem {' '.join(netem_args)}\n"
    elif p.max_queue:
        lines += f"qdisc add dev {intf} {parent} handle 10: pfifo limit {p.max_queue}\n"
    return lines


# ---- host links on AF_XDP switch ports: shaping on the host's ingress -------------------
# OVS transmits on an AF_XDP port straight to the driver (__dev_direct_xmit), past the
# qdiscs and netfilter's egress hook: an HTB on the switch end of a host's veth is never
# consulted (measured: 2 Gbit/s through a 10 Mbit/s class, 1 packet seen by the qdisc). The
# switch-to-host direction is shaped where the host receives instead: its ingress is
# redirected to an IFB in the host's namespace, which holds the same HTB (and netem) the
# switch end would have. With no wire delay between the two points, a queue there is the
# switch port's queue. The IFB leaves with the namespace.
IFB = "ifb0"
IFB_QUEUE = 1000  # packets, as a veth's transmit queue (an IFB's default is 32)


def ingress_shaping(intf: str, p: LinkParams, netem: bool) -> tuple[list[str], str]:
    """(shell commands, `tc -batch` lines) run in a host's namespace that shape what
    arrives on `intf` as tc_batch would shape the switch end's egress; ([], '') when the
    link has no such setting."""
    lines = tc_batch(IFB, p, netem)
    if not lines:
        return [], ""
    cmds = [f"ip link add {IFB} type ifb", f"ip link set {IFB} txqueuelen {IFB_QUEUE} up"]
    redirect = (f"qdisc add dev {intf} handle ffff: ingress\n"
                f"filter add dev {intf} parent ffff: protocol all u32 match u32 0 0 "
                f"action mirred egress redirect dev {IFB}\n")
    return cmds, lines + redirect


LOSS_CHAIN = "MCASTLAB_LOSS"


def netfilter_loss(intf: str, p: LinkParams) -> list[str]:
    """iptables commands (run in the host's namespace) dropping p.loss_pct % each way."""
    return netfilter_set_loss(intf, p.loss_pct) if p.loss_pct > 0 else []


# multicast-in: only the multicast datagrams a host receives, so each receiver loses its own
# share independently of the others (Siebert2006's repair-round model) and a sender loses none
LOSS_SCOPES = {"all": "", "multicast": "-p udp -d 224.0.0.0/4 ",
               "multicast-in": "-p udp -d 224.0.0.0/4 "}
# the same scopes as nft matches on a host's outgoing frames (IPv4 only: ARP stays whole, as
# the iptables side never saw it); None: nothing outgoing is dropped
EGRESS_SCOPES = {"all": "meta protocol ip ",
                 "multicast": "meta protocol ip ip daddr 224.0.0.0/4 meta l4proto udp ",
                 "multicast-in": None}
HOST_LOSS_TABLE = "mcastlab_loss"
# Where a host's outgoing loss goes: an IFB device of the host's own, left down, which frees
# whatever it is given. The egress chain hands it the packets it picks (nft `fwd`: the packet
# is taken, the sender hears "sent"), as a wire loses a packet. A `drop` in that chain is the
# host's own stack dropping, which it tells the sender of (NET_XMIT_DROP, as for a full
# qdisc): TCP then keeps the segment unsent, outside its loss recovery, and tries it again
# when its zero-window probe timer fires (200 ms at least, doubling) or an ACK or a later
# write on that connection comes. Measured (1 KiB after the host's outgoing loss went to
# 100 %): with `drop`, 1024 bytes unsent under a probe timer of 200, then 400 ms; with `fwd`,
# nothing unsent and TCP's retransmission timer running. At 1 % loss of every packet a
# point-to-point tree that waits for its bytes to leave the host (send order fifo) waited
# for that probe timer in 4 % of its broadcasts (1 KiB on 8 hosts: p99 209 ms) and MPI_Bcast,
# whose root writes its next message at once, hardly ever (docs/experiments.md, loss-tail).
# An iptables OUTPUT drop is no better: sendto fails with EPERM, which real tools such as
# uftp do not take for loss.
LOSS_SINK = "mcastlab-loss"


def netfilter_set_loss(intf: str, pct: float, scope: str = "all") -> list[str]:
    """Shell commands (in the host's namespace) that make the host's link drop `pct` % of
    the packets each way from now on: calling it again replaces the rate; 100 drops
    everything, 0 nothing. Incoming: an iptables chain on INPUT. Outgoing: an nft chain on
    the interface's egress hook, below IP, that sends the packets it picks to LOSS_SINK
    (see there), so that the sender cannot tell them from packets lost on the wire.
    `scope` "multicast" drops only multicast UDP datagrams: TCP (and so MPI itself) crawls
    at high loss rates; "multicast-in" only those the host receives."""
    if not 0 <= pct <= 100:
        raise ValueError(f"loss must be in [0, 100] percent, got {pct!r}")
    if scope not in LOSS_SCOPES:
        raise ValueError(f"loss scope must be one of {', '.join(LOSS_SCOPES)}, got {scope!r}")
    if not _NFT_NAME.fullmatch(intf):
        raise ValueError(f"{intf!r} is not an interface name nftables takes")
    match = LOSS_SCOPES[scope]
    jump = f"INPUT -i {intf} -j {LOSS_CHAIN}"
    cmds = [f"{{ iptables -w -N {LOSS_CHAIN} 2>/dev/null || iptables -w -F {LOSS_CHAIN}; }}",
            f"{{ iptables -w -C {jump} 2>/dev/null || iptables -w -A {jump}; }}"]
    threshold = round(pct / 100 * NFT_SCALE)
    t, c = HOST_LOSS_TABLE, f"out-{intf}"
    lost = f'fwd to "{LOSS_SINK}"'
    egress = [f"add table netdev {t}",
              f'add chain netdev {t} {c} {{ type filter hook egress device "{intf}" '
              "priority 0 ; policy accept ; }", f"flush chain netdev {t} {c}"]
    out = EGRESS_SCOPES[scope]
    if pct >= 100:
        cmds.append(f"iptables -w -A {LOSS_CHAIN} {match}-j DROP")
        if out is not None:
            egress.append(f"add rule netdev {t} {c} {out}{lost}")
    elif pct > 0:
        prob = f"{pct / 100:.10g}"
        cmds.append(f"iptables -w -A {LOSS_CHAIN} {match}-m statistic --mode random "
                    f"--probability {prob} -j DROP")
        if out is not None:
            egress.append(f"add rule netdev {t} {c} {out}"
                          f"numgen random mod {NFT_SCALE} < {threshold} {lost}")
    if lost in egress[-1]:  # the sink first: nft looks the device up as it reads the rule
        cmds.append(f"{{ ip link show {LOSS_SINK} >/dev/null 2>&1 || "
                    f"ip link add {LOSS_SINK} type ifb; }}")
    cmds.append("nft '" + " ; ".join(egress) + "'")
    return cmds


# ---- loss on switch-to-switch links: nftables ----------------------------------------------
# The veths between two switches live in the root namespace, and userspace OVS reads and
# writes them through AF_PACKET sockets, which iptables never sees. A packet socket's send
# goes through dev_queue_xmit, and so through the egress hook of the netdev family: a chain
# there drops what OVS transmits on that port. One table per run (NFT_TABLE_PREFIX + run
# id), one chain per veth end; a chain outlives its interface and binds again to the next
# interface of that name, so `mcastlab cleanup` deletes the tables of ended runs.
NFT_FAMILY = "netdev"
NFT_TABLE_PREFIX = "mcastlab-"
NFT_SCALE = 1_000_000  # numgen's range: loss in steps of 0.0001 %
_NFT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


def nft_table(run_id: str) -> str:
    """The nftables table (netdev family) of one run."""
    return f"{NFT_TABLE_PREFIX}{run_id}"


def nft_link_loss(table: str, intfs: list[str], pct: float) -> str:
    """An `nft -f` script (one transaction) that makes each interface drop `pct` % of the
    frames it transmits from now on, at random; calling it again replaces the rate, 0
    removes the interfaces' chains (the table stays until the run ends)."""
    if not 0 <= pct <= 100:
        raise ValueError(f"loss must be in [0, 100] percent, got {pct!r}")
    for name in (table, *intfs):
        if not _NFT_NAME.fullmatch(name):
            raise ValueError(f"{name!r} is not a name nftables takes")
    lines = [f"add table {NFT_FAMILY} {table}"]
    threshold = round(pct / 100 * NFT_SCALE)
    for intf in intfs:
        chain = f"loss-{intf}"
        lines.append(f"add chain {NFT_FAMILY} {table} {chain} {{ type filter hook egress "
                     f'device "{intf}" priority 0 ; policy accept ; }}')
        if threshold == 0:  # adding first makes the delete safe when there was none
            lines.append(f"delete chain {NFT_FAMILY} {table} {chain}")
            continue
        lines.append(f"flush chain {NFT_FAMILY} {table} {chain}")
        match = "" if threshold >= NFT_SCALE else f"numgen random mod {NFT_SCALE} < {threshold} "
        lines.append(f"add rule {NFT_FAMILY} {table} {chain} {match}counter drop")
    return "\n".join(lines) + "\n"
