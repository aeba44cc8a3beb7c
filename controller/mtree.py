"""Multicast distribution trees over a topology (pure: no OpenFlow).

For one (group, source host) the controller installs, at every switch of the tree, an
OpenFlow group of type ALL with one bucket per output port listed here. The tree is grown
from the topology's own unicast routes, so multicast follows the same links as unicast:

- Members are added in node-id order. Each member's route starts at the source's switch;
  only the part after the route's LAST node already on the tree is attached. Every new
  switch therefore gets exactly one parent: the result is a tree, each member gets exactly
  one copy, and no switch sees the datagram twice. For routings whose routes from one source
  are prefix-closed (XY on meshes and tori) the tree paths are exactly the unicast routes.
- 'updown' (fat tree, BMIN, levelled trees) gets the hardware-multicast shape: a single
  trunk climbs from the source to the lowest switch on its route whose subtree holds the
  source and every member (the nearest common ancestor), and all further replication goes
  downwards. Where the members' routes reach several such switches (the spines of a fat
  tree), the source's node id picks one, so that one group's sources spread over them. A
  switch on the trunk may also send copies down to members in its own subtree: in a k-ary
  n-tree the only down path from the top to them runs through that switch, which must not
  receive the datagram twice.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from topologies import Topology

__all__ = ["deliveries", "distribution_tree", "tree_edges"]

Tree = dict[str, frozenset[int]]


@dataclass(frozen=True)
class _Levels:
    """What 'updown' trees need from a topology, computed once per Topology instance."""

    below: Mapping[str, frozenset[str]]  # switch -> hosts reachable by only going down
    next_hops: Mapping[str, Mapping[str, int]]


# Topology is unhashable (mutable params), so no WeakKeyDictionary: key on id() and drop
# the entry when the topology is collected, so a new object reusing the id never hits it.
_LEVELS: dict[int, _Levels] = {}


def _levels(topo: Topology) -> _Levels:
    key = id(topo)
    cached = _LEVELS.get(key)
    if cached is None:
        level = {s.name: s.attrs["level"] for s in topo.switches}
        below: dict[str, frozenset[str]] = {}
        for switch in sorted(level, key=level.__getitem__):
            hosts: set[str] = set()
            for nb in topo.ports(switch).values():
                if topo.is_host(nb):
                    hosts.add(nb)
                elif level[nb] < level[switch]:
                    hosts |= below[nb]
            below[switch] = frozenset(hosts)
        cached = _Levels(below, topo.next_hops())
        _LEVELS[key] = cached
        weakref.finalize(topo, _LEVELS.pop, key, None)
    return cached


def _member_names(topo: Topology, source: str, members: Iterable[str]) -> list[str]:
    """Validated members without the source, in node-id order."""
    if not isinstance(source, str) or not topo.is_host(source):
        raise ValueError(f"multicast source {source!r} is not a host of {topo.name!r}")
    names = set(members) if not isinstance(members, str) else {members}
    unknown = sorted(repr(m) for m in names if not isinstance(m, str) or not topo.is_host(m))
    if unknown:
        raise ValueError(f"multicast members {', '.join(unknown)} are not hosts of "
                         f"{topo.name!r}")
    names.discard(source)
    return sorted(names, key=lambda name: topo.host(name).node_id)


def _attach(topo: Topology, ports: dict[str, set[int]], on_tree: set[str],
            route: list[str]) -> None:
    """Graft `route` onto the tree after its last node already on the tree."""
    start = max(i for i, node in enumerate(route) if node in on_tree)
    for node, nxt in zip(route[start:], route[start + 1:], strict=False):
        ports.setdefault(node, set()).add(topo.port_to(node, nxt))
        on_tree.add(nxt)


def _down_route(topo: Topology, levels: _Levels, top: str, member: str) -> list[str]:
    """Nodes from `top` down to `member` along the routing table (member is below top)."""
    route = [top]
    while route[-1] != member:
        route.append(topo.neighbour(route[-1], levels.next_hops[route[-1]][member]))
    return route


def _trunk(topo: Topology, levels: _Levels, source: str, members: list[str]) -> list[str] | None:
    """Switches from the source's switch up to a nearest common ancestor, or None.

    Each member's route that passes such a switch offers the route up to it (the route to
    one member alone may turn below the ancestor, e.g. a member on the source's own leaf,
    and never reach it). Where routes offer several (the top switches of a fat tree), the
    source's node id picks one: the trees of a group's sources spread over them, as
    destination-based unicast routing spreads routes, instead of all climbing to the top
    switch on the route to the first member (an Allgather's 16 sources on a 2:1 fat tree
    had crossed one spine, 12 blocks down each of its links).
    """
    need = {source, *members}
    offers: dict[str, list[str]] = {}
    for member in members:
        route = topo.path(source, member)[1:-1]
        for i, switch in enumerate(route):
            if need <= levels.below[switch]:
                offers.setdefault(switch, route[:i + 1])
                break
    if not offers:
        return None  # a hand-written levelled topology without such a switch on any route
    lowest = min(map(len, offers.values()))
    trunks = [offers[s.name] for s in topo.switches
              if s.name in offers and len(offers[s.name]) == lowest]
    return trunks[topo.host(source).node_id % len(trunks)]


def _updown_routes(topo: Topology, source: str, members: list[str]) -> list[list[str]]:
    """The trunk, then trunk + down route for each member (plain routes without a trunk)."""
    levels = _levels(topo)
    trunk = _trunk(topo, levels, source, members)
    if trunk is None:
        return [topo.path(source, member)[1:] for member in members]
    return [trunk, *(trunk + _down_route(topo, levels, trunk[-1], member)[1:]
                     for member in members)]


def distribution_tree(topo: Topology, source: str, members: Iterable[str]) -> Tree:
    """Switch name -> output ports for a datagram sent by host `source` to the hosts `members`.

    Switches are listed in dpid order. The source is never sent to (it may be listed among
    the members); members that are not hosts of `topo` raise ValueError.
    """
    names = _member_names(topo, source, members)
    if not names:
        return {}
    root, _ = topo.host_attachment(source)
    ports: dict[str, set[int]] = {}
    on_tree = {root}
    routes = ([topo.path(source, member)[1:] for member in names]
              if topo.routing != "updown" else _updown_routes(topo, source, names))
    for route in routes:
        _attach(topo, ports, on_tree, route)
    return {s.name: frozenset(ports[s.name]) for s in topo.switches if s.name in ports}


def _ordered(topo: Topology, tree: Mapping[str, Iterable[int]]) -> list[tuple[str, int]]:
    """(switch, port) pairs of the tree in dpid, then port order."""
    switches = sorted(tree, key=lambda name: topo.switch(name).dpid)
    return [(switch, port) for switch in switches for port in sorted(tree[switch])]


def tree_edges(topo: Topology, tree: Mapping[str, Iterable[int]]) -> list[tuple[str, str]]:
    """(from node, to node) for every output port of the tree, in dpid and port order."""
    return [(switch, topo.neighbour(switch, port)) for switch, port in _ordered(topo, tree)]


def deliveries(topo: Topology, source: str, tree: Mapping[str, Iterable[int]]) -> dict[str, int]:
    """Host name -> copies received when `source` sends one datagram through `tree`.

    Simulates the switches: the datagram enters the source's switch; a switch in the tree
    forwards one copy per output port on every arrival, a switch not in it drops. Every
    host is listed, with 0 if it gets nothing. A loop would make copies endlessly and
    raises ValueError.
    """
    if not topo.is_host(source):
        raise ValueError(f"multicast source {source!r} is not a host of {topo.name!r}")
    out: dict[str, list[str]] = {}
    for switch, nb in tree_edges(topo, tree):
        out.setdefault(switch, []).append(nb)
    root, _ = topo.host_attachment(source)
    # Count walks from the root in topological order (Kahn) over the switches it reaches.
    reached, stack = {root}, [root]
    while stack:
        for nb in out.get(stack.pop(), ()):
            if nb not in reached:
                reached.add(nb)
                stack.append(nb)
    indegree = dict.fromkeys(reached, 0)
    for node in reached:
        for nb in out.get(node, ()):
            indegree[nb] += 1
    copies = dict.fromkeys(reached, 0)
    copies[root] = 1
    ready = [node for node in reached if indegree[node] == 0]
    done = 0
    while ready:
        node = ready.pop()
        done += 1
        for nb in out.get(node, ()):
            copies[nb] += copies[node]
            indegree[nb] -= 1
            if indegree[nb] == 0:
                ready.append(nb)
    if done < len(reached):
        raise ValueError("the tree has a forwarding loop: copies would circulate forever")
    return {h.name: copies.get(h.name, 0) for h in topo.hosts}
