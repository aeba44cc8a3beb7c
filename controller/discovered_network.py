"""A network the controller discovers itself (pure): switches and their ports from OpenFlow,
links from LLDP, hosts from the ARP and IGMP they send on edge ports. It becomes a Topology
with shortest-path routing; hosts get node ids in the order of their IP addresses.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from topologies import Host, Link, LinkParams, Switch, Topology, TopologyError

Port = tuple[int, int]  # (dpid, port number)


@dataclass
class Discovered:
    ports: dict[int, set[int]] = field(default_factory=dict)      # dpid -> port numbers
    links: dict[Port, Port] = field(default_factory=dict)         # both directions
    hosts: dict[str, tuple[str, Port]] = field(default_factory=dict)  # ip -> (mac, port)

    def add_switch(self, dpid: int, ports: set[int]) -> None:
        self.ports[dpid] = set(ports)

    def remove_switch(self, dpid: int) -> None:
        self.ports.pop(dpid, None)
        for a, b in list(self.links.items()):
            if dpid in (a[0], b[0]):
                del self.links[a]
        for ip, (_mac, at) in list(self.hosts.items()):
            if at[0] == dpid:
                del self.hosts[ip]

    def add_link(self, a: Port, b: Port) -> bool:
        """A link seen by LLDP (both ends); True when new. Hosts wrongly learnt on its ports
        (before the link was known) are forgotten."""
        if self.links.get(a) == b:
            return False
        self.links[a], self.links[b] = b, a
        for ip, (_mac, at) in list(self.hosts.items()):
            if at in (a, b):
                del self.hosts[ip]
        return True

    def is_edge(self, port: Port) -> bool:
        return port[0] in self.ports and port not in self.links

    def edge_ports(self) -> list[Port]:
        return sorted((d, p) for d, ps in self.ports.items() for p in ps
                      if (d, p) not in self.links)

    def learn_host(self, ip: str, mac: str, at: Port) -> bool:
        """A host seen on an edge port; True when it is new or moved."""
        if not self.is_edge(at):
            return False
        try:
            if ipaddress.IPv4Address(ip).is_unspecified:
                return False
        except ValueError:
            return False
        if self.hosts.get(ip) == (mac, at):
            return False
        for other, (_m, where) in list(self.hosts.items()):
            if where == at and other != ip:  # one host per edge port
                del self.hosts[other]
        self.hosts[ip] = (mac, at)
        return True

    def topology(self) -> Topology | None:
        """The discovered network as a Topology, None while it is not yet one connected
        network with at least one host."""
        if not self.hosts:
            return None
        by_ip = sorted(self.hosts.items(), key=lambda kv: ipaddress.IPv4Address(kv[0]))
        hosts = [Host(f"h{i}", i, ip=ip, mac=mac) for i, (ip, (mac, _at)) in enumerate(by_ip)]
        switches = [Switch(f"s{d}", d) for d in sorted(self.ports)]
        links = [Link(h.name, 0, f"s{at[0]}", at[1], LinkParams(bw_mbit=None))
                 for h, (_ip, (_mac, at)) in zip(hosts, by_ip, strict=True)]
        links += [Link(f"s{a[0]}", a[1], f"s{b[0]}", b[1], LinkParams(bw_mbit=None))
                  for a, b in sorted(self.links.items()) if a < b]
        try:
            return Topology(name="discovered", shape="file", params={"discovered": True},
                            hosts=hosts, switches=switches, links=links, routing="shortest")
        except TopologyError:
            return None
