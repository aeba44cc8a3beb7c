"""Structural checks run by the Topology constructor; each failure is one TopologyError."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from topologies.errors import TopologyError

if TYPE_CHECKING:
    from topologies.model import Host, Link, Switch

HOST_PORT = 0
"""A host's end of its link: its eth0."""


def check_nodes(name: str, hosts: Sequence[Host], switches: Sequence[Switch]) -> None:
    """Unique names, IPs and MACs, host ids exactly 0..N-1 (sorted by id), at least one host."""
    if not hosts:
        raise TopologyError(f"topology {name!r} has no hosts")
    seen: set[str] = set()
    nodes: list[Host | Switch] = [*hosts, *switches]
    for node in nodes:
        if node.name in seen:
            raise TopologyError(f"topology {name!r} has duplicate node name {node.name!r}")
        seen.add(node.name)
    for attr in ("ip", "mac"):
        owner: dict[str, str] = {}
        for h in hosts:
            other = owner.setdefault(getattr(h, attr), h.name)
            if other != h.name:
                raise TopologyError(f"topology {name!r}: hosts {other} and {h.name} share "
                                    f"{attr} {getattr(h, attr)}")
    for expected, host in enumerate(hosts):
        if host.node_id != expected:
            raise TopologyError(
                f"host ids must be exactly 0..{len(hosts) - 1}, but h{expected} is missing "
                f"(highest is {hosts[-1].name})")


def _describe(index: int, link: Link) -> str:
    return f"link {index + 1} ({link.node1}-{link.node2})"


def check_links(hosts: Mapping[str, Host], switches: Mapping[str, Switch],
                links: Iterable[Link]) -> dict[str, dict[int, str]]:
    """Check every link and return node -> {port -> neighbour} for all nodes.

    Links are numbered from 1 in messages, in the order given (a file's [[links]] order).
    """
    ports: dict[str, dict[int, str]] = {node: {} for node in (*hosts, *switches)}
    pairs: set[frozenset[str]] = set()
    for index, link in enumerate(links):
        where = _describe(index, link)
        for node in (link.node1, link.node2):
            if node not in ports:
                raise TopologyError(f"{where} names unknown node {node!r}")
        if link.node1 == link.node2:
            raise TopologyError(f"{where} connects {link.node1} to itself")
        if link.node1 in hosts and link.node2 in hosts:
            raise TopologyError(f"{where} connects two hosts; a host must plug into a switch")
        pair = frozenset((link.node1, link.node2))
        if pair in pairs:
            raise TopologyError(f"{where} duplicates an earlier link between the same nodes; "
                                "parallel links are not supported")
        pairs.add(pair)
        for node, port, other in ((link.node1, link.port1, link.node2),
                                  (link.node2, link.port2, link.node1)):
            taken = ports[node]
            if node in hosts:
                if port != HOST_PORT:
                    raise TopologyError(f"{where} gives host {node} port {port}; "
                                        "a host's end is always port 0")
                if taken:
                    raise TopologyError(f"host {node} has more than one link ({where} is "
                                        "another); a host has exactly one link")
            elif port == HOST_PORT:
                raise TopologyError(f"{where} gives switch {node} port 0; "
                                    "switch ports start at 1")
            elif port in taken:
                raise TopologyError(f"{where} reuses port {port} of {node}, which already "
                                    f"leads to {taken[port]}")
            taken[port] = other
    for host in hosts:
        if not ports[host]:
            raise TopologyError(f"host {host} has no link; every host needs exactly one link "
                                "to a switch")
    return {node: dict(sorted(p.items())) for node, p in ports.items()}


def distances(ports: Mapping[str, Mapping[int, str]], source: str) -> dict[str, int]:
    """Hops from `source` to every node it reaches, breadth first over `ports` (node ->
    port -> neighbour, both ends of every link). Plain Python: networkx, which Topology.graph
    gives for drawing and placement, took a quarter second to import at every command's
    start and at the controller's."""
    dist = {source: 0}
    todo = deque([source])
    while todo:
        node = todo.popleft()
        for nb in ports[node].values():
            if nb not in dist:
                dist[nb] = dist[node] + 1
                todo.append(nb)
    return dist


def check_connected(name: str, ports: Mapping[str, Mapping[int, str]],
                    order: Sequence[str]) -> None:
    """Every node reachable from the first in `order`; names the first that is not."""
    reached = distances(ports, order[0])
    for node in order:
        if node not in reached:
            raise TopologyError(
                f"topology {name!r} is not connected: {node} cannot be reached from {order[0]}")
