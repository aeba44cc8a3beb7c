"""topologies.routing: every rule gives complete, loop-free, minimal tables whose paths follow
it (shortest, XY, up/down, turnaround), and a rule that does not apply is refused."""

import itertools

import networkx as nx
import pytest

from topologies import (
    Host,
    Link,
    Switch,
    Topology,
    TopologyError,
    bmin,
    fattree,
    mesh,
    routing,
    star,
    torus,
    tree,
)

ALL = {
    "star-1": lambda: star(1), "star-8": lambda: star(8), "tree-3x2": lambda: tree(3, 2),
    "tree-updown": lambda: tree(2, 3, routing="updown"),
    "fattree-4-1": lambda: fattree(4, 1), "fattree-4-2": lambda: fattree(4, 2),
    "fattree-4-3": lambda: fattree(4, 3), "fattree-2-3": lambda: fattree(2, 3),
    "fattree-4-3-h37": lambda: fattree(4, 3, hosts=37),
    "mesh-1x1": lambda: mesh(1, 1), "mesh-3x4": lambda: mesh(3, 4),
    "mesh-shortest": lambda: mesh(3, 3, routing="shortest"),
    "torus-3x3": lambda: torus(3, 3), "torus-4x5": lambda: torus(4, 5),
    "torus-2x3": lambda: torus(2, 3), "bmin-3": lambda: bmin(3),
    "fattree-shortest": lambda: fattree(2, 3, routing="shortest"),
}


def pairs(topo: Topology):
    return itertools.product(range(len(topo.hosts)), repeat=2)


def switch_path(topo: Topology, src: int, dst: int) -> list[str]:
    return topo.path(src, dst)[1:-1]


@pytest.mark.parametrize("make", ALL.values(), ids=ALL.keys())
def test_tables_complete_and_paths_loop_free_and_minimal(make) -> None:
    topo = make()
    table = topo.next_hops()
    assert set(table) == {s.name for s in topo.switches}
    for switch, entries in table.items():
        assert set(entries) == {h.name for h in topo.hosts}
        assert set(entries.values()) <= set(topo.ports(switch))
    graph = topo.graph()
    for src, dst in pairs(topo):
        path = topo.path(src, dst)
        assert path[0] == f"h{src}" and path[-1] == f"h{dst}"
        assert len(set(path)) == len(path)  # no loops
        for here, there in itertools.pairwise(path):
            assert graph.has_edge(here, there)
        for here, there in itertools.pairwise(path[1:]):  # each hop is the table's port
            assert topo.port_to(here, there) == table[here][path[-1]]
        assert len(path) - 1 == topo.hops(src, dst)
        # all rules here pick minimal paths on these shapes
        assert topo.hops(src, dst) == nx.shortest_path_length(graph, f"h{src}", f"h{dst}")
    assert topo.path(0, 0) == ["h0"]


def test_next_hops_is_a_copy() -> None:
    topo = star(2)
    topo.next_hops()["s1"]["h0"] = 99
    assert topo.next_hops()["s1"]["h0"] == 1


def test_shortest_takes_lowest_port_on_ties() -> None:
    # h0 - s1 = two equal ways (via s2 on port 3, via s3 on port 2) = s4 - h1
    topo = Topology("diamond", "file", [Host.numbered(0), Host.numbered(1)],
                    [Switch.numbered(i) for i in (1, 2, 3, 4)],
                    [Link("h0", 0, "s1", 1), Link("s1", 3, "s2", 1), Link("s1", 2, "s3", 1),
                     Link("s2", 2, "s4", 2), Link("s3", 2, "s4", 3), Link("h1", 0, "s4", 1)])
    assert topo.next_hops()["s1"]["h1"] == 2
    assert topo.path(0, 1) == ["h0", "s1", "s3", "s4", "h1"]
    assert topo.path(1, 0) == ["h1", "s4", "s2", "s1", "h0"]  # s4: port 2 (s2) < port 3 (s3)


def test_star_and_tree_shortest_paths() -> None:
    assert star(8).path(2, 5) == ["h2", "s1", "h5"]
    topo = tree(2, 4)
    assert topo.path(0, 1) == ["h0", "s2", "h1"]
    assert topo.path(0, 7) == ["h0", "s2", "s1", "s3", "h7"]


def coords(topo: Topology, names: list[str]) -> list[tuple[int, int]]:
    return [topo.switch(name).attrs["coords"] for name in names]


@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (3, 4), (8, 8)])
def test_mesh_xy_columns_first_then_rows(rows: int, cols: int) -> None:
    topo = mesh(rows, cols)
    for src, dst in pairs(topo):
        if src == dst:
            continue
        cells = coords(topo, switch_path(topo, src, dst))
        moves = [("col" if a[0] == b[0] else "row") for a, b in itertools.pairwise(cells)]
        assert moves == sorted(moves)  # every "col" before any "row"
        (r1, c1), (r2, c2) = divmod(src, cols), divmod(dst, cols)
        assert len(cells) - 1 == abs(r1 - r2) + abs(c1 - c2)


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (4, 4), (4, 5), (2, 5)])
def test_torus_xy_shorter_way_round(rows: int, cols: int) -> None:
    topo = torus(rows, cols)
    for src, dst in pairs(topo):
        if src == dst:
            continue
        cells = coords(topo, switch_path(topo, src, dst))
        kinds = ["col" if a[0] == b[0] else "row" for a, b in itertools.pairwise(cells)]
        assert kinds == sorted(kinds)
        ends = (divmod(src, cols), divmod(dst, cols))
        for dim, size, kind in ((0, rows, "row"), (1, cols, "col")):
            ahead = (ends[1][dim] - ends[0][dim]) % size
            assert kinds.count(kind) == min(ahead, size - ahead)
            if size > 2:  # one direction per dimension; exact ties go the positive way
                signs = {1 if (b[dim] - a[dim]) % size == 1 else -1
                         for a, b in itertools.pairwise(cells) if a[dim] != b[dim]}
                assert signs <= ({1} if ahead <= size - ahead else {-1})


def test_torus_ties_go_positive_and_wrap() -> None:
    topo = torus(4, 4)
    cols = [c for _, c in coords(topo, switch_path(topo, 0, 2))]
    assert cols == [0, 1, 2]  # tie (2 either way): east
    cols = [c for _, c in coords(topo, switch_path(topo, 2, 0))]
    assert cols == [2, 3, 0]  # tie again: east, across the wrap link
    cols = [c for _, c in coords(topo, switch_path(topo, 0, 3))]
    assert cols == [0, 3]  # west across the wrap link
    rows = [r for r, _ in coords(topo, switch_path(topo, 0, 12))]
    assert rows == [0, 3]  # north across the wrap link


def nca_level(k: int, src: int, dst: int) -> int:
    level = 0
    while src // k ** (level + 1) != dst // k ** (level + 1):
        level += 1
    return level


@pytest.mark.parametrize(("k", "n", "hosts"), [(4, 2, None), (4, 3, None), (2, 4, None),
                                               (3, 3, None), (4, 3, 32)])
def test_updown_climbs_exactly_to_nearest_common_ancestor(k: int, n: int,
                                                          hosts: int | None) -> None:
    topo = fattree(k, n, hosts)
    for src, dst in pairs(topo):
        if src == dst:
            continue
        levels = [topo.switch(s).attrs["level"] for s in switch_path(topo, src, dst)]
        top = levels.index(max(levels))
        assert levels[: top + 1] == list(range(top + 1))  # up one level per hop
        assert levels[top:] == list(range(top, -1, -1))  # then down one per hop
        assert max(levels) == nca_level(k, src, dst)
        # counting the host links: up-hops == down-hops == NCA level + 1
        assert topo.hops(src, dst) == 2 * (nca_level(k, src, dst) + 1)


@pytest.mark.parametrize(("k", "n"), [(4, 3), (2, 4)])
def test_updown_up_port_is_destination_digit(k: int, n: int) -> None:
    topo = fattree(k, n)
    table = topo.next_hops()
    for switch in topo.switches:
        level, index = switch.attrs["level"], switch.attrs["index"]
        for host in topo.hosts:
            d = host.node_id
            if d // k ** (level + 1) != index // k**level:  # d is not below: go up
                assert table[switch.name][host.name] == k + (d // k**level) % k + 1


def test_updown_spreads_destinations_over_top_switches() -> None:
    topo = fattree(4, 2)
    tops = {switch_path(topo, 0, dst)[1] for dst in range(4, 16)}
    assert len(tops) == 4


def test_bmin_turnaround() -> None:
    topo = bmin(3)
    assert topo.hops(0, 1) == 2 and topo.hops(0, 2) == 4 and topo.hops(0, 7) == 6


@pytest.mark.parametrize(("make", "expected"), [
    (lambda: star(8), (0, 1)), (lambda: tree(2, 4), (0, 4)), (lambda: mesh(4, 4), (0, 15)),
    (lambda: torus(4, 4), (0, 10)), (lambda: fattree(4, 2), (0, 4)),
    (lambda: fattree(4, 3), (0, 16)), (lambda: bmin(3), (0, 4)), (lambda: star(1), (0, 0)),
])
def test_diameter_pair(make, expected: tuple[int, int]) -> None:
    topo = make()
    a, b = topo.diameter_pair()
    assert (a.node_id, b.node_id) == expected
    assert topo.hops(a.node_id, b.node_id) == max(topo.hops(s, d) for s, d in pairs(topo))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: star(4, routing="xy"), "'xy' needs grid switches"),
    (lambda: tree(2, 2, routing="xy"), "'xy' needs grid switches"),
    (lambda: mesh(3, 3, routing="updown"), "'updown' needs levelled switches"),
    (lambda: torus(3, 3, routing="updown"), "'updown' needs levelled switches"),
    (lambda: mesh(2, 2, routing="ospf"), "unknown routing 'ospf'; choose from shortest, xy"),
])
def test_inapplicable_routing_is_refused(make, message: str) -> None:
    with pytest.raises(TopologyError, match=message):
        make()


def test_updown_needs_adjacent_levels() -> None:
    hosts = [Host.numbered(0), Host.numbered(1)]
    switches = [Switch.numbered(1, level=0), Switch.numbered(2, level=2)]
    links = [Link("h0", 0, "s1", 1), Link("h1", 0, "s2", 1), Link("s1", 2, "s2", 2)]
    with pytest.raises(TopologyError, match="adjacent levels"):
        Topology("bad", "file", hosts, switches, links, routing="updown")


def test_xy_needs_grid_neighbours() -> None:
    hosts = [Host.numbered(0), Host.numbered(1)]
    switches = [Switch.numbered(1, coords=(0, 0)), Switch.numbered(2, coords=(1, 1))]
    links = [Link("h0", 0, "s1", 1), Link("h1", 0, "s2", 1), Link("s1", 2, "s2", 2)]
    with pytest.raises(TopologyError, match="without being grid neighbours"):
        Topology("bad", "file", hosts, switches, links, routing="xy")


def test_hop_counts_detects_loops() -> None:
    topo = tree(2, 1)  # h0 on s2, h1 on s3, root s1
    table = topo.next_hops()
    table["s1"]["h0"] = topo.port_to("s1", "s3")
    table["s3"]["h0"] = topo.port_to("s3", "s1")
    with pytest.raises(TopologyError, match="loops at s1 on the way to h0"):
        routing.hop_counts(topo, table)
    table = topo.next_hops()
    table["s2"]["h1"] = topo.port_to("s2", "h0")
    with pytest.raises(TopologyError, match="delivers packets for h1 to host h0"):
        routing.hop_counts(topo, table)


def test_diameter_pair_of_a_subset() -> None:
    topo = mesh(8, 8)
    a, b = topo.diameter_pair(topo.hosts[:16])
    assert (a.node_id, b.node_id) == (0, 15)
