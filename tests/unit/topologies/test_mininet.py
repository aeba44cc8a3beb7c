"""topologies.mininet: Mininet's topology and link spellings build the same network as ours
(the same hosts, switches and cables), and what ours cannot build is refused."""

from __future__ import annotations

import itertools

import networkx as nx
import pytest

from topologies import TopologyError, parse_spec
from topologies.mininet import mininet_link, mininet_topology


def _ours(spec: str) -> nx.Graph:
    topo = parse_spec(spec)
    g = nx.Graph()
    g.add_nodes_from((h.name, {"kind": "host"}) for h in topo.hosts)
    g.add_nodes_from((s.name, {"kind": "switch"}) for s in topo.switches)
    g.add_edges_from((lk.node1, lk.node2) for lk in topo.links)
    return g


def _mininet(name: str, *a: int) -> nx.Graph:
    """Mininet's topology classes as mininet/topo.py builds them (SingleSwitchTopo,
    LinearTopo with n=1, TreeTopo, TorusTopo with n=1), as graphs."""
    g = nx.Graph()
    count = itertools.count(1)

    def switch() -> str:
        s = f"s{next(count)}"
        g.add_node(s, kind="switch")
        return s

    def host(s: str) -> None:
        h = f"h{next(count)}"
        g.add_node(h, kind="host")
        g.add_edge(h, s)

    if name == "single":
        s = switch()
        for _ in range(a[0]):
            host(s)
    elif name == "linear":
        chain = [switch() for _ in range(a[0])]
        for s in chain:
            host(s)
        g.add_edges_from(zip(chain, chain[1:], strict=False))
    elif name == "tree":
        def add(depth: int) -> str:
            if depth == 0:
                h = f"h{next(count)}"
                g.add_node(h, kind="host")
                return h
            s = switch()
            for _ in range(a[1]):
                g.add_edge(s, add(depth - 1))
            return s
        add(a[0])
    elif name == "torus":
        x, y = a
        grid = {(i, j): switch() for i in range(x) for j in range(y)}
        for (i, j), s in grid.items():
            host(s)
            g.add_edge(s, grid[((i + 1) % x, j)])
            g.add_edge(s, grid[(i, (j + 1) % y)])
    return g


@pytest.mark.parametrize(("spelling", "built"), [
    ("single,4", ("single", 4)), ("single,k=3", ("single", 3)), ("single", ("single", 2)),
    ("minimal", ("single", 2)), ("linear,4", ("linear", 4)), ("linear,k=3,n=1", ("linear", 3)),
    ("tree,depth=2,fanout=2", ("tree", 2, 2)), ("tree,2,3", ("tree", 2, 3)),
    ("tree,depth=1,fanout=5", ("tree", 1, 5)), ("torus,3,4", ("torus", 3, 4))])
def test_a_mininet_topology_is_the_same_network_as_ours(spelling: str,
                                                        built: tuple) -> None:
    """The same hosts and switches cabled the same way (an isomorphism keeping kinds)."""
    ours, theirs = _ours(mininet_topology(spelling) or ""), _mininet(*built)
    assert ours.number_of_nodes() == theirs.number_of_nodes()
    assert nx.is_isomorphic(ours, theirs, node_match=lambda a, b: a["kind"] == b["kind"])


@pytest.mark.parametrize("ours", ["tree", "torus", " torus ", "star", "tree:leaves=2",
                                  "mesh:rows=2,cols=2",
                                  "star:hosts=4", "fattree"])
def test_ours_stay_ours(ours: str) -> None:
    assert mininet_topology(ours) is None


@pytest.mark.parametrize(("spec", "message"), [
    ("tree,depth=3,fanout=2", "two levels"), ("linear,4,2", "one host per switch"),
    ("single,0", "must be >= 1"), ("single,x", "whole number"), ("tree,width=2", "no parameter"),
    ("torus,2,3", "at least 3"), ("single,2,3", "takes k")])
def test_what_ours_cannot_build_faithfully_is_refused(spec: str, message: str) -> None:
    with pytest.raises(TopologyError, match=message):
        mininet_topology(spec)


def test_a_mininet_link_is_our_rate_delay_and_loss() -> None:
    assert mininet_link("tc,bw=10,delay=5ms,loss=1") == {"bw": 10.0, "delay_ms": 5.0,
                                                         "loss": 0.01}
    assert mininet_link("tc,delay=100us") == {"delay_ms": 0.1}
    assert mininet_link("default") == {}
    for bad, why in (("tc,bw=0", "bad 'bw=0'"), ("tc,jitter=1ms", "'jitter' is not taken"),
                     ("tc,loss=200", "bad 'loss=200'"), ("htb,bw=1", "Mininet's 'tc,"),
                     ("tc,delay=fast", "bad 'delay=fast'"), ("tc,bw", "bad 'bw'"),
                     ("tc,bw=inf", "bad 'bw=inf'")):
        with pytest.raises(TopologyError, match=why):
            mininet_link(bad)


def test_every_spec_reader_takes_mininets_spelling() -> None:
    """parse_spec (experiment specs, labs, the Python API) reads them as the CLI does."""
    assert parse_spec("single,3").name == parse_spec("star:hosts=3").name == "star-3"
    assert parse_spec("linear,3", bw=10).host_rate() == 10
