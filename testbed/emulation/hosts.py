"""Mininet host and switch classes of the testbed.

Each host gets its own UTS namespace (hostname = host name: MPICH tells ranks apart by
hostname) and processes started in it with ``popen`` enter its network, mount and UTS
namespaces through ``nsenter`` (Mininet's ``mnexec -a`` would skip UTS).
"""

from __future__ import annotations

from typing import Any

from mininet.node import CPULimitedHost, Host, OVSSwitch, RemoteController

from ..errors import RunFailed
from .cleanup import BRIDGE_MARK
from .controller_proc import tcp_listening
from .environment import AFXDP_PORT


class TestbedHost(Host):
    __test__ = False  # not a pytest class

    def _popen(self, cmd: list[str], **params: Any) -> Any:
        # Mininet starts the host shell as: mnexec -cdn env PS1=.. bash ... mininet:<name>.
        # unshare and sh exec in place, so the PID Mininet records stays the shell's.
        if cmd and cmd[0] == "mnexec" and f"mininet:{self.name}" in cmd:
            cmd = [cmd[0], cmd[1], "unshare", "--uts", "sh", "-c",
                   'hostname "$0" && exec "$@"', self.name, *cmd[2:]]
        return super()._popen(cmd, **params)

    def cgroup_spec(self) -> str:
        """The host's cgroup as cgexec names it; empty: the host has none of its own."""
        return ""

    def nsenter(self) -> list[str]:
        """Command prefix that runs a command inside this host."""
        return ["nsenter", "-t", str(self.pid), "-n", "-m", "-u", "--"]

    def popen(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("mncmd", self.nsenter())
        return super().popen(*args, **kwargs)


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


class ListeningController(RemoteController):
    """A remote controller checked without connecting to it. Mininet's check (inside
    `addController`) runs `echo A | telnet IP PORT` in a shell and decodes the answer as
    UTF-8; a controller quick enough to send its binary OpenFlow hello first made that raise
    UnicodeDecodeError (a race: any run could hit it). The listening socket is looked up in
    /proc/net/tcp instead."""

    def checkListening(self) -> None:
        if not tcp_listening(self.port, self.ip):
            self.terminate()  # the shell Mininet started for this node
            raise RunFailed(f"no controller listens on {self.ip}:{self.port}")
