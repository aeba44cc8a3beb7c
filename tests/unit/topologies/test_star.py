"""topologies.star: sizes and port numbering."""

import pytest

from topologies import star

from .shape_checks import check_ports, counts


@pytest.mark.parametrize("hosts", [1, 4, 8, 64])
def test_star_sizes_and_ports(hosts: int) -> None:
    topo = star(hosts)
    assert counts(topo) == (hosts, 1, hosts)
    check_ports(topo)
    assert all(topo.host_attachment(i) == ("s1", i + 1) for i in range(hosts))
    assert topo.name == f"star-{hosts}" and topo.shape == "star" and topo.routing == "shortest"
