"""Pure description of an emulated network: hosts, switches, links and a routing rule.

A `Topology` knows nothing of Mininet. The testbed builds the emulation from it, and the
controller process reads the same description back from JSON (`save` / `load_json`) to
install its destination-based forwarding table (`next_hops`).
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from topologies import routing as routing_rules
from topologies.errors import TopologyError
from topologies.validation import (
    HOST_PORT,
    check_connected,
    check_links,
    check_nodes,
    distances,
)

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["FORMAT", "HOST_PORT", "Host", "Link", "LinkParams", "Switch", "Topology",
           "TopologyError"]

FORMAT = "mcastlab.topology/1"
"""Marker of the saved JSON form, so a loader can tell it from a hand-written topology file."""

_FIRST_IP = ipaddress.IPv4Address("10.0.0.1")
_MAX_HOSTS = 2**24 - 2  # 10.0.0.1 .. 10.255.255.254 stay inside 10.0.0.0/8


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _finite(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TopologyError(f"{what} must be a finite number, got {value!r}")
    return float(value)


def _frozen_attrs(attrs: Mapping[str, Any]) -> Mapping[str, Any]:
    """Read-only copy; lists become tuples so JSON round trips compare equal."""
    def freeze(value: Any) -> Any:
        return tuple(freeze(v) for v in value) if isinstance(value, list | tuple) else value

    return MappingProxyType({str(k): freeze(v) for k, v in attrs.items()})


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    return value


@dataclass(frozen=True)
class LinkParams:
    """Traffic shaping of one link (Mininet TCLink parameters)."""

    bw_mbit: float | None = 100.0  # None = unlimited
    delay_ms: float = 0.0
    loss_pct: float = 0.0
    max_queue: int | None = None  # packets

    def __post_init__(self) -> None:
        if self.bw_mbit is not None:
            bw = _finite(self.bw_mbit, "bandwidth")
            if bw <= 0:
                raise TopologyError(
                    f"bandwidth must be > 0 Mbit/s (or unset for unlimited), got {self.bw_mbit!r}")
            object.__setattr__(self, "bw_mbit", bw)
        delay = _finite(self.delay_ms, "delay")
        if delay < 0:
            raise TopologyError(f"delay must be >= 0 ms, got {self.delay_ms!r}")
        loss = _finite(self.loss_pct, "loss")
        if not 0 <= loss < 100:
            raise TopologyError(f"loss must be in [0, 100) percent, got {self.loss_pct!r}")
        if self.max_queue is not None and (not _is_int(self.max_queue) or self.max_queue <= 0):
            raise TopologyError(
                f"max_queue must be a positive number of packets, got {self.max_queue!r}")
        object.__setattr__(self, "delay_ms", delay)
        object.__setattr__(self, "loss_pct", loss)


@dataclass(frozen=True)
class Host:
    """An MPI rank's machine: name "h<id>", node id == rank, IP and MAC derived from the id.

    `ip` and `mac` left empty are derived from the id (what the testbed builds); given, they
    are kept (a network the controller discovered carries its hosts' own addresses).
    """

    name: str
    node_id: int
    ip: str = ""
    mac: str = ""
    attrs: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not _is_int(self.node_id) or not 0 <= self.node_id < _MAX_HOSTS:
            raise TopologyError(
                f"host node id must be an integer in 0..{_MAX_HOSTS - 1}, got {self.node_id!r}")
        if self.name != f"h{self.node_id}":
            raise TopologyError(
                f"host with node id {self.node_id} must be named 'h{self.node_id}', "
                f"not {self.name!r}")
        if self.ip:
            try:
                ipaddress.IPv4Address(self.ip)
            except ValueError:
                raise TopologyError(f"host {self.name}: {self.ip!r} is not an IPv4 address") \
                    from None
        if self.mac and not _MAC.fullmatch(self.mac):
            raise TopologyError(f"host {self.name}: {self.mac!r} is not a MAC address")
        object.__setattr__(self, "ip", self.ip or host_ip(self.node_id))
        object.__setattr__(self, "mac", (self.mac or host_mac(self.node_id)).lower())
        object.__setattr__(self, "attrs", _frozen_attrs(self.attrs))

    @classmethod
    def numbered(cls, node_id: int, **attrs: Any) -> Host:
        return cls(f"h{node_id}", node_id, attrs=attrs)


_MAC = re.compile(r"([0-9a-fA-F]{2}:){5}[0-9a-fA-F]{2}")


def host_ip(node_id: int) -> str:
    """h0 -> 10.0.0.1, h255 -> 10.0.1.0 (node id + 1 inside 10.0.0.0/8)."""
    return str(_FIRST_IP + node_id)


def host_mac(node_id: int) -> str:
    """h0 -> 00:00:00:00:00:01 (node id + 1 as six hex bytes)."""
    return ":".join(f"{b:02x}" for b in (node_id + 1).to_bytes(6, "big"))


@dataclass(frozen=True)
class Switch:
    """An OpenFlow switch named "s<dpid>"; the dpid is 1-based because 0 is not a valid one."""

    name: str
    dpid: int
    attrs: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if not _is_int(self.dpid) or not 1 <= self.dpid < 2**64:
            raise TopologyError(f"switch dpid must be an integer >= 1, got {self.dpid!r}")
        if self.name != f"s{self.dpid}":
            raise TopologyError(
                f"switch with dpid {self.dpid} must be named 's{self.dpid}', not {self.name!r}")
        object.__setattr__(self, "attrs", _frozen_attrs(self.attrs))

    @classmethod
    def numbered(cls, dpid: int, **attrs: Any) -> Switch:
        return cls(f"s{dpid}", dpid, attrs=attrs)


@dataclass(frozen=True)
class Link:
    """A cable: a host end always uses port 0, switch ports are 1-based and unique per switch."""

    node1: str
    port1: int
    node2: str
    port2: int
    params: LinkParams = field(default_factory=LinkParams)

    def __post_init__(self) -> None:
        for node, port in ((self.node1, self.port1), (self.node2, self.port2)):
            if not _is_int(port) or port < 0:
                raise TopologyError(
                    f"link {self.node1}-{self.node2} has port {port!r} on {node}; "
                    "ports are integers >= 0")


class Topology:
    """A validated network description; the routing rules are described in topologies.routing.

    The constructor checks the structure (names, ports, one link per host, connectivity) and
    computes the forwarding table, so an invalid topology or routing rule fails right here.
    Treat instances as read-only: the forwarding table is computed once.
    """

    def __init__(self, name: str, shape: str, hosts: Iterable[Host], switches: Iterable[Switch],
                 links: Iterable[Link], routing: str = "shortest",
                 params: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.shape = shape
        self.params: dict[str, Any] = dict(params or {})
        self.hosts: tuple[Host, ...] = tuple(sorted(hosts, key=lambda h: h.node_id))
        self.switches: tuple[Switch, ...] = tuple(sorted(switches, key=lambda s: s.dpid))
        self.links: tuple[Link, ...] = tuple(links)
        self.routing = routing

        check_nodes(name, self.hosts, self.switches)
        self._hosts_by_name = {h.name: h for h in self.hosts}
        self._switches_by_name = {s.name: s for s in self.switches}
        self._switches_by_dpid = {s.dpid: s for s in self.switches}
        self._ports = check_links(self._hosts_by_name, self._switches_by_name, self.links)
        self._port_to = {(node, nb): port
                         for node, ports in self._ports.items() for port, nb in ports.items()}
        self._graph: nx.Graph | None = None  # built by graph(), on first use
        check_connected(name, self._ports, [*self._hosts_by_name, *self._switches_by_name])
        self._next_hops = routing_rules.compute_next_hops(self)
        self._hops = routing_rules.hop_counts(self, self._next_hops)

    def _build_graph(self) -> nx.Graph[str]:
        import networkx as nx  # a quarter second: only where a graph is drawn or placed

        g: nx.Graph[str] = nx.Graph()
        g.add_nodes_from(self._hosts_by_name, kind="host")
        g.add_nodes_from(self._switches_by_name, kind="switch")
        for link in self.links:
            g.add_edge(link.node1, link.node2, link=link,
                       ports={link.node1: link.port1, link.node2: link.port2})
        return nx.freeze(g)

    # -- lookups ---------------------------------------------------------------------------

    def host(self, name_or_id: str | int) -> Host:
        """A host by name ("h3") or by node id (3, or "3" as typed at a prompt)."""
        found = None
        if isinstance(name_or_id, str) and name_or_id.isdigit():
            name_or_id = int(name_or_id)
        if isinstance(name_or_id, str):
            found = self._hosts_by_name.get(name_or_id)
        elif _is_int(name_or_id) and 0 <= name_or_id < len(self.hosts):
            found = self.hosts[name_or_id]
        if found is None:
            raise TopologyError(f"topology {self.name!r} has no host {name_or_id!r}")
        return found

    def switch(self, name_or_dpid: str | int) -> Switch:
        found = None
        if isinstance(name_or_dpid, str):
            found = self._switches_by_name.get(name_or_dpid)
        elif _is_int(name_or_dpid):
            found = self._switches_by_dpid.get(name_or_dpid)
        if found is None:
            raise TopologyError(f"topology {self.name!r} has no switch {name_or_dpid!r}")
        return found

    def is_host(self, node: str) -> bool:
        return node in self._hosts_by_name

    def node_names(self) -> list[str]:
        """Host names in rank order, then switch names in dpid order."""
        return [*self._hosts_by_name, *self._switches_by_name]

    def graph(self) -> nx.Graph:
        """Frozen graph: nodes carry kind="host"/"switch"; edges carry "link" and "ports".
        (Made on first use: routing and the checks need only `distances`.)"""
        if self._graph is None:
            self._graph = self._build_graph()
        return self._graph

    def distances(self, source: str) -> dict[str, int]:
        """Hops from node `source` to every node."""
        if source not in self._ports:
            raise TopologyError(f"topology {self.name!r} has no node {source!r}")
        return distances(self._ports, source)

    def ports(self, node: str) -> dict[int, str]:
        """Port number -> neighbour name for one node."""
        if node not in self._ports:
            raise TopologyError(f"topology {self.name!r} has no node {node!r}")
        return dict(self._ports[node])

    def port_to(self, node: str, neighbour: str) -> int:
        """The port on `node` facing `neighbour`."""
        try:
            return self._port_to[(node, neighbour)]
        except KeyError:
            raise TopologyError(
                f"topology {self.name!r} has no link between {node!r} and {neighbour!r}") from None

    def neighbour(self, node: str, port: int) -> str:
        try:
            return self._ports[node][port]
        except KeyError:
            raise TopologyError(
                f"topology {self.name!r} has no port {port!r} on node {node!r}") from None

    def host_attachment(self, host: str | int | Host) -> tuple[str, int]:
        """(switch name, switch port) where the host plugs in."""
        name = self.host(host.name if isinstance(host, Host) else host).name
        switch = self._ports[name][HOST_PORT]
        return switch, self._port_to[(switch, name)]

    # -- routing ---------------------------------------------------------------------------

    def next_hops(self) -> dict[str, dict[str, int]]:
        """Switch name -> {destination host name -> output port} (a copy of the cached table)."""
        return {switch: dict(table) for switch, table in self._next_hops.items()}

    def path(self, src: str | int, dst: str | int) -> list[str]:
        """Node names from host `src` to host `dst` as the forwarding table sends packets."""
        source, target = self.host(src).name, self.host(dst).name
        if source == target:
            return [source]
        nodes = [source]
        node = self._ports[source][HOST_PORT]
        while node != target:
            if node in nodes:
                raise TopologyError(f"routing {self.routing!r} loops at {node} on the way "
                                    f"from {source} to {target}")
            nodes.append(node)
            if node not in self._next_hops:
                raise TopologyError(f"routing {self.routing!r} delivers packets for {target} "
                                    f"from {source} to host {node}")
            node = self._ports[node][self._next_hops[node][target]]
        return [*nodes, target]

    def hops(self, src: str | int, dst: str | int) -> int:
        """Number of links on the routed path from host `src` to host `dst`."""
        source, target = self.host(src).name, self.host(dst).name
        if source == target:
            return 0
        return 1 + self._hops[target][self._ports[source][HOST_PORT]]

    def diameter_pair(self, hosts: Sequence[Host] | None = None) -> tuple[Host, Host]:
        """The two hosts (of `hosts`, default all) furthest apart along routed paths; ties go
        to the lowest ids."""
        pool = list(hosts) if hosts is not None else self.hosts
        best = (pool[0], pool[0])
        most = 0
        for src in pool:
            for dst in pool:
                hops = self.hops(src.node_id, dst.node_id)
                if hops > most:
                    best, most = (src, dst), hops
        return best

    # -- serialisation ---------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready record (tuples become lists); `from_dict` restores an equal topology."""
        return {
            "format": FORMAT,
            "name": self.name,
            "shape": self.shape,
            "routing": self.routing,
            "params": _jsonable(self.params),
            "hosts": [{"name": h.name, "node_id": h.node_id, "ip": h.ip, "mac": h.mac,
                       "attrs": _jsonable(h.attrs)} for h in self.hosts],
            "switches": [{"name": s.name, "dpid": s.dpid, "attrs": _jsonable(s.attrs)}
                         for s in self.switches],
            "links": [{"node1": lk.node1, "port1": lk.port1, "node2": lk.node2,
                       "port2": lk.port2, "params": asdict(lk.params)} for lk in self.links],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Topology:
        if not isinstance(d, Mapping) or d.get("format") != FORMAT:
            raise TopologyError(f"not a saved topology record: it lacks 'format': {FORMAT!r}")
        try:
            return cls(
                name=d["name"], shape=d["shape"], routing=d["routing"], params=d["params"],
                hosts=[Host(h["name"], h["node_id"], h["ip"], h["mac"], h["attrs"])
                       for h in d["hosts"]],
                switches=[Switch(s["name"], s["dpid"], s["attrs"]) for s in d["switches"]],
                links=[Link(lk["node1"], lk["port1"], lk["node2"], lk["port2"],
                            LinkParams(**lk["params"])) for lk in d["links"]],
            )
        except (KeyError, TypeError, AttributeError) as err:
            raise TopologyError(f"saved topology record is malformed ({err!r})") from None

    def scaled(self, factor: float) -> Topology:
        """The same network with every limited link rate times `factor` (unlimited links
        stay unlimited; delays, loss and queues as they were)."""
        if not factor > 0 or not math.isfinite(factor):
            raise TopologyError(f"a rate factor must be a positive number, got {factor!r}")
        d = self.to_dict()
        for lk in d["links"]:
            if lk["params"]["bw_mbit"] is not None:
                lk["params"]["bw_mbit"] *= factor
        for key in ("bw", "core_bw"):
            if isinstance(d["params"].get(key), int | float):
                d["params"][key] *= factor
        return Topology.from_dict(d)

    def host_rate(self) -> float | None:
        """The slowest host link's rate, Mbit/s (None: every host link is unlimited)."""
        rates = [lk.params.bw_mbit for lk in self.links
                 if (self.is_host(lk.node1) or self.is_host(lk.node2))
                 and lk.params.bw_mbit is not None]
        return min(rates) if rates else None

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the JSON record atomically, so a reader never sees half a file."""
        path = Path(path)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.to_dict(), f, indent=2)
                f.write("\n")
            os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide it from other users
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def load_json(cls, path: str | os.PathLike[str]) -> Topology:
        """Read a file written by `save` (hand-written topology files go through parse_spec)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise TopologyError(f"topology file not found: {path}") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise TopologyError(f"{path}: invalid JSON at line {err.lineno}, column {err.colno}: "
                                f"{err.msg}") from None
        try:
            return cls.from_dict(data)
        except TopologyError as err:
            raise TopologyError(f"{path}: {err}") from None

    # -- presentation ----------------------------------------------------------------------

    def summary(self) -> str:
        to_host = [self.is_host(lk.node1) or self.is_host(lk.node2) for lk in self.links]
        host_links = [lk.params for lk, edge in zip(self.links, to_host, strict=True) if edge]
        core_links = [lk.params for lk, edge in zip(self.links, to_host, strict=True) if not edge]
        lines = [
            f"{self.name} ({self.shape}): {_count(self.hosts, 'host')}, "
            f"{_count(self.switches, 'switch')}, {_count(self.links, 'link')}, "
            f"routing {self.routing}",
            f"  host links:   {_describe_params(host_links)}",
        ]
        if core_links:
            lines.append(f"  switch links: {_describe_params(core_links)}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<Topology {self.name} ({self.shape}), routing {self.routing}>"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Topology):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # params is a mutable dict


def _count(items: tuple[Any, ...], noun: str) -> str:
    plural = noun + ("es" if noun.endswith("h") else "s")
    return f"{len(items)} {noun if len(items) == 1 else plural}"


def _describe_params(params: list[LinkParams]) -> str:
    def values(getter: Any, unit: str) -> str:
        found = sorted({getter(p) for p in params}, key=lambda v: math.inf if v is None else v)
        return "/".join("unlimited" if v is None else f"{v:g} {unit}" for v in found)

    text = f"{values(lambda p: p.bw_mbit, 'Mbit/s')}, delay {values(lambda p: p.delay_ms, 'ms')}"
    if any(p.loss_pct for p in params):
        text += f", loss {values(lambda p: p.loss_pct, '%')}"
    return text
