"""topologies.tree: sizes and port numbering."""

import pytest

from topologies import tree

from .shape_checks import check_ports, counts


@pytest.mark.parametrize(("leaves", "per_leaf"), [(1, 1), (2, 4), (4, 3)])
def test_tree_sizes_and_ports(leaves: int, per_leaf: int) -> None:
    topo = tree(leaves, per_leaf)
    assert counts(topo) == (leaves * per_leaf, leaves + 1, leaves * per_leaf + leaves)
    check_ports(topo)
    for j in range(leaves):
        leaf = f"s{j + 2}"
        assert topo.port_to("s1", leaf) == j + 1
        assert topo.port_to(leaf, "s1") == 1
    for host in topo.hosts:  # left to right
        leaf, port = topo.host_attachment(host)
        assert leaf == f"s{host.node_id // per_leaf + 2}"
        assert port == host.node_id % per_leaf + 2
