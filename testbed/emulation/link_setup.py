"""The links of a running emulation as the topology asks for them: linkshape's `tc` lines
on the switch ends (one `tc -batch` per server) and in each host (one shell round trip,
with the host's own settings: names without DNS, no IPv6, multicast route, offloads), and
new rates in place when the emulation is retuned."""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

from topologies import HOST_PORT, Topology

from ..errors import UsageError
from ..specs.cluster import LOCAL
from . import ctlnet, linkshape
from .host_shell import run_in_host
from .hub import medium_intfs
from .lane import classes as lane_classes
from .one_way import switch_rate
from .ports import host_links, intf_name
from .wiring import Started, Wiring


def name_files(run_dir: Path) -> list[str]:
    """The host's shell commands that give it the run's /etc/hosts and resolv.conf: the
    run's folder quoted (MCASTLAB_STATE_DIR may name one with a space or a `;`)."""
    return [f"mount --bind {shlex.quote(str(run_dir / name))} /etc/{name}"
            for name in ("hosts", "resolv.conf")]


def tc_batch(path: Path) -> str:
    """The host's shell command that runs the tc lines of the file `path` (quoted)."""
    return f"tc -batch {shlex.quote(str(path))}"

# Emulated hosts cap TCP's retransmission timeout (Linux >= 6.15; older kernels keep 120 s).
# Under injected loss a lost SYN leaves a connection with a ~1 s RTT estimate, so its RTO is
# 3-6 s and doubles with every further loss: MPI messages then stalled 10-60 s (2-3 of 10
# verify runs at 10 % loss on every packet; one broadcast gave up after 60 s). Without loss
# no retransmission timer fires, so the cap changes nothing there.
RTO_MAX_SYSCTL = Path("/proc/sys/net/ipv4/tcp_rto_max_ms")
RTO_MAX_MS = 1000  # the smallest the kernel accepts


class LinkSetup:
    """Shapes one emulation's links (Emulation.start and Emulation.retune), handed its
    facts as values (testbed.emulation.wiring), not the emulation."""

    def __init__(self, wiring: Wiring) -> None:
        self.wiring = wiring

    def configure(self, topo: Topology, xdp: set[str], run: Started,
                  root_intfs: Mapping[str, list[str]]) -> None:
        """Per host one shell round trip; switch-side shaping in one `tc -batch` (for an
        AF_XDP port, on the host's ingress instead: see linkshape). A hub's ports are not
        shaped on its side: its medium serializes every frame instead (see hub).
        `root_intfs`: per server, the interfaces of the run in its root namespace."""
        w = self.wiring
        spread, caps = w.spread, w.caps
        for server, runner in spread.runners.items():
            root_tc = ""
            for link in topo.links:
                for node, port in ((link.node1, link.port1), (link.node2, link.port2)):
                    if (not topo.is_host(node) and intf_name(node, port) not in xdp
                            and spread.server_of(node) == server and not w.hub):
                        root_tc += linkshape.tc_batch(intf_name(node, port), link.params,
                                                      caps.sch_netem)
            if root_tc:
                runner.run(["tc", "-batch", "-"], input=root_tc, timeout=60)
            # The switch ends of the veths live in the root namespace, where IPv6 would make
            # the kernel send router solicitations and MLD reports out of them: stray frames
            # that the port counters would count as traffic.
            if root_intfs.get(server):
                runner.run(["sysctl", "-qw", *(f"net.ipv6.conf.{i}.disable_ipv6=1"
                                               for i in root_intfs[server])], timeout=60)
        host_params = {n: lk.params for lk in topo.links for n in (lk.node1, lk.node2)
                       if topo.is_host(n)}
        switch_ends = {h: end for h, (end, _lk) in host_links(topo).items()}
        for h in topo.hosts:
            intf = intf_name(h.name, HOST_PORT)
            params = host_params[h.name]
            cmds = [
                *name_files(run.run_dir),
                "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1",
                f"ip route add 224.0.0.0/4 dev {intf}",
            ]
            if w.control:  # its control interface (testbed.emulation.ctlnet)
                cmds += ctlnet.host_cmds(h.name, h.node_id)
            if spread.host_mtu:  # frames a tunnel can carry (see testbed.cluster.nodes)
                cmds.append(f"ip link set {intf} mtu {spread.host_mtu}")
            if RTO_MAX_SYSCTL.exists():
                cmds.append(f"sysctl -qw net.ipv4.tcp_rto_max_ms={RTO_MAX_MS}")
            if caps.datapath == "user" and not w.kernel_bridges:
                # Userspace datapath + veth: TCP breaks unless transmit checksums are real.
                cmds.append(f"ethtool -K {intf} tx off >/dev/null")
            if params.bw_mbit is not None:
                # One frame per packet through the link's HTB: TCP's segmentation offload
                # hands the qdisc packets of many frames, which leave together and are paid
                # for afterwards (see linkshape). `gso off` alone no longer does it: this
                # kernel's TCP still builds packets of up to a dozen frames and segments
                # them after the qdisc; gso_max_segs 1 caps TCP's packets at one frame.
                cmds.append(f"ethtool -K {intf} tso off gso off >/dev/null")
                cmds.append(f"ip link set {intf} gso_max_segs 1")
            tc = linkshape.tc_batch(intf, params, caps.sch_netem)
            if switch_ends[h.name] in xdp and not w.hub:
                ifb_cmds, ifb_tc = linkshape.ingress_shaping(intf, params, caps.sch_netem)
                cmds += ifb_cmds
                tc += ifb_tc
            if tc:
                batch = run.run_dir / f"tc-{h.name}.batch"
                spread.runner(h.name).put(batch, tc)
                cmds.append(tc_batch(batch))
            if not caps.sch_netem:
                cmds += linkshape.netfilter_loss(intf, params)
            run_in_host(run.host(h.name), cmds, f"configuring host {h.name}")

    def retune(self, now: Topology, topo: Topology, xdp: set[str], run: Started) -> None:
        """Give every shaped link the rate it has in `topo` (the network `now` with other
        rates, as Topology.scaled makes), in place. `xdp`: the AF_XDP ports (shaped on the
        host's ingress)."""
        w = self.wiring

        def shape(t: Topology) -> list[tuple[str, int, str, int, bool]]:
            return [(lk.node1, lk.port1, lk.node2, lk.port2, lk.params.bw_mbit is None)
                    for lk in t.links]

        if shape(topo) != shape(now):
            raise UsageError("retune changes rates only: give the same network's links, each "
                             "limited or unlimited as before")
        ends = {h: end for h, (end, _lk) in host_links(topo).items()}
        root_tc: dict[str, str] = {}
        host_tc: dict[str, str] = {}
        for lk in topo.links:
            if lk.params.bw_mbit is None:
                continue
            for node, port in ((lk.node1, lk.port1), (lk.node2, lk.port2)):
                intf = intf_name(node, port)
                if now.is_host(node):
                    host_tc[node] = host_tc.get(node, "") + linkshape.htb_rate_change(
                        intf, lk.params.bw_mbit)
                    if ends[node] in xdp and not w.hub:
                        host_tc[node] += linkshape.htb_rate_change(linkshape.IFB,
                                                                   lk.params.bw_mbit)
                elif intf not in xdp and not w.hub:
                    server = w.spread.server_of(node)
                    root_tc[server] = root_tc.get(server, "") + linkshape.htb_rate_change(
                        intf, lk.params.bw_mbit)
        if w.hub:  # one machine's (no cluster), as the lanes
            root_tc[LOCAL] = root_tc.get(LOCAL, "") + "".join(
                linkshape.htb_rate_change(medium_intfs(sw.name)[2], rate)
                for sw in topo.switches if (rate := switch_rate(topo, sw.name)) is not None)
        if w.lanes:  # each port's class at its link's new rate
            root_tc[LOCAL] = root_tc.get(LOCAL, "") + "".join(
                lane_classes(topo, sw.name, "change") for sw in topo.switches)
        for server, lines in root_tc.items():
            if lines:
                w.spread.runners[server].run(["tc", "-batch", "-"], input=lines, timeout=60)
        for name, lines in host_tc.items():
            batch = run.run_dir / f"tc-{name}-retune.batch"
            w.spread.runner(name).put(batch, lines)
            run_in_host(run.host(name), [tc_batch(batch)],
                        f"retuning {name}'s link")
