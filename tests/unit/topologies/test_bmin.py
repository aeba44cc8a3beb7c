"""topologies.bmin: the butterfly MIN's sizes, port numbering and stage attributes, and that it
is the binary fat tree."""

import pytest

from topologies import bmin, fattree

from .shape_checks import check_ports, counts


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_bmin_sizes_and_attrs(n: int) -> None:
    topo = bmin(n)
    assert counts(topo) == (2**n, n * 2 ** (n - 1), n * 2**n)
    check_ports(topo)
    assert topo.routing == "updown" and topo.shape == "bmin"
    last = 2**n - 1
    assert topo.host(last).attrs["address"] == "1" * n
    for switch in topo.switches:
        assert switch.attrs["stage"] == switch.attrs["level"]
        assert set(topo.ports(switch.name)) <= {1, 2, 3, 4}
        has_up = switch.attrs["level"] < n - 1
        assert ({3, 4} <= set(topo.ports(switch.name))) == has_up


def test_bmin_is_the_binary_fattree() -> None:
    a, b = bmin(3), fattree(k=2, n=3)
    assert [(lk.node1, lk.port1, lk.node2, lk.port2) for lk in a.links] == \
        [(lk.node1, lk.port1, lk.node2, lk.port2) for lk in b.links]
    assert bmin(4).host(3).attrs == {"address": "0011"}
