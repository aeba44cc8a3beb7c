"""The emulated network of one run: controller process, Mininet hosts and OVS switches (or
standalone kernel bridges), links shaped as the topology asks, and a teardown that leaves
nothing behind.

Emulation starts and stops the pieces; what the switches are is one SwitchKind (switching),
and it hands the rest to objects of their own: which host ports are AF_XDP ports
(port_plan.PortPlan), the links' shaping at start and when retuned (link_setup.LinkSetup),
loss set while it runs (loss_control.LossControl), the network's servers (servers.OneMachine,
or the cluster's Spread).

    with Emulation(topo) as emu:
        emu.host("h0").cmd("ping -c1 10.0.0.2")
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.config import ControllerConfig
from topologies import Topology

from ..errors import CapabilityError, RunFailed, UsageError
from ..specs.cluster import LOCAL
from . import ctlnet, linkshape, priority, run_records
from .cleanup import BRIDGE_MARK, cleanup_run, killed_runs, remove_ended_nft_tables
from .controller_proc import ControllerProcess, api_post
from .environment import Capabilities, detected
from .hub import medium_intfs
from .hub import setup as hub_setup
from .lane import check as lane_check
from .lane import lane_intfs
from .lane import setup as lane_setup
from .link_setup import LinkSetup
from .loss_control import LossControl
from .port_plan import PortPlan
from .ports import (
    check_xdp_ports,
    intf_name,
)
from .runlock import RunLock
from .servers import OneMachine
from .switching import DEFAULT as DEFAULT_SWITCH
from .switching import SwitchKind, switch_kind
from .wiring import Started, Wiring

PREFIX_LEN = 16  # hosts live in 10.0.0.0/16; the machine's resolver at 10.255.x stays off-link

Progress = Callable[[str], None]

def _quiet(_msg: str) -> None:
    pass


CFS_QUOTA = Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")  # cgroup v1, as Mininet uses


def _check_host_cpu(frac: float | None) -> float | None:
    if frac is None:
        return None
    if not 0 < frac <= 1:
        raise UsageError(f"a host's CPU share is a fraction of the machine in (0, 1], "
                         f"not {frac:g}")
    if not CFS_QUOTA.exists() or shutil.which("cgexec") is None:
        raise CapabilityError("CPU-limited hosts need the cgroup v1 cpu controller with CFS "
                              f"bandwidth ({CFS_QUOTA}) and cgroup-tools (cgexec)")
    return frac


class Emulation:
    """Bring a topology up under the project's controller; `stop` (or leaving the `with`
    block, also on errors, Ctrl-C and SIGTERM) tears every piece down."""

    def __init__(self, topo: Topology, *, caps: Capabilities | None = None,
                 progress: Progress = _quiet, ready_timeout: float | None = None,
                 controller_config: ControllerConfig | None = None,
                 switch: str | SwitchKind = DEFAULT_SWITCH,
                 bridge_options: dict[str, str] | None = None,
                 ports: str | None = None, host_cpu: float | None = None,
                 cluster: OneMachine | None = None) -> None:
        """`switch`: what the switches are, a word of testbed.emulation.switching.SWITCHES
        (default: OVS under the project's controller); the kinds without a controller take
        loop-free topologies only, as standalone bridges flood. `bridge_options`: ip-link
        options of Linux bridges (default: the kernel's timers). `ports`: the switch ports
        facing hosts (OVS ports; kernel bridges have plain veths), one of PORT_TYPES
        (default: $MCASTLAB_PORTS, else auto: AF_XDP where the machine has it; links
        between switches keep default ports, as nothing could shape them else).
        `host_cpu`: each host may use at most this fraction of the machine's CPU time
        (Mininet's CPULimitedHost: a cgroup per host with a CFS quota). `cluster`: where the
        network lies when it spans servers (testbed.cluster.spread.across(topo, spec); OVS
        switches only); without one, this machine alone."""
        self.topo = topo
        self.controller_config = controller_config or ControllerConfig()
        self.switch = switch_kind(switch)
        self.bridge_options = dict(bridge_options or {})
        if bridge_options and not self.linux_bridge:
            raise UsageError("bridge options are for Linux bridges (switch linux-bridge)")
        for item in self.bridge_options.items():
            if not all(re.fullmatch(r"[A-Za-z0-9_]+", str(x)) for x in item):
                raise UsageError(f"bridge option {' '.join(map(str, item))!r}: ip-link bridge "
                                 "options are a name and a number, e.g. mcast_query_interval "
                                 "12500")
        # strict contiguous mode: every switch's range lane (testbed.emulation.lane)
        self.lanes = not self.standalone and self.controller_config.strict
        if self.standalone and len(topo.links) != len(topo.hosts) + len(topo.switches) - 1:
            raise UsageError(f"{topo.name} has loops: standalone switches need a tree")
        self.caps = caps or detected()
        self.host_cpu = _check_host_cpu(host_cpu)
        self.spread = cluster or OneMachine()
        # the control network (testbed.emulation.ctlnet): one machine's runs only
        self.control = not self.spread.cluster
        self.port_plan = PortPlan(ports, kernel_bridges=self.linux_bridge, caps=self.caps,
                                  spread=self.spread)
        wiring = Wiring(self.caps, self.spread, hub=self.hub, kernel_bridges=self.linux_bridge,
                        lanes=self.lanes, control=self.control)
        self.loss = LossControl(wiring)
        self.links = LinkSetup(wiring)
        if self.spread.cluster and (self.switch.one_machine or host_cpu is not None):
            raise UsageError("a network across servers runs on Open vSwitch without CPU "
                             "limits: Linux bridges, hubs and CPU-limited hosts are one "
                             "machine's")
        if self.spread.cluster and self.lanes:
            raise UsageError("strict contiguous mode's range lanes are one machine's: run it "
                             "without --servers")
        if self.hub and not self.caps.ingress_shaping:
            raise CapabilityError("a hub's medium needs an ingress qdisc with cls_u32 and "
                                  "act_mirred (testbed.emulation.one_way)")
        if self.lanes:
            lane_check(topo)
        if self.lanes and not self.caps.ingress_shaping:
            raise CapabilityError("strict contiguous mode's range lanes need an ingress qdisc "
                                  "with cls_u32 and act_mirred (testbed.emulation.lane)")
        self.spread.place()
        self.progress = progress
        self.ready_timeout = ready_timeout or 30.0 + 0.5 * len(topo.switches)
        self.net: Any = None
        self.controller: ControllerProcess | None = None
        self.record: run_records.RunRecord | None = None
        self.timings: dict[str, float] = {}
        self._t0 = 0.0  # when start() began
        self._old_handlers: dict[int, Any] = {}
        self._lock = RunLock()

    # ---- what the switches are (testbed.emulation.switching) ---------------------------------
    @property
    def standalone(self) -> bool:
        return self.switch.standalone

    @property
    def hub(self) -> bool:
        return self.switch.hub

    @property
    def linux_bridge(self) -> bool:
        return self.switch.kernel

    @property
    def ovs_snooping(self) -> bool:
        return self.switch.snooping

    # ---- public API -------------------------------------------------------------------------
    @property
    def run_dir(self) -> Path:
        assert self.record is not None, "the emulation is not started"
        return Path(self.record.run_dir)

    def host(self, name_or_id: str | int) -> Any:
        return self.net.get(self.topo.host(name_or_id).name)

    @property
    def hosts(self) -> list[Any]:
        return [self.net.get(h.name) for h in self.topo.hosts]

    def check_alive(self) -> None:
        """ComponentDied when a process the whole run depends on (the controller) has died:
        run_mpi asks this while a job runs, so the job ends as soon as it has."""
        if self.controller is not None:
            self.controller.check_alive()

    def fail_nodes(self, node_ids: list[int], failed: bool = True) -> list[int]:
        """Mark nodes failed/excluded in the controller (or clear the mark); returns the
        failed set. Contiguous mode refuses ranges that hold a failed node."""
        if self.controller is None:
            raise UsageError("no controller in this network (standalone switches)")
        path = "/nodes/fail" if failed else "/nodes/restore"
        return api_post(self.controller.api, path, {"nodes": list(node_ids)})["failed"]

    # ---- links, loss and ports: objects of their own; these are their entry points -------
    def set_loss(self, loss: float | str, hosts: list[str | int] | None = None,
                 scope: str = "all") -> None:
        """Loss on hosts' links from now on, a fraction or "5%" (before 2026-11-27 a
        percentage: a bare 1 or a number above 1 is refused): LossControl.on_hosts."""
        self.loss.on_hosts(self.topo, self._started(), loss, hosts, scope)

    def switch_links(self, node1: str, node2: str) -> list[Any]:
        """The links between two switches, checked: LossControl.switch_links."""
        return self.loss.switch_links(self.topo, node1, node2)

    def set_link_loss(self, node1: str, node2: str, loss: float | str) -> None:
        """Loss on a switch-to-switch link from now on, a fraction or "5%":
        LossControl.on_link (the run's nftables table goes with the run)."""
        self.loss.on_link(self.topo, self._started(), node1, node2, loss)

    @property
    def host_ports(self) -> str:
        """The OVS interface type of switch ports facing hosts: PortPlan.kind."""
        return self.port_plan.kind

    def retune(self, topo: Topology) -> None:
        """Give every shaped link the rate it has in `topo`, in place (LinkSetup.retune):
        calibration tries rate after rate on one network. Jobs started from now on see the
        new rates (run_mpi reads self.topo)."""
        run = self._started()
        if run is None:
            raise UsageError("the emulation is not started")
        self.links.retune(self.topo, topo, self.port_plan.xdp_intfs(self.topo), run)
        self.topo = topo

    def _started(self) -> Started | None:
        """What LinkSetup and LossControl are handed of the started run (None before)."""
        if self.record is None or self.net is None:
            return None
        return Started(self.record.id, self.run_dir, self.net.get)

    def __enter__(self) -> Emulation:
        self._trap_signals()
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- start ---------------------------------------------------------------------------
    def start(self) -> None:
        self.caps.require()
        linkshape.check(self.topo, self.caps)
        xdp = self.port_plan.xdp_intfs(self.topo)  # refuses what the machine cannot give
        self.spread.resolve()
        self._lock.acquire(self.progress)
        killed = next(iter(killed_runs()), None)
        if killed is not None:  # else Mininet fails on the names it left, with a traceback
            raise RunFailed(f"run {killed.id} (pid {killed.pid}) ended without tearing its "
                            "network down (killed?) and left it here; remove it with "
                            "'sudo mcastlab cleanup', then start again")
        t0 = self._t0 = time.perf_counter()
        remove_ended_nft_tables()  # an ended run's loss chains would bind to our veths
        self.record = run_records.new_run(run_dir="", topology=self.topo.name)
        rec = self.record
        rec.run_dir = str(run_records.STATE_DIR / rec.id)
        rec.bridges, rec.interfaces = self.network_on(LOCAL)
        if self.host_cpu is not None:
            rec.cgroups = [f"cpu,cpuacct,cpuset:/{h.name}" for h in self.topo.hosts]
        rec.save()
        os.environ[run_records.ENV_RUN] = rec.id  # inherited by every process we start
        self.run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.run_dir.chmod(0o700)  # its API socket (the controller's) is root's alone
        files = self._host_files()
        for path, text in files.items():
            Path(path).write_text(text)
        if self.spread.cluster:
            self.spread.begin(rec.id, {r.name: self._order(r.name, files)
                                       for r in self.spread.remotes}, self.progress)
            xdp = self.port_plan.where_possible(xdp)

        topo_file = self.run_dir / "topology.json"
        self.topo.save(topo_file)
        if not self.standalone:
            self.progress("starting the controller")
            self.controller_config = self.spread.controller_config(self.controller_config,
                                                                   rec.id)
            self.controller = ControllerProcess(topo_file, self.run_dir / "controller.log",
                                                self.controller_config)
            self.controller.launch()  # it boots while the hosts and links are made
            rec.controller_pid, rec.ofp_port, rec.api_socket = (
                self.controller.pid, self.controller.ofp_port, str(self.controller.api))
            rec.save()
        if self.spread.cluster:
            self.spread.secure(rec.id, self.controller.ofp_port if self.controller else None)
        self.timings["controller_s"] = time.perf_counter() - t0

        kind = ("Linux kernel bridges" if self.linux_bridge else
                f"{self.caps.datapath} datapath, {self.host_ports} host ports")
        if self.spread.cluster:
            kind += f"; {len(self.spread.runners)} servers, {self.spread.tunnel} tunnels"
        self.progress(f"building {len(self.topo.hosts)} hosts, {len(self.topo.switches)} "
                      f"switches ({kind})")
        self._build_mininet(xdp)
        bridges_up = time.monotonic()
        if self.spread.cluster:
            rec.tunnels = self.spread.tunnel_record()
            rec.save()
        for server, intfs in self.spread.by_server(sorted(xdp), lambda i: i.split("-")[0]).items():
            check_xdp_ports(set(intfs), self.spread.runners[server])
        self.timings["mininet_s"] = time.perf_counter() - t0

        self.progress("configuring hosts and links")
        started = self._started()
        assert started is not None  # the record was made and Mininet built above
        self.links.configure(self.topo, xdp, started,
                             {s: self.network_on(s)[1] for s in self.spread.runners})
        priority.raise_switch()
        self.timings["configure_s"] = time.perf_counter() - t0

        if self.controller is not None:
            self.progress("waiting for the controller to program every switch")
            self.controller.wait_ready(self.ready_timeout)
        if self.linux_bridge:
            self._wait_snooping(bridges_up)
        self.timings["ready_s"] = time.perf_counter() - t0

    def _wait_snooping(self, since: float) -> None:
        """Kernel bridges forward without snooping (flood) for a query response interval
        after their querier appears, which was when they came up (`since`): wait it out."""
        querier = self.net.get(self.topo.switches[0].name)
        left = since + querier.snooping_delay() + 0.5 - time.monotonic()
        if left > 0:
            self.progress(f"waiting {left:.0f} s until the bridges snoop (the kernel floods "
                          "multicast for a query response interval after a querier appears)")
            time.sleep(left)

    def _host_files(self) -> dict[str, str]:
        """/etc/hosts and an empty resolv.conf, bind-mounted in every host: names resolve
        without DNS (no lookups leave the machine, and MPI start-up does not wait on them)."""
        lines = ["127.0.0.1 localhost"] + [f"{h.ip} {h.name}" for h in self.topo.hosts]
        return {str(self.run_dir / "hosts"): "\n".join(lines) + "\n",
                str(self.run_dir / "resolv.conf"): "# mcastlab: no DNS inside the testbed\n"}

    def control_address(self, name: str) -> str | None:
        """A host's address on the control network (testbed.emulation.ctlnet), None where the
        run has none (across servers)."""
        if not self.control:
            return None
        return ctlnet.address(self.topo.host(name).node_id)

    def network_on(self, server: str) -> tuple[list[str], list[str]]:
        """The bridges and root-namespace interfaces (switch ends, tunnels, the control
        network's bridge and veth ends) on a server."""
        bridges = [s.name for s in self.topo.switches if self.spread.server_of(s.name) == server]
        intfs = [intf_name(n, p) for link in self.topo.links
                 for n, p in ((link.node1, link.port1), (link.node2, link.port2))
                 if not self.topo.is_host(n) and self.spread.server_of(n) == server]
        if self.hub:
            intfs += [i for b in bridges for i in medium_intfs(b)]
        if self.lanes:
            intfs += [i for b in bridges for i in lane_intfs(b)]
        if self.control and server == LOCAL:
            bridges = [*bridges, ctlnet.BRIDGE]
            intfs += ctlnet.interfaces([h.name for h in self.topo.hosts])
        return bridges, intfs

    def _order(self, server: str, files: dict[str, str]) -> dict[str, Any]:
        """What the agent on another server records and writes there for this run."""
        assert self.record is not None
        bridges, intfs = self.network_on(server)
        return {"run": self.record.id, "topology": self.topo.name, "bridges": bridges,
                "interfaces": intfs, "files": files}

    def _build_mininet(self, xdp: set[str]) -> None:
        # Mininet loads only where a network is built
        from mininet.link import Link
        from mininet.log import setLogLevel
        from mininet.net import Mininet

        # testbed.emulation.hosts loads Mininet: only where a network is built
        from .hosts import (
            CPULimitedTestbedHost,
            HostShell,
            KernelBridge,
            TestbedHost,
            TestbedSwitch,
        )

        setLogLevel("error")
        assert self.record is not None
        TestbedSwitch.run_id = KernelBridge.run_id = self.record.id
        net = Mininet(topo=None, switch=TestbedSwitch, host=TestbedHost, link=Link,
                      controller=None, build=False, autoSetMacs=False, autoStaticArp=False,
                      waitConnected=False, ipBase=f"10.0.0.0/{PREFIX_LEN}")
        self.net = net
        for sw in self.topo.switches:
            if self.linux_bridge:  # the first switch queries (see KernelBridge)
                net.addSwitch(sw.name, cls=KernelBridge, dpid=f"{sw.dpid:016x}",
                              querier=sw is self.topo.switches[0],
                              options=self.bridge_options)
                continue
            net.addSwitch(sw.name, dpid=f"{sw.dpid:016x}", datapath=self.caps.datapath,
                          protocols="OpenFlow13", batch=True,
                          failMode=self.switch.fail_mode,
                          xdp_ports={i for i in xdp if i.startswith(f"{sw.name}-")},
                          **self.spread.node_params(sw.name, switch=True))
        limit = {} if self.host_cpu is None else {"cls": CPULimitedTestbedHost,
                                                   "cpu": self.host_cpu}
        for h in self.topo.hosts:
            net.addHost(h.name, ip=f"{h.ip}/{PREFIX_LEN}", mac=h.mac, **limit,
                        **self.spread.node_params(h.name, switch=False))
        for key, link in enumerate(self.topo.links, start=1):
            net.addLink(link.node1, link.node2, port1=link.port1, port2=link.port2,
                        intfName1=intf_name(link.node1, link.port1),
                        intfName2=intf_name(link.node2, link.port2),
                        **self.spread.link_params(link.node1, link.node2, key))
        net.build()
        if self.control:
            self._make_control_network()
        for h in self.topo.hosts:  # (a host on another server starts its own in its run)
            if isinstance(node := net.get(h.name), HostShell):
                node.workdir = str(self.run_dir)
        net.start()
        if self.controller is not None:
            self.controller.wait_listening()
            self.timings["controller_s"] = time.perf_counter() - self._t0
            self._connect_switches(self.controller.target)
        if self.ovs_snooping:
            for server, switches in self.spread.by_server(self.topo.switches,
                                                          lambda s: s.name).items():
                cmd = ["ovs-vsctl"]
                for sw in switches:
                    cmd += ["--", "set", "Bridge", sw.name, "mcast_snooping_enable=true",
                            "other_config:mcast-snooping-disable-flood-unregistered=true"]
                self.spread.runners[server].run(cmd)
        if self.hub:
            self._make_hubs()
        if self.lanes:
            self._make_lanes()

    def _make_control_network(self) -> None:
        """The control network's bridge and a veth into every host (their addresses come
        with the hosts' configuration, LinkSetup.configure)."""
        assert self.record is not None
        self.spread.runners[LOCAL].run(
            ["ip", "-batch", "-"], timeout=60,
            input=ctlnet.bridge_batch(self.record.id, [(h.name, self.net.get(h.name).pid)
                                                       for h in self.topo.hosts], BRIDGE_MARK))
        ipv6 = Path(f"/proc/sys/net/ipv6/conf/{ctlnet.BRIDGE}/disable_ipv6")
        if ipv6.exists():
            ipv6.write_text("1")

    def _connect_switches(self, target: str) -> None:
        """Every switch to its controller, one ovs-vsctl per server. (Mininet's own
        controller objects make a target of protocol:IP:port, which a Unix socket has not.)"""
        for server, switches in self.spread.by_server(self.topo.switches,
                                                      lambda s: s.name).items():
            cmd = ["ovs-vsctl"]
            for sw in switches:
                cmd += ["--", "set-controller", sw.name, target]
            self.spread.runners[server].run(cmd)

    def _make_loop(self, cmds: list[list[str]], tc: str) -> None:
        """One switch's veth loop (a hub's medium, a range lane) and its shaping."""
        runner = self.spread.runners[LOCAL]
        for cmd in cmds:
            runner.run(cmd, timeout=30)
        if tc:
            runner.run(["tc", "-batch", "-"], input=tc, timeout=30)

    def _make_hubs(self) -> None:
        """Each switch's medium loop, its shaping and the flows that make it a hub."""
        for sw in self.topo.switches:
            cmds, tc, flows = hub_setup(self.topo, sw.name)
            self._make_loop(cmds, tc)
            self.spread.runners[LOCAL].run(["ovs-ofctl", "-O", "OpenFlow13", "add-flows",
                                            sw.name, "-"], input=flows, timeout=30)

    def _make_lanes(self) -> None:
        """Each switch's range lane and its shaping (the controller's flows use it)."""
        for sw in self.topo.switches:
            self._make_loop(*lane_setup(self.topo, sw.name))

    # ---- teardown ---------------------------------------------------------------------------
    def stop(self) -> None:
        """Idempotent teardown; Ctrl-C during it is ignored so it always completes."""
        if self.record is None:
            self._lock.release()
            self._restore_signals()
            return
        with _signals_ignored():
            rec = self.record
            # Jobs first (they may still be talking), then the controller, then every marked
            # process, host shells included: that frees the namespaces and the veths ending
            # in them. Mininet's net.stop() is not used: it talks to each node's shell and
            # hangs when one is gone; the record says all there is to remove.
            run_records.kill_marked(rec.id, where=lambda pid: bool(run_records.job_of(pid)))
            self.spread.end()  # the other servers tear their part down
            if self.controller is not None:
                self.controller.stop()
            priority.restore_switch()
            cleanup_run(rec)
            if self.net is not None:
                _close_ptys(self.net)
                self.net = None
            os.environ.pop(run_records.ENV_RUN, None)
            self.record = None
            self._lock.release()
        self._restore_signals()

    def _trap_signals(self) -> None:
        """SIGTERM/SIGHUP unwind like Ctrl-C, so the `with` block tears down. Ctrl-C itself
        raises KeyboardInterrupt even when started from a shell's background job, which
        hands its children SIGINT ignored (Python then keeps it ignored)."""
        def raise_exit(signum: int, _frame: object) -> None:
            raise SystemExit(128 + signum)

        with contextlib.suppress(ValueError):  # only possible in the main thread
            for sig in (signal.SIGTERM, signal.SIGHUP):
                self._old_handlers[sig] = signal.signal(sig, raise_exit)
            self._old_handlers[signal.SIGINT] = signal.signal(signal.SIGINT,
                                                              signal.default_int_handler)

    def _restore_signals(self) -> None:
        for sig, handler in self._old_handlers.items():
            signal.signal(sig, handler)
        self._old_handlers.clear()



def _close_ptys(net: Any) -> None:
    """Release the pseudo-terminals Mininet opened to talk to each node's shell."""
    for node in net.values():
        with contextlib.suppress(Exception):
            node.stdin.close()
        with contextlib.suppress(Exception):
            os.close(node.slave)


@contextlib.contextmanager
def _signals_ignored() -> Iterator[None]:
    try:
        old = {s: signal.signal(s, signal.SIG_IGN)
               for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
