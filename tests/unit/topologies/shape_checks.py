"""What every shape builder's tests check: its counts of hosts, switches and links, and the
port numbering it keeps."""

from collections import Counter

from topologies import Topology


def counts(topo: Topology) -> tuple[int, int, int]:
    return len(topo.hosts), len(topo.switches), len(topo.links)


def check_ports(topo: Topology) -> None:
    """Host ends are port 0; switch ports are >= 1 and unique per switch."""
    used: Counter[tuple[str, int]] = Counter()
    for link in topo.links:
        for node, port in ((link.node1, link.port1), (link.node2, link.port2)):
            assert port == 0 if topo.is_host(node) else port >= 1
            used[(node, port)] += 1
    assert max(used.values()) == 1
    assert [h.name for h in topo.hosts] == [f"h{i}" for i in range(len(topo.hosts))]
    assert [s.dpid for s in topo.switches] == list(range(1, len(topo.switches) + 1))
