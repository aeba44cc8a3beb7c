"""Mininet nodes and links on the servers of a cluster: Mininet Cluster Edition's RemoteMixin,
RemoteOVSSwitch and RemoteLink (mininet/examples/cluster.py) with four changes:

- no sudo: Cluster Edition puts `sudo -E` before every command and `sudo -u USER` before
  ssh; the testbed runs as root, and these machines have no sudo at all;
- ssh through the server's runner (testbed.cluster.server): batch mode, one master
  connection per server (Cluster Edition opens one per node), the cluster's ssh config;
- the run's marks on every remote command (ssh passes no environment; the agent on that
  server finds and stops the run's processes by them), every word quoted for the remote
  shell (Cluster Edition joins words with spaces);
- a tunnel end made by one `ip -batch` on its server (Cluster Edition's RemoteGRELink runs
  five or six ssh commands per end), as gretap or, where the kernel has no GRE (these
  machines), VXLAN: both carry Ethernet frames and cost 50 bytes of each 1500 (MTU 1450).

A node on the launching server is the same class with a LocalServer: no ssh at all.
"""

from __future__ import annotations

import os
from typing import Any

from mininet.examples.cluster import RemoteLink, RemoteMixin, RemoteOVSSwitch
from mininet.node import Host

from ..emulation import run_records
from ..emulation.hosts import HostShell, TestbedSwitch
from ..emulation.servers import LocalServer
from .server import RemoteServer, remote_command
from .tunnels import tunnel_batch


class ClusterNode(RemoteMixin):
    """A node on the server `runner` names; every remote command carries the run's marks."""

    run_id = ""

    def __init__(self, name: str, runner: LocalServer, **params: Any) -> None:
        self.runner = runner
        remote = isinstance(runner, RemoteServer)
        super().__init__(name, server=runner.name if remote else "localhost",
                         user=runner.server.user, serverIP=runner.name, **params)

    def _popen(self, cmd: Any, sudo: bool = True, tt: bool = True, **params: Any) -> Any:
        del sudo  # root on every server
        if isinstance(cmd, str):
            cmd = cmd.split()
        if self.isRemote:
            assert isinstance(self.runner, RemoteServer)
            env = params.pop("env", None) or {}
            marks = {run_records.ENV_RUN: self.run_id, **{
                k: v for k, v in env.items() if os.environ.get(k) != v}}
            ssh = self.runner.ssh()  # -q: no banners or warnings in the node's output
            cmd = [ssh[0], "-q", *ssh[1:-1], *(["-tt"] if tt else []), ssh[-1],
                   remote_command(cmd, marks)]
            params.update(preexec_fn=os.setpgrp)  # Ctrl-C here must not cut the session
        return super(RemoteMixin, self)._popen(cmd, **params)


class ClusterHost(HostShell, ClusterNode, Host):
    """A testbed host (own UTS namespace, entered with nsenter) on any server."""


class ClusterSwitch(TestbedSwitch, ClusterNode, RemoteOVSSwitch):
    """A testbed OVS bridge on any server (started in one ovs-vsctl per server)."""


class TunnelLink(RemoteLink):
    """A link between switches on two servers: a tunnel between the servers' addresses
    (`ip1`, `ip2`), `key` telling it from the run's other tunnels; on one server, a veth
    pair as always."""

    tunnel: Any  # RemoteLink's: what makeTunnel returned, None once stopped

    def __init__(self, node1: Any, node2: Any, *, kind: str, key: int, ip1: str, ip2: str,
                 **params: Any) -> None:
        self.kind, self.key, self.ips = kind, key, (ip1, ip2)
        super().__init__(node1, node2, **params)

    def makeTunnel(self, node1: Any, node2: Any, intfname1: str, intfname2: str,
                   addr1: str | None = None, addr2: str | None = None) -> bool:
        ip1, ip2 = self.ips if node1 is self.node1 else self.ips[::-1]
        for node, name, local, remote, mac in ((node1, intfname1, ip1, ip2, addr1),
                                               (node2, intfname2, ip2, ip1, addr2)):
            node.runner.run(["ip", "-batch", "-"],
                            input=tunnel_batch(self.kind, name, local, remote, self.key, mac))
        return True

    def stop(self) -> None:
        if self.tunnel:
            self.intf1.delete()
            self.intf2.delete()
        else:
            super().stop()
        self.tunnel = None
