"""Mininet host and switch classes of the testbed.

Each host gets its own UTS namespace (hostname = host name: MPICH tells ranks apart by
hostname) and processes started in it with ``popen`` enter its network, mount and UTS
namespaces through ``nsenter`` (Mininet's ``mnexec -a`` would skip UTS).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mininet.node import CPULimitedHost, Host, OVSSwitch, Switch

from .cleanup import BRIDGE_MARK
from .environment import AFXDP_PORT
from .shell import run


class HostShell:
    """What makes a Mininet host a testbed host (mixed in before Mininet's host class)."""

    name: str
    pid: int
    # where its processes start (the run's own directory, set by the emulation): never the
    # directory root was started from
    workdir: str | None = None

    def _popen(self, cmd: list[str], *args: Any, **params: Any) -> Any:
        # Mininet starts the host shell as: mnexec -cdn env PS1=.. bash ... mininet:<name>.
        # unshare and sh exec in place, so the PID Mininet records stays the shell's.
        if cmd and cmd[0] == "mnexec" and f"mininet:{self.name}" in cmd:
            cmd = [cmd[0], cmd[1], "unshare", "--uts", "sh", "-c",
                   'hostname "$0" && exec "$@"', self.name, *cmd[2:]]
        # (a mixin: the Mininet class after it in the MRO has _popen and popen)
        return super()._popen(cmd, *args, **params)  # type: ignore[misc]

    def cgroup_spec(self) -> str:
        """The host's cgroup as cgexec names it; empty: the host has none of its own."""
        return ""

    def nsenter(self) -> list[str]:
        """Command prefix that runs a command inside this host."""
        return ["nsenter", "-t", str(self.pid), "-n", "-m", "-u", "--"]

    def popen(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("mncmd", self.nsenter())
        if self.workdir:
            kwargs.setdefault("cwd", self.workdir)
        return super().popen(*args, **kwargs)  # type: ignore[misc]


class TestbedHost(HostShell, Host):
    __test__ = False  # not a pytest class


class CPULimitedTestbedHost(TestbedHost, CPULimitedHost):
    """A testbed host whose processes share a CPU budget: Mininet's CPULimitedHost (a cgroup
    per host with a CFS quota, ``addHost(..., cpu=fraction of the machine)``). Processes
    entered from outside with nsenter join the host's cgroup through cgexec."""

    def cgroup_spec(self) -> str:
        return f"cpu,cpuacct:/{self.name}"

    def nsenter(self) -> list[str]:
        return ["cgexec", "-g", self.cgroup_spec(), *super().nsenter()]


class TestbedSwitch(OVSSwitch):
    """OVS bridge marked with the run id in its external_ids, so cleanup can find it;
    `xdp_ports` (interface names) become AF_XDP ports."""

    run_id = ""

    def __init__(self, name: str, xdp_ports: set[str] | frozenset[str] = frozenset(),
                 **params: Any) -> None:
        super().__init__(name, **params)
        self.xdp_ports = set(xdp_ports)

    def intfOpts(self, intf: Any) -> str:
        opts = super().intfOpts(intf)
        if str(intf) not in self.xdp_ports:
            return opts
        return (opts or f" -- set Interface {intf}") + f" type={AFXDP_PORT}"

    def bridgeOpts(self) -> str:
        return super().bridgeOpts() + f" external-ids:{BRIDGE_MARK}={self.run_id}"


class KernelBridge(Switch):
    """A Linux kernel bridge doing its own IGMP snooping, a standalone switch without any
    controller (Emulation(switch="linux-bridge")). Mininet's own LinuxBridge (mininet.nodelib)
    cannot be used: it drives brctl, of bridge-utils, which is not installed here (and is
    deprecated); this one makes the bridge with iproute2 alone, which names the multicast
    options too.

    Every bridge snoops IGMPv3 (`mcast_snooping 1 mcast_igmp_version 3`); the one made with
    `querier=True` also queries (`mcast_querier 1`). One querier per network: bridges that
    all query (from 0.0.0.0, having no address) elect each other away again every querier
    interval (255 s), and each election makes the loser forward without snooping for a
    query response interval. The querier is brought up last (`batchStartup`): its first
    query then reaches every other bridge, which from then on knows a querier exists.
    Timers stay at the kernel's defaults unless `options` (ip-link bridge options, e.g.
    {"mcast_last_member_interval": "50"}, centiseconds) say otherwise.

    Unregistered multicast: the ports keep the kernel's `mcast_flood on`. Once a querier
    exists, the kernel sends a group nobody joined to multicast router ports only (ports a
    query came in on; no host queries here), so it reaches no host, as OVS's
    disable-flood-unregistered and the controller do; link-local groups (224.0.0.0/24)
    still reach every host, as RFC 4541 asks and both of those do. `mcast_flood off` would
    drop link-local groups, and forward nothing at all while no querier exists. For a
    query response interval (10 s) after a querier appears the kernel forwards without
    snooping (floods): Emulation waits that out before the network counts as up
    (`snooping_delay`). The name carries the run mark in its alias, so cleanup finds it."""

    run_id = ""

    def __init__(self, name: str, querier: bool = True,
                 options: dict[str, str] | None = None, **params: Any) -> None:
        super().__init__(name, **params)
        self.options = {"mcast_snooping": "1", "mcast_querier": "1" if querier else "0",
                        "mcast_igmp_version": "3", **(options or {})}
        self.querier = self.options["mcast_querier"] == "1"

    def bridge_ports(self) -> list[str]:
        """The bridge's ports (Mininet also lists `lo` as a switch's control interface)."""
        return [i.name for i in self.intfList() if i.name.startswith(f"{self.name}-")]

    def start(self, _controllers: list[Any]) -> None:
        """Make the bridge, marked, IPv6 off (no router solicitations or MLD reports from
        it), with its ports; `batchStartup` brings it up."""
        # mcast_querier last, on its own: turning it on starts the time the kernel forwards
        # without snooping, at the query response interval of that moment (made in one
        # command with a shorter interval, the kernel took the default 10 s and
        # snooping_delay, reading the shorter one, waited too little)
        opts = " ".join(f"{k} {v}" for k, v in self.options.items() if k != "mcast_querier")
        run(["ip", "-batch", "-"], input=f"link add name {self.name} type bridge {opts}\n"
            f"link set {self.name} type bridge mcast_querier {self.options['mcast_querier']}\n"
            f"link set {self.name} alias {BRIDGE_MARK}={self.run_id}\n")
        ipv6 = Path(f"/proc/sys/net/ipv6/conf/{self.name}/disable_ipv6")
        if ipv6.exists():
            ipv6.write_text("1")
        run(["ip", "-batch", "-"], input="".join(
            f"link set {p} master {self.name}\nlink set {p} up\n" for p in self.bridge_ports()))

    @classmethod
    def batchStartup(cls, switches: list[KernelBridge]) -> list[KernelBridge]:
        """Up, the querier last (Mininet calls this once start() made every bridge)."""
        order = sorted(switches, key=lambda s: s.querier)
        run(["ip", "-batch", "-"], input="".join(f"link set {s.name} up\n" for s in order))
        return switches

    def snooping_delay(self) -> float:
        """Seconds the kernel forwards without snooping once a querier appears (its query
        response interval)."""
        out = run(["ip", "-d", "-j", "link", "show", self.name]).stdout
        info = json.loads(out)[0].get("linkinfo", {}).get("info_data", {})
        return int(info.get("mcast_query_response_intvl", 1000)) / 100

    def stop(self, deleteIntfs: bool = True) -> None:
        run(["ip", "link", "del", self.name], check=False)
        super().stop(deleteIntfs)
