"""Which server of a cluster every switch and host of a topology runs on (pure).

A host always runs beside its switch: its link is a veth pair whose switch end must be a
local port of that switch (AF_XDP needs a local peer), and host links are the ones that
carry every broadcast's first and last hop. So only switches are placed; a link between
switches on two servers becomes a tunnel (testbed.cluster.nodes).

    blocks      (default) switches with hosts, in host order, cut into runs of about equal
                host counts, one run per server: a fat tree's or BMIN's pods, a mesh's rows
                stay together; every hostless switch (a tree's upper levels) then goes where
                most of its neighbours are (ties: the server with fewer nodes)
    switch-bin  Mininet Cluster Edition's SwitchBinPlacer: switches in dpid order into equal
                bins, hosts with their switch
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from topologies.model import Topology

from ..specs.cluster import METHODS


@dataclass(frozen=True)
class Placement:
    """node name -> server name, and the links (node pairs) that cross servers."""

    servers: tuple[str, ...]
    server_of: dict[str, str]
    cut: tuple[tuple[str, str], ...]

    def nodes_on(self, server: str) -> list[str]:
        return [n for n, s in self.server_of.items() if s == server]

    def hosts_per_server(self, topo: Topology) -> dict[str, int]:
        count = Counter(self.server_of[h.name] for h in topo.hosts)
        return {s: count.get(s, 0) for s in self.servers}


def place(topo: Topology, servers: list[str] | tuple[str, ...],
          method: str = "blocks") -> Placement:
    """The placement of `topo` on `servers` (the first is the one the run starts on)."""
    if not servers:
        raise ValueError("a cluster needs at least one server")
    if len(set(servers)) != len(servers):
        raise ValueError(f"servers named twice: {', '.join(servers)}")
    if method not in METHODS:
        raise ValueError(f"unknown placement {method!r}; choose from {', '.join(METHODS)}")
    switch_server = (_blocks if method == "blocks" else _bins)(topo, list(servers))
    server_of = dict(switch_server)
    for h in topo.hosts:
        server_of[h.name] = switch_server[topo.host_attachment(h)[0]]
    idle = [s for s in servers if s not in switch_server.values()]
    if idle:  # held for the whole run, and running nothing
        raise ValueError(f"{topo.name} has {len(topo.switches)} switch(es), and a host runs "
                         f"beside its switch: {', '.join(idle)} would run nothing; give "
                         "fewer servers or a network of more switches")
    cut = tuple(sorted((a, b) for a, b in topo.graph().edges
                       if server_of[a] != server_of[b]))
    return Placement(tuple(servers), server_of, cut)


def _hosts_of(topo: Topology) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {s.name: [] for s in topo.switches}
    for h in topo.hosts:
        out[topo.host_attachment(h)[0]].append(h.node_id)
    return out


def _bins(topo: Topology, servers: list[str]) -> dict[str, str]:
    per = -(-len(topo.switches) // len(servers))
    return {s.name: servers[i // per] for i, s in enumerate(topo.switches)}


def _blocks(topo: Topology, servers: list[str]) -> dict[str, str]:
    hosts = _hosts_of(topo)
    edge = sorted((s for s in hosts if hosts[s]), key=lambda s: min(hosts[s]))
    total = sum(len(hosts[s]) for s in edge)
    out: dict[str, str] = {}
    done = 0
    for s in edge:  # the server whose share of the hosts this switch's first host falls in
        out[s] = servers[min(len(servers) - 1, done * len(servers) // max(total, 1))]
        done += len(hosts[s])
    load = Counter(out.values())
    graph = topo.graph()

    def placed_near(name: str) -> Counter[str]:
        return Counter(out[n] for n in graph.neighbors(name) if n in out)

    todo = [s.name for s in topo.switches if s.name not in out]
    while todo:  # hostless switches, those with the most placed neighbours first
        best = max(todo, key=lambda n: sum(placed_near(n).values()))
        near = placed_near(best)
        server = min(servers, key=lambda s: (-near.get(s, 0), load[s], servers.index(s)))
        out[best] = server
        load[server] += 1
        todo.remove(best)
    return out
