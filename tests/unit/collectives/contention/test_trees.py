"""collectives.contention.trees: OPT-Mesh, U-Mesh and OPT-Min against Nupairoj 1998's examples
(the 6x6 mesh of section 5.2 with t_hold=20, t_end=55: OPT-Mesh 130, U-Mesh 165; the 16-node
BMIN of section 5.3: 130), contention-freedom on the routes topologies computes (and its two
known limits), and every tree's invariants. The thesis writes mesh nodes (x, y) and routes x
first; topologies' XY routing moves along the column first, so the thesis's (x, y) is node
``y * cols + x``."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable

import pytest

from collectives.contention import schedules as cs
from collectives.contention import trees as ct
from collectives.opttree import opt_table
from collectives.trees.latency_model import PointToPoint, predict
from collectives.trees.schedules import build
from topologies import Topology, bmin, mesh

from .networks import links, topology

T_HOLD, T_END = 20.0, 55.0
REGIMES = [(20.0, 55.0), (1.0, 1.0), (5.0, 100.0), (55.0, 20.0)]  # last: t_hold > t_end


MESH_SOURCE = (3, 2)
MESH_DESTS = [(1, 5), (2, 1), (3, 4), (4, 3), (4, 4), (5, 1), (5, 4)]
MESH_CHAIN = ((1, 5), (2, 1), (3, 2), (3, 4), (4, 3), (4, 4), (5, 1), (5, 4))
# (time, sender, receiver, D); the thesis leaves D blank for a single node: D = (receiver,)
MESH_SENDS = [
    (0, (3, 2), (4, 4), ((4, 4), (5, 1), (5, 4))),
    (20, (3, 2), (3, 4), ((3, 4), (4, 3))),
    (40, (3, 2), (1, 5), None),
    (55, (4, 4), (5, 4), None),
    (60, (3, 2), (2, 1), None),
    (75, (3, 4), (4, 3), None),
    (75, (4, 4), (5, 1), None),
]


def xy_node(point: tuple[int, int], cols: int = 6) -> int:
    x, y = point
    return y * cols + x


def table(tree: ct.ContentionTree) -> list[tuple]:
    return [(s.start, s.sender, s.receiver, s.addresses) for s in tree.sends]


def expected(rows: list[tuple], node: Callable = lambda p: p) -> list[tuple]:
    return [(t, node(a), node(b), tuple(map(node, d or (b,)))) for t, a, b, d in rows]


def test_opt_mesh_example_on_the_thesis_coordinates() -> None:
    chain = tuple(sorted([MESH_SOURCE, *MESH_DESTS]))
    assert chain == MESH_CHAIN
    tree = ct.chain_tree(chain, MESH_SOURCE, ct.opt_split(8, T_HOLD, T_END), T_HOLD, T_END)
    assert table(tree) == expected(MESH_SENDS)
    assert tree.latency == 130


def test_opt_mesh_and_u_mesh_example_on_node_ids() -> None:
    nodes = [xy_node(p) for p in MESH_DESTS]
    opt = ct.opt_mesh(nodes, xy_node(MESH_SOURCE), 6, 6, T_HOLD, T_END)
    assert opt.chain == tuple(map(xy_node, MESH_CHAIN))
    assert table(opt) == expected(MESH_SENDS, xy_node)
    assert opt.latency == 130
    assert ct.u_mesh(nodes, xy_node(MESH_SOURCE), 6, 6, T_HOLD, T_END).latency == 165


def test_mesh_example_through_build_and_the_model() -> None:
    nodes = tuple(xy_node(p) for p in [MESH_SOURCE, *MESH_DESTS])
    p = PointToPoint.constant(T_HOLD, T_END)
    got = {a: predict(build(a, 8, 0, 1000, mesh=(6, 6), nodes=nodes, t_hold=T_HOLD,
                            t_end=T_END), p) for a in ("opt-mesh", "u-mesh")}
    assert got == {"opt-mesh": 130, "u-mesh": 165}


def test_mesh_example_shares_links_only_at_different_times() -> None:
    """The two link sharings the thesis points out, on topologies' 6x6 mesh."""
    topo = topology("mesh", 6, 6)
    tree = ct.opt_mesh([xy_node(p) for p in MESH_DESTS], xy_node(MESH_SOURCE), 6, 6,
                       T_HOLD, T_END)
    start = {(s.sender, s.receiver): s.start for s in tree.sends}
    for a, b, c, link in (((4, 4), (5, 4), (5, 1), ((4, 4), (5, 4))),
                          ((3, 2), (1, 5), (2, 1), ((3, 2), (2, 2)))):
        first, second = (xy_node(a), xy_node(b)), (xy_node(a), xy_node(c))
        shared = links(topo, *first) & links(topo, *second)
        assert switch_link(topo, *map(xy_node, link)) in shared
        assert abs(start[first] - start[second]) >= T_HOLD
    assert contentions(tree, lambda a, b: links(topo, a, b)) == []


BMIN_SOURCE = 0b0011
BMIN_DESTS = [0b0001, 0b0110, 0b0111, 0b1010, 0b1100, 0b1101]
BMIN_SENDS = [
    (0, 0b0011, 0b1100, (0b1100, 0b1101)),
    (20, 0b0011, 0b0111, (0b0111, 0b1010)),
    (40, 0b0011, 0b0110, None),
    (55, 0b1100, 0b1101, None),
    (60, 0b0011, 0b0001, None),
    (75, 0b0111, 0b1010, None),
]


def test_opt_min_example() -> None:
    tree = ct.opt_min(BMIN_DESTS, BMIN_SOURCE, 2, 4, T_HOLD, T_END)
    assert tree.chain == (0b0001, 0b0011, 0b0110, 0b0111, 0b1010, 0b1100, 0b1101)
    assert table(tree) == expected(BMIN_SENDS)
    assert tree.latency == 130 == max(T_HOLD + 2 * T_END, 3 * T_HOLD + T_END)
    topo = topology("bmin", 4)
    assert contentions(tree, lambda a, b: source_routed_links(topo, a, b)) == []


def source_routed_links(topo: Topology, a: int, b: int) -> set[tuple[str, str]]:
    """Turnaround routing with the up links chosen by the source (Xu & Ni): the reverse of
    topologies' updown route from b to a, which chooses them by the destination."""
    return {(y, x) for x, y in itertools.pairwise(topo.path(b, a))}


def switch_link(topo: Topology, a: int, b: int) -> tuple[str, str]:
    """The link from host a's switch to host b's switch."""
    return topo.host_attachment(a)[0], topo.host_attachment(b)[0]


def contentions(tree: ct.ContentionTree, route: Callable) -> list[tuple]:
    """Pairs of sends busy at the same time (a path is busy for t_hold) sharing a link."""
    return cs.contended_pairs(tree.sends, tree.t_hold, route)


def random_case(rng: random.Random, total: int) -> tuple[list[int], int]:
    nodes = rng.sample(range(total), rng.randint(2, total))
    return nodes, rng.choice(nodes)


GRIDS = [(r, c) for r in range(1, 7) for c in range(1, 7) if r * c > 1]


@pytest.mark.parametrize(("t_hold", "t_end"), REGIMES)
@pytest.mark.parametrize("algorithm", [ct.opt_mesh, ct.u_mesh])
def test_mesh_trees_are_contention_free_under_xy_routing(algorithm, t_hold, t_end) -> None:
    rng = random.Random(f"{algorithm.__name__}{t_hold}")
    for _ in range(60):
        shape = rng.choice(GRIDS)
        nodes, root = random_case(rng, shape[0] * shape[1])
        tree = algorithm(nodes, root, *shape, t_hold, t_end)
        topo = topology("mesh", *shape)
        assert contentions(tree, lambda a, b, t=topo: links(t, a, b)) == [], tree


@pytest.mark.parametrize(("t_hold", "t_end"), REGIMES)
@pytest.mark.parametrize("algorithm", [ct.opt_min, ct.u_min])
def test_bmin_trees_are_contention_free_under_turnaround_routing(algorithm, t_hold,
                                                                  t_end) -> None:
    rng = random.Random(f"{algorithm.__name__}{t_hold}")
    for _ in range(60):
        n = rng.randint(1, 5)
        nodes, root = random_case(rng, 2**n)
        tree = algorithm(nodes, root, 2, n, t_hold, t_end)
        topo = topology("bmin", n)
        assert contentions(tree, lambda a, b, t=topo: source_routed_links(t, a, b)) == []


@pytest.mark.parametrize(("t_hold", "t_end"), REGIMES)
def test_u_torus_is_contention_free_on_a_ring(t_hold, t_end) -> None:
    rng = random.Random(f"ring{t_hold}")
    shapes = [(1, n) for n in range(2, 11)] + [(n, 1) for n in range(2, 11)]
    for _ in range(60):
        shape = rng.choice(shapes)
        nodes, root = random_case(rng, shape[0] * shape[1])
        tree = ct.u_torus(nodes, root, *shape, t_hold, t_end)
        topo = topology("torus", *shape)
        assert contentions(tree, lambda a, b, t=topo: links(t, a, b)) == []


def test_u_torus_on_a_2d_torus_only_contends_on_y_links_into_a_column() -> None:
    """Known limit: without Robinson et al.'s virtual channels a send that turns into a
    column (6 -> 1, wrapping rows 2 -> 3 -> 0) meets one inside it (4 -> 10) on a Y link."""
    topo = topology("torus", 4, 3)
    tree = ct.u_torus([0, 1, 2, 3, 4, 6, 10], 0, 4, 3, T_HOLD, T_END)
    found = contentions(tree, lambda a, b: links(topo, a, b))
    assert [(x.sender, x.receiver, y.sender, y.receiver) for x, y, _ in found] == [(6, 1, 4, 10)]
    assert found[0][2] == {("s8", "s11")}  # column 1, row 2 -> row 3
    rng = random.Random(3)
    shapes = [(r, c) for r in range(2, 7) for c in range(2, 7)]
    for _ in range(60):
        shape = rng.choice(shapes)
        nodes, root = random_case(rng, shape[0] * shape[1])
        tree = ct.u_torus(nodes, root, *shape, 1.0, 1.0)
        topo = topology("torus", *shape)
        for x, y, shared in contentions(tree, lambda a, b, t=topo: links(t, a, b)):
            assert any(s.sender % shape[1] != s.receiver % shape[1] for s in (x, y))
            for a, b in shared:  # both ends in one column: a Y link
                assert topo.switch(a).attrs["coords"][1] == topo.switch(b).attrs["coords"][1]


def test_opt_min_can_contend_under_destination_routed_updown() -> None:
    """Known limit: topologies' updown picks up links by the destination, so two sends that
    leave adjacent parts in opposite directions (8 -> 5 and 10 -> 13) share an up link."""
    topo = topology("bmin", 4)
    tree = ct.opt_min([2, 5, 10, 13], 8, 2, 4, T_HOLD, T_END)
    found = contentions(tree, lambda a, b: links(topo, a, b))
    assert [(x.sender, x.receiver, y.sender, y.receiver) for x, y, _ in found] == [(8, 5, 10, 13)]
    assert contentions(tree, lambda a, b: source_routed_links(topo, a, b)) == []


def test_grid_numbering_matches_topologies() -> None:
    topo = mesh(3, 4)
    assert all(ct.grid_coords(h.node_id, 4) == h.attrs["coords"] for h in topo.hosts)
    assert [h.attrs["address"] for h in bmin(3).hosts] == [format(i, "03b") for i in range(8)]


BUILDERS = {
    "opt-mesh": lambda nodes, root, th, te: ct.opt_mesh(nodes, root, 5, 6, th, te),
    "u-mesh": lambda nodes, root, th, te: ct.u_mesh(nodes, root, 5, 6, th, te),
    "u-torus": lambda nodes, root, th, te: ct.u_torus(nodes, root, 5, 6, th, te),
    "opt-min": lambda nodes, root, th, te: ct.opt_min(nodes, root, 2, 5, th, te),
    "u-min": lambda nodes, root, th, te: ct.u_min(nodes, root, 2, 5, th, te),
}


def check_tree(tree: ct.ContentionTree, nodes: list[int], root: int) -> None:
    receivers = [s.receiver for s in tree.sends]
    assert sorted(receivers) == sorted(set(nodes) - {root})  # each exactly once, never the root
    have = tree.arrivals()
    by_sender: dict[int, list[ct.TimedSend]] = {}
    for s in tree.sends:
        by_sender.setdefault(s.sender, []).append(s)
        assert s.arrival == s.start + tree.t_end
    step = {root: 0, **{s.receiver: s.step for s in tree.sends}}
    for sender, sends in by_sender.items():
        # the sender has the message before it sends; its sends are t_hold apart
        assert [s.start for s in sends] == [have[sender] + q * tree.t_hold
                                            for q in range(len(sends))]
        assert [s.step for s in sends] == [step[sender] + q for q in range(1, len(sends) + 1)]
    children = tree.children()
    index = {node: i for i, node in enumerate(tree.chain)}
    for s in tree.sends:
        # D is a contiguous part of the chain with the receiver at its end nearer the sender
        # (U-Torus: its first node), and exactly the receiver's subtree
        span = [index[n] for n in s.addresses]
        assert span == list(range(span[0], span[-1] + 1))
        near = span[0] if index[s.sender] < span[0] else span[-1]
        assert index[s.receiver] == near
        subtree, stack = {s.receiver}, [s.receiver]
        while stack:
            for child in children.get(stack.pop(), ()):
                subtree.add(child)
                stack.append(child)
        assert subtree == set(s.addresses)
    assert tree.latency == max(have.values())


@pytest.mark.parametrize(("t_hold", "t_end"), REGIMES)
@pytest.mark.parametrize("name", BUILDERS)
def test_every_participant_receives_once_after_its_sender_received(name, t_hold, t_end) -> None:
    rng = random.Random(f"{name}{t_hold}")
    for _ in range(40):
        nodes, root = random_case(rng, 30)
        check_tree(BUILDERS[name](nodes, root, t_hold, t_end), nodes, root)


def test_single_participant_has_no_sends() -> None:
    tree = ct.opt_mesh([7], 7, 4, 4, T_HOLD, T_END)
    assert tree.sends == () and tree.latency == 0 and tree.arrivals() == {7: 0.0}


@pytest.mark.parametrize(("t_hold", "t_end"), REGIMES)
def test_opt_trees_reach_the_opt_tree_latency(t_hold, t_end) -> None:
    """Same shape as OPT-Tree, so t[k]; with t_hold > t_end only if the source is at an end
    of the chain (in the middle, the best contiguous split may cost more, never less)."""
    rng = random.Random(f"lat{t_hold}")
    for _ in range(60):
        nodes, root = random_case(rng, 32)
        best = opt_table(len(nodes), t_hold, t_end).t[len(nodes)]
        for tree in (ct.opt_mesh(nodes, root, 4, 8, t_hold, t_end),
                     ct.opt_min(nodes, root, 2, 5, t_hold, t_end)):
            at_end = root in (tree.chain[0], tree.chain[-1])
            if t_hold <= t_end or at_end:
                assert tree.latency == best
            else:
                assert tree.latency >= best


def test_u_trees_take_ceil_log2_steps() -> None:
    rng = random.Random(5)
    for _ in range(60):
        nodes, root = random_case(rng, 30)
        for name in ("u-mesh", "u-torus", "u-min"):
            tree = BUILDERS[name](nodes, root, 1.0, 1.0)
            steps = math.ceil(math.log2(len(nodes)))
            assert max(s.step for s in tree.sends) == steps
            assert tree.latency == steps  # t_hold = t_end = 1: times count steps


def test_u_torus_chain_starts_at_the_root() -> None:
    tree = ct.u_torus([0, 5, 10, 15, 3], 10, 4, 4)
    assert tree.chain == (10, 15, 3, 0, 5)  # by (col - 2) % 4, then (row - 2) % 4
    assert all(tree.chain.index(s.sender) < tree.chain.index(s.receiver) for s in tree.sends)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: ct.opt_mesh([1, 2], 0, 2, 2, -1, 5), "t_hold"),
    (lambda: ct.u_mesh([1, 4], 0, 2, 2), "not a node"),
    (lambda: ct.u_mesh([1, 1], 0, 2, 2), "twice"),
    (lambda: ct.u_mesh([1], 0, 0, 2), "rows"),
    (lambda: ct.opt_min([1], 0, 1, 3, 1, 1), "k must"),
    (lambda: ct.chain_tree([1, 2], 3, ct.halving_split), "not in the chain"),
])
def test_bad_inputs(call, message) -> None:
    with pytest.raises(ValueError, match=message):
        call()
