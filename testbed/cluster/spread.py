"""How one run's network lies on servers: which server every node is on, the runner for its
root-namespace commands, the servers' addresses (the tunnels' ends and the controller's),
and the holds on the other servers. Spread implements the interface the emulation calls
(testbed.emulation.servers.OneMachine, this machine alone) and is handed to it:
``Emulation(topo, cluster=across(topo, spec))``.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
from collections.abc import Callable
from typing import Any

from controller.config import ControllerConfig
from topologies import Topology

from ..emulation import shell
from ..emulation.servers import OneMachine
from ..errors import CapabilityError, RunFailed, UsageError
from ..specs.cluster import LOCAL, ClusterSpec
from . import switch_placement as placing
from .agent import gretap_works
from .guard import guard_script
from .hold import Hold
from .server import RemoteServer, servers
from .switch_placement import Placement
from .tls import RunPki, make_pki, set_switch_tls
from .tunnel_ids import TunnelIds
from .tunnels import TUNNEL_MTU


class Spread(OneMachine):
    """`topo` placed on the servers of `spec` (without one, this machine alone)."""

    def __init__(self, topo: Topology, spec: ClusterSpec | None = None) -> None:
        super().__init__()
        self.topo, self.spec = topo, spec
        self._placement: Placement | None = None
        if spec is not None:
            self.runners = {r.name: r for r in servers(spec)}
        self.holds: list[Hold] = []
        self.pki: RunPki | None = None  # OpenFlow over TLS (with a controller)
        self.tunnel_ids = TunnelIds()  # the tunnels' VNIs (gretap keys), random per link

    # ---- where things are -------------------------------------------------------------------
    @property
    def cluster(self) -> bool:
        return self.spec is not None

    @property
    def placement(self) -> Placement | None:
        """Which server every node runs on (None on one machine)."""
        self.place()
        return self._placement

    def place(self) -> None:
        """Place the nodes on the servers, once, refusing a placement that cannot be. The
        emulation asks after it has refused what it cannot run at all, as it did when it
        placed them itself."""
        if self.spec is None or self._placement is not None:
            return
        try:
            self._placement = placing.place(self.topo, self.spec.names, self.spec.placement)
        except ValueError as exc:
            raise UsageError(f"cluster placement: {exc}") from None

    @property
    def host_mtu(self) -> int | None:
        if not self.cluster:
            return None
        return TUNNEL_MTU

    def server_of(self, node: str) -> str:
        return self.placement.server_of[node] if self.placement else LOCAL

    def group_slice(self, node: str) -> str | None:
        """"i/n": `node`'s server is the i-th of n, and its communicators lease multicast
        groups from the i-th part of the pool (collectives.ipmc.groups), so that leases,
        unique on each server, are unique across the cluster. None on one machine."""
        if not self.cluster:
            return None
        return f"{list(self.runners).index(self.server_of(node))}/{len(self.runners)}"

    @property
    def remotes(self) -> list[RemoteServer]:
        return [r for r in self.runners.values() if isinstance(r, RemoteServer)]

    # ---- a run's life -------------------------------------------------------------------
    def resolve(self) -> None:
        """Every server's address: another server's as ssh reaches it, this one's as the
        route toward the first other server leaves (the interface of the cluster's network)."""
        if not self.cluster:
            return
        for r in self.remotes:
            self.addresses[r.name] = address_of(r)
        first = self.addresses[self.remotes[0].name]
        out = shell.run(["ip", "-o", "route", "get", first]).stdout.split()
        if "src" not in out:
            raise RunFailed(f"no route from this machine toward {self.remotes[0].name} "
                            f"({first})")
        self.addresses[LOCAL] = out[out.index("src") + 1]

    def controller_config(self, config: ControllerConfig, run_id: str) -> ControllerConfig:
        """On one server the switches reach the controller at a Unix socket in the run's
        sockets folder (which only root enters). Across servers it listens on the cluster's
        address, over TLS with the run's own certificates (testbed.cluster.tls), and admits
        the servers' switches only (every server's address, this one's included: its own
        switches connect to that address too), all of them within its connection cap."""
        if not self.cluster:
            return super().controller_config(config, run_id)

        assert self.spec is not None
        self.pki = make_pki(run_id)
        listen = self.spec.listen or self.addresses[LOCAL]
        # every switch connects over TCP: the cap must not keep one out
        cap = max(config.max_connections, len(self.topo.switches) + config.max_handshakes)
        return dataclasses.replace(config, listen=listen, max_connections=cap,
                                   allow=tuple(sorted(set(self.addresses.values()))),
                                   tls_key=str(self.pki.key("controller")),
                                   tls_cert=str(self.pki.cert("controller")),
                                   tls_ca=str(self.pki.ca))

    def begin(self, run_id: str, orders: dict[str, dict[str, Any]],
              progress: Callable[[str], None]) -> None:
        """Take a hold on every other server (its run lock, record and files), then choose
        the tunnel kind: gretap when asked, or when every server's kernel has it (auto).
        The nodes built from here on carry the run's mark."""
        # testbed.cluster.nodes loads Mininet: only where a network is built
        from .nodes import ClusterNode

        ClusterNode.run_id = run_id
        for r in self.remotes:
            progress(f"holding {r.server} for the run")
            self.holds.append(Hold(r, orders[r.name], progress))
        assert self.spec is not None
        kind = self.spec.tunnel
        if kind == "auto":
            everywhere = gretap_works() and all(h.ready.get("gretap") for h in self.holds)
            kind = "gretap" if everywhere else "vxlan"
        self.tunnel = kind

    def secure(self, run_id: str, openflow_port: int | None) -> None:
        """Before any switch or tunnel exists: the run's tunnel guard on every server
        (testbed.cluster.guard: the tunnels and the controller's OpenFlow port reached only
        from the servers, and there only from root's sockets or the kernel), and every
        server's switches given the run's TLS certificate (with a controller)."""
        peers = sorted(set(self.addresses.values()))
        for name, runner in self.runners.items():
            script = guard_script(run_id, peers, self.tunnel, openflow_port,
                                  controller_here=name == LOCAL)
            res = runner.run(["nft", "-f", "-"], input=script, check=False)
            if res.returncode != 0:
                why = " ".join((res.stderr or res.stdout).split())[:300]
                raise CapabilityError(f"nftables refused the tunnel guard on {name} (the "
                                      "inet family's input and output hooks, meta skuid; "
                                      f"Debian's nftables): {why}")
            if self.pki is not None:
                set_switch_tls(runner, self.pki, remote=name != LOCAL)

    def tunnel_record(self) -> dict[str, int]:
        return self.tunnel_ids.record()

    def lacking_afxdp(self) -> list[str]:
        """The other servers that cannot open AF_XDP ports (their holds say so)."""
        return [h.server.name for h in self.holds if not h.ready.get("afxdp")]

    def end(self) -> None:
        while self.holds:
            self.holds.pop().release()

    # ---- Mininet's parameters ---------------------------------------------------------------
    def node_params(self, name: str, switch: bool) -> dict[str, Any]:
        if not self.cluster:
            return {}
        # testbed.cluster.nodes loads Mininet: only where a network is built
        from .nodes import ClusterHost, ClusterSwitch

        return {"cls": ClusterSwitch if switch else ClusterHost, "runner": self.runner(name)}

    def link_params(self, node1: str, node2: str, key: int) -> dict[str, Any]:
        """A link's Mininet parameters: a tunnel when it crosses servers, its VNI (or gretap
        key) drawn at random for link number `key` (testbed.cluster.tunnel_ids)."""
        s1, s2 = self.server_of(node1), self.server_of(node2)
        if s1 == s2:
            return {}
        # testbed.cluster.nodes loads Mininet: only where a network is built
        from .nodes import TunnelLink

        return {"cls": TunnelLink, "kind": self.tunnel, "key": self.tunnel_ids.of(key),
                "ip1": self.addresses[s1], "ip2": self.addresses[s2]}


def address_of(remote: RemoteServer) -> str:
    """The IPv4 address ssh reaches `remote` at (its ssh config's HostName, resolved)."""
    cfg = ["-F", remote.ssh_config] if remote.ssh_config else []
    out = shell.run(["ssh", "-G", *cfg, f"{remote.server.user}@{remote.server.host}"]).stdout
    host = next((line.split()[1] for line in out.splitlines()
                 if line.startswith("hostname ")), remote.server.host)
    try:
        return str(ipaddress.IPv4Address(host))
    except ValueError:
        pass
    try:
        return socket.gethostbyname(host)
    except OSError as exc:
        raise RunFailed(f"cannot resolve {remote.server} ({host}): {exc}") from None


def across(topo: Topology, spec: ClusterSpec | None) -> Spread | None:
    """`topo` across the servers of `spec`, for ``Emulation(topo, cluster=...)``; None (this
    machine alone) without a spec."""
    return None if spec is None else Spread(topo, spec)
