"""Two-level tree: a root switch over leaf switches, hosts numbered left to right."""

from __future__ import annotations

from topologies.construction import check_size, link_profile, positive_int
from topologies.model import Host, Link, Switch, Topology


def tree(leaves: int = 2, hosts_per_leaf: int = 4, *, bw: float | None = 100.0,
         core_bw: float | None = None, delay_ms: float = 0.0,
         routing: str = "shortest") -> Topology:
    """Root s1 (level 1); leaf j is s(j+2) (level 0) on root port j+1 via its port 1.

    Leaf j carries hosts j*hosts_per_leaf .. on its ports 2, 3, ...
    """
    leaves = positive_int("tree", "leaves", leaves)
    per_leaf = positive_int("tree", "hosts_per_leaf", hosts_per_leaf)
    check_size("tree", leaves * per_leaf, leaves + 1)
    links = link_profile("tree", bw, core_bw, delay_ms)
    root = Switch.numbered(1, level=1, index=0)
    leaf_switches = [Switch.numbered(j + 2, level=0, index=j) for j in range(leaves)]
    hosts = [Host.numbered(i) for i in range(leaves * per_leaf)]
    cables = [Link(h.name, 0, leaf_switches[h.node_id // per_leaf].name,
                   h.node_id % per_leaf + 2, links.host) for h in hosts]
    cables += [Link(root.name, j + 1, leaf.name, 1, links.core)
               for j, leaf in enumerate(leaf_switches)]
    return Topology(
        name=f"tree-{leaves}x{per_leaf}", shape="tree", routing=routing,
        params={"leaves": leaves, "hosts_per_leaf": per_leaf, **links.record(),
                "routing": routing},
        hosts=hosts, switches=[root, *leaf_switches], links=cables,
    )
