"""Shape builders: sizes, port numbering and attributes."""


import pytest

from topologies import Topology, star

from .port_checks import check_ports


def counts(topo: Topology) -> tuple[int, int, int]:
    return len(topo.hosts), len(topo.switches), len(topo.links)


@pytest.mark.parametrize("hosts", [1, 4, 8, 64])
def test_star_sizes_and_ports(hosts: int) -> None:
    topo = star(hosts)
    assert counts(topo) == (hosts, 1, hosts)
    check_ports(topo)
    assert all(topo.host_attachment(i) == ("s1", i + 1) for i in range(hosts))
    assert topo.name == f"star-{hosts}" and topo.shape == "star" and topo.routing == "shortest"
