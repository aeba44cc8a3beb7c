"""Star: every host on one switch (host hi on port i+1)."""

from __future__ import annotations

from topologies.construction import check_size, link_profile, positive_int
from topologies.model import Host, Link, Switch, Topology


def star(hosts: int = 8, *, bw: float | None = 100.0, core_bw: float | None = None,
         delay_ms: float = 0.0, routing: str = "shortest") -> Topology:
    """One switch s1 (level 0, so 'updown' also applies) with `hosts` hosts."""
    hosts = positive_int("star", "hosts", hosts)
    check_size("star", hosts, 1)
    links = link_profile("star", bw, core_bw, delay_ms)
    nodes = [Host.numbered(i) for i in range(hosts)]
    return Topology(
        name=f"star-{hosts}", shape="star", routing=routing,
        params={"hosts": hosts, **links.record(), "routing": routing},
        hosts=nodes,
        switches=[Switch.numbered(1, level=0, index=0)],
        links=[Link(h.name, 0, "s1", h.node_id + 1, links.host) for h in nodes],
    )
