"""topologies.fattree: sizes, the default (quaternary, two levels), port ranges, host digits,
partial fat trees without empty switches, and a level-l switch reaching an aligned block of
nodes."""

from collections import Counter

import pytest

from topologies import Topology, fattree

from .shape_checks import check_ports, counts


@pytest.mark.parametrize(("k", "n"), [(4, 1), (4, 2), (4, 3), (2, 3), (3, 2)])
def test_fattree_sizes(k: int, n: int) -> None:
    topo = fattree(k=k, n=n)
    assert counts(topo) == (k**n, n * k ** (n - 1), n * k**n)
    check_ports(topo)
    assert Counter(s.attrs["level"] for s in topo.switches) == dict.fromkeys(range(n), k ** (n - 1))


def test_fattree_default_is_quaternary_two_level() -> None:
    topo = fattree()
    assert counts(topo) == (16, 8, 32)
    assert topo.name == "fattree-k4-n2" and topo.routing == "updown"


@pytest.mark.parametrize(("k", "n", "hosts"), [(4, 2, None), (4, 3, None), (2, 3, None),
                                               (4, 3, 32), (4, 2, 5)])
def test_fattree_port_ranges(k: int, n: int, hosts: int | None) -> None:
    topo = fattree(k=k, n=n, hosts=hosts)
    level = {s.name: s.attrs["level"] for s in topo.switches}
    for switch in topo.switches:
        lv = switch.attrs["level"]
        for port, nb in topo.ports(switch.name).items():
            if port <= k:  # down
                assert (lv == 0 and topo.is_host(nb)) or level[nb] == lv - 1
            else:  # up
                assert k < port <= 2 * k and lv < n - 1 and level[nb] == lv + 1
        ups = [p for p in topo.ports(switch.name) if p > k]
        assert ups == ([] if lv == n - 1 else list(range(k + 1, 2 * k + 1)))
    for host in topo.hosts:
        p = host.node_id
        leaf, port = topo.host_attachment(host)
        assert topo.switch(leaf).attrs == {"level": 0, "index": p // k}
        assert port == p % k + 1


def test_fattree_host_digits() -> None:
    topo = fattree(k=4, n=3)
    assert topo.host(0).attrs["digits"] == (0, 0, 0)
    assert topo.host(27).attrs["digits"] == (1, 2, 3)
    assert topo.host(63).attrs["digits"] == (3, 3, 3)


def test_partial_fattree_omits_switches_without_nodes() -> None:
    topo = fattree(k=4, n=3, hosts=32)
    assert counts(topo) == (32, 8 + 8 + 16, 32 + 32 + 32)
    check_ports(topo)
    assert topo.name == "fattree-k4-n3-h32"
    assert topo.params["hosts"] == 32
    small = fattree(k=4, n=2, hosts=5)  # leaf 1 holds just h4, tops all stay
    assert counts(small) == (5, 2 + 4, 5 + 8)


def down_reach(topo: Topology, switch: str) -> list[int]:
    """Node ids reachable from `switch` going only down (ports 1..k), in port order."""
    k = topo.params.get("k", 2)
    found: list[int] = []
    for port, nb in sorted(topo.ports(switch).items()):
        if port <= k:
            found += [topo.host(nb).node_id] if topo.is_host(nb) else down_reach(topo, nb)
    return found


@pytest.mark.parametrize(("k", "n", "hosts"), [(4, 3, None), (2, 4, None), (3, 3, None),
                                               (4, 3, 32), (4, 3, 37)])
def test_fattree_aligned_ranges_sit_under_one_switch(k: int, n: int, hosts: int | None) -> None:
    """A level-l switch reaches exactly an aligned block of k^(l+1) nodes, in port order."""
    topo = fattree(k=k, n=n, hosts=hosts)
    total = len(topo.hosts)
    blocks_by_level: dict[int, set[tuple[int, ...]]] = {}
    for switch in topo.switches:
        lv, index = switch.attrs["level"], switch.attrs["index"]
        size = k ** (lv + 1)
        start = (index // k**lv) * size
        reach = down_reach(topo, switch.name)
        assert reach == list(range(start, min(start + size, total)))  # contiguous, ordered
        blocks_by_level.setdefault(lv, set()).add(tuple(reach))
    for lv, blocks in blocks_by_level.items():  # every aligned block has its switches
        size = k ** (lv + 1)
        starts = sorted(b[0] for b in blocks)
        assert starts == list(range(0, total, size))
