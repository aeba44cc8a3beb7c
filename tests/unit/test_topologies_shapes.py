"""Shape builders: sizes, port numbering and attributes."""

from collections import Counter

import pytest

from topologies import Topology, bmin, fattree, mesh, star, torus, tree
from topologies.grid import EAST, HOST, NORTH, SOUTH, WEST


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


@pytest.mark.parametrize("hosts", [1, 4, 8, 64])
def test_star_sizes_and_ports(hosts: int) -> None:
    topo = star(hosts)
    assert counts(topo) == (hosts, 1, hosts)
    check_ports(topo)
    assert all(topo.host_attachment(i) == ("s1", i + 1) for i in range(hosts))
    assert topo.name == f"star-{hosts}" and topo.shape == "star" and topo.routing == "shortest"


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


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (2, 2), (3, 4), (8, 8)])
def test_mesh_sizes(rows: int, cols: int) -> None:
    topo = mesh(rows, cols)
    assert counts(topo) == (rows * cols, rows * cols,
                            rows * cols + rows * (cols - 1) + cols * (rows - 1))
    check_ports(topo)
    assert topo.routing == "xy" and topo.name == f"mesh-{rows}x{cols}"


def wraps(size: int) -> int:
    return size if size > 2 else size - 1


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (4, 4), (2, 5), (1, 3), (2, 2)])
def test_torus_sizes(rows: int, cols: int) -> None:
    topo = torus(rows, cols)
    assert counts(topo) == (rows * cols, rows * cols,
                            rows * cols + rows * wraps(cols) + cols * wraps(rows))
    check_ports(topo)


@pytest.mark.parametrize("builder", [mesh, torus])
@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (3, 4), (4, 4)])
def test_grid_port_is_direction(builder, rows: int, cols: int) -> None:
    topo = builder(rows, cols)
    step = {EAST: (0, 1), WEST: (0, -1), SOUTH: (1, 0), NORTH: (-1, 0)}
    for i, switch in enumerate(topo.switches):
        r, c = switch.attrs["coords"]
        assert (r, c) == divmod(i, cols)
        assert topo.host(i).attrs["coords"] == (r, c)
        assert topo.host_attachment(i) == (switch.name, HOST)
        for port, nb in topo.ports(switch.name).items():
            if port == HOST:
                continue
            dr, dc = step[port]
            assert topo.switch(nb).attrs["coords"] == ((r + dr) % rows, (c + dc) % cols)
            if builder is mesh:
                assert 0 <= r + dr < rows and 0 <= c + dc < cols
        expected = {HOST}
        expected |= {EAST} if c + 1 < cols or (builder is torus and cols > 2) else set()
        expected |= {WEST} if c > 0 or (builder is torus and cols > 2) else set()
        expected |= {SOUTH} if r + 1 < rows or (builder is torus and rows > 2) else set()
        expected |= {NORTH} if r > 0 or (builder is torus and rows > 2) else set()
        assert set(topo.ports(switch.name)) == expected


def test_torus_wrap_links() -> None:
    topo = torus(4, 4)
    for r in range(4):
        east_end, west_end = f"s{r * 4 + 4}", f"s{r * 4 + 1}"
        assert topo.port_to(east_end, west_end) == EAST
        assert topo.port_to(west_end, east_end) == WEST
    for c in range(4):
        assert topo.port_to(f"s{12 + c + 1}", f"s{c + 1}") == SOUTH
        assert topo.port_to(f"s{c + 1}", f"s{12 + c + 1}") == NORTH
    # size-2 dimension: the wrap would duplicate the mesh link, so only the mesh link exists
    small = torus(2, 5)
    assert set(small.ports("s1")) == {HOST, EAST, WEST, SOUTH}


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


def test_link_parameters_of_builders() -> None:
    topo = tree(2, 2, bw=10, core_bw=40, delay_ms=1.5)
    for link in topo.links:
        core = not (topo.is_host(link.node1) or topo.is_host(link.node2))
        assert link.params.bw_mbit == (40.0 if core else 10.0)
        assert link.params.delay_ms == 1.5
    assert topo.params == {"leaves": 2, "hosts_per_leaf": 2, "bw": 10.0, "core_bw": 40.0,
                           "delay_ms": 1.5, "routing": "shortest"}
    assert {lk.params.bw_mbit for lk in mesh(2, 2, bw=5).links} == {5.0}  # core_bw = bw
    unlimited_core = mesh(2, 2, bw=5, core_bw=float("inf"))
    assert {lk.params.bw_mbit for lk in unlimited_core.links} == {5.0, None}
    assert {lk.params.bw_mbit for lk in star(2, bw=None).links} == {None}
