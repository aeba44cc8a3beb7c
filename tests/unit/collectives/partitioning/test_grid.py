"""collectives.partitioning.grid: the torus's and the mesh's routes and links are the
testbed's (topologies' XY routes and switch links), and their partition into dilated
subnetworks: Tseng2001's Fig. 1 (four dilated-4 4x4 tori in a 16x16 torus) and its mesh
counterpart, properties P1 to P5 on both, a dilation that does not divide refused."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from collectives.partitioning.grid import GRIDS, Mesh, Partition, Torus
from topologies import mesh as mesh_topology
from topologies import torus as torus_topology

from .tseng2001 import T16

# ---- torus geometry and routing ---------------------------------------------------------------
BUILD = {Torus: torus_topology, Mesh: mesh_topology}


@pytest.mark.parametrize("kind", [Torus, Mesh])
@pytest.mark.parametrize("rows,cols", [(4, 6), (3, 3), (2, 5), (1, 4)])
def test_routes_are_the_testbeds_xy_routes(kind, rows, cols):
    topo, t = BUILD[kind](rows, cols), kind(rows, cols)
    for u, v in itertools.product(range(t.size), repeat=2):
        switches = [int(n[1:]) - 1 for n in topo.path(u, v)[1:-1]]
        assert t.route(u, v) == tuple(zip(switches, switches[1:], strict=False))


@pytest.mark.parametrize("kind", [Torus, Mesh])
def test_links_are_the_testbeds_switch_links(kind):
    for rows, cols in [(4, 6), (2, 3), (1, 1)]:
        topo = BUILD[kind](rows, cols)
        cables = {(int(a[1:]) - 1, int(b[1:]) - 1) for a, b in topo.graph().edges
                  if a[0] == b[0] == "s"}
        assert kind(rows, cols).links() == cables | {(b, a) for a, b in cables}


def test_a_mesh_routes_straight_where_a_torus_wraps():
    assert Torus(1, 5).route(0, 4) == ((0, 4),)
    assert Mesh(1, 5).route(0, 4) == ((0, 1), (1, 2), (2, 3), (3, 4))
    assert (Mesh(4, 4).name, Torus(2, 3).name) == ("4x4 mesh", "2x3 torus")
    assert {"torus": Torus, "mesh": Mesh} == GRIDS and Mesh(2, 2) != Torus(2, 2)
    with pytest.raises(ValueError, match="node must be in 0..15 on a 4x4 mesh, got 16"):
        Mesh(4, 4).route(0, 16)
    with pytest.raises(ValueError, match="mesh cols must be a positive integer"):
        Mesh(4, 0)


# ---- the partition: Fig. 1 and properties P1-P5 -----------------------------------------------
def _contracted(part: Partition, a: int) -> nx.Graph:
    """DDN_a as a graph on its nodes, an edge per run of links between two of them (on a
    mesh a run towards the edge ends nowhere and is no edge)."""
    links = nx.Graph(list(part.ddn_links(a)))
    nodes = set(part.ddn_nodes(a))
    out = nx.Graph()
    for u in nodes:
        for first in links[u]:
            prev, node, hops = u, first, 1
            while node is not None and node not in nodes:  # off the DDN's nodes: straight on
                prev, node, hops = node, next((n for n in links[node] if n != prev), None), \
                    hops + 1
            if node is not None:
                out.add_edge(u, node, hops=hops)
    return out


def test_fig1_four_dilated_4_subnetworks_each_a_4x4_torus_in_a_16x16_torus():
    part = Partition(T16, 4)
    assert part.ddn_count == 4 and part.block_shape == (4, 4) and part.block_count == 16
    for a in range(4):
        g = _contracted(part, a)
        assert nx.is_isomorphic(g, nx.grid_2d_graph(4, 4, periodic=True))
        assert {d["hops"] for *_, d in g.edges(data=True)} == {4}  # dilated-4
        # the DDN's own nodes are exactly the crossings of its rows and columns
        undirected = nx.Graph(list(part.ddn_links(a)))
        assert {n for n, deg in undirected.degree if deg == 4} == set(part.ddn_nodes(a))
    assert part.ddn_nodes(0)[:4] == (0, 4, 8, 12)
    assert part.ddn_nodes(1)[:2] == (17, 21)
    assert part.member(3, 15) == T16.node(15, 15)


def test_fig1_on_a_mesh_four_dilated_4_subnetworks_each_a_4x4_mesh():
    """The construction on a 16x16 mesh: DDN_a is a 4x4 mesh of 4-hop links (plus the stubs
    of its rows and columns towards the edges, which it owns but no route between its nodes
    uses)."""
    part = Partition(Mesh(16, 16), 4)
    for a in range(4):
        g = _contracted(part, a)
        assert nx.is_isomorphic(g, nx.grid_2d_graph(4, 4))
        assert {d["hops"] for *_, d in g.edges(data=True)} == {4}
    assert part.ddn_nodes(1)[:2] == (17, 21)


@pytest.mark.parametrize("kind", [Torus, Mesh])
@pytest.mark.parametrize("rows,cols,h", [(16, 16, 4), (16, 16, 2), (8, 12, 4), (6, 6, 3),
                                         (4, 4, 4), (4, 4, 1), (2, 4, 2)])
def test_partition_properties_p1_to_p5(kind, rows, cols, h):
    t = kind(rows, cols)
    part = Partition(t, h)
    owned = [part.ddn_links(a) for a in range(h)]
    # P1: the DDNs share no link and own every link once, each the same number
    assert sum(len(o) for o in owned) == len(t.links()) == len(frozenset().union(*owned))
    assert len({len(o) for o in owned}) == 1
    # xy routes between nodes of one DDN stay on its links
    for a in range(h):
        for u, v in itertools.product(part.ddn_nodes(a), repeat=2):
            assert set(t.route(u, v)) <= owned[a]
    # P2: blocks are disjoint and cover; P3: each meets each DDN in exactly one node
    blocks = [part.block_nodes(b) for b in range(part.block_count)]
    assert sorted(itertools.chain(*blocks)) == list(range(t.size))
    for b, nodes in enumerate(blocks):
        assert all(part.block_of(n) == b for n in nodes)
        for a in range(h):
            assert [n for n in nodes if part.ddn_of(n) == a] == [part.member(a, b)]
    # P4, P5: equal sizes (the construction is a translation of one DDN / one block)
    assert len({len(part.ddn_nodes(a)) for a in range(h)}) == 1
    assert len({len(nodes) for nodes in blocks}) == 1


def test_partition_rejects_a_dilation_that_does_not_divide():
    with pytest.raises(ValueError, match="divide"):
        Partition(Torus(16, 12), 8)
    with pytest.raises(ValueError, match="dilation 3 must divide both sides of the 4x6 mesh"):
        Partition(Mesh(4, 6), 3)
    with pytest.raises(ValueError, match="positive"):
        Partition(T16, 0)
