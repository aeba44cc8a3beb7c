"""topologies.model: element validation, Topology checks, lookups, the graph, serialisation and
equality."""

import json
import math

import networkx as nx
import pytest

from topologies import (
    FORMAT,
    Host,
    Link,
    LinkParams,
    Switch,
    Topology,
    TopologyError,
    bmin,
    fattree,
    mesh,
    star,
    torus,
    tree,
)


def test_link_params_defaults_and_normalisation() -> None:
    assert LinkParams() == LinkParams(100.0, 0.0, 0.0, None)
    params = LinkParams(bw_mbit=10, delay_ms=2, loss_pct=1, max_queue=50)
    assert isinstance(params.bw_mbit, float) and params.bw_mbit == 10.0
    assert LinkParams(bw_mbit=None).bw_mbit is None
    hash(params)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"bw_mbit": 0}, "bandwidth must be > 0"),
    ({"bw_mbit": -5}, "bandwidth must be > 0"),
    ({"bw_mbit": math.nan}, "bandwidth must be a finite number"),
    ({"bw_mbit": "fast"}, "bandwidth must be a finite number"),
    ({"bw_mbit": True}, "bandwidth must be a finite number"),
    ({"delay_ms": -1}, "delay must be >= 0 ms"),
    ({"loss_pct": -0.5}, r"loss must be in \[0, 100\)"),
    ({"loss_pct": 100}, r"loss must be in \[0, 100\)"),
    ({"max_queue": 0}, "max_queue must be a positive number of packets"),
    ({"max_queue": 1.5}, "max_queue must be a positive number of packets"),
])
def test_link_params_validation(kwargs: dict, message: str) -> None:
    with pytest.raises(TopologyError, match=message):
        LinkParams(**kwargs)


def test_topology_error_is_value_error() -> None:
    assert issubclass(TopologyError, ValueError)


@pytest.mark.parametrize(("node_id", "ip", "mac"), [
    (0, "10.0.0.1", "00:00:00:00:00:01"),
    (1, "10.0.0.2", "00:00:00:00:00:02"),
    (254, "10.0.0.255", "00:00:00:00:00:ff"),
    (255, "10.0.1.0", "00:00:00:00:01:00"),
])
def test_host_addresses(node_id: int, ip: str, mac: str) -> None:
    host = Host.numbered(node_id)
    assert (host.name, host.ip, host.mac) == (f"h{node_id}", ip, mac)
    assert Host(f"h{node_id}", node_id, ip, mac) == host


def test_host_and_switch_validation() -> None:
    with pytest.raises(TopologyError, match="must be named 'h3', not 'h4'"):
        Host("h4", 3)
    assert Host("h0", 0, ip="10.0.0.9", mac="AA:00:00:00:00:09").mac == "aa:00:00:00:00:09"
    with pytest.raises(TopologyError, match="'10.0.0' is not an IPv4 address"):
        Host("h0", 0, ip="10.0.0")
    with pytest.raises(TopologyError, match="is not a MAC address"):
        Host("h0", 0, mac="00:11")
    with pytest.raises(TopologyError, match="host node id must be an integer"):
        Host("h-1", -1)
    with pytest.raises(TopologyError, match="must be named 's2', not 'sw2'"):
        Switch("sw2", 2)
    with pytest.raises(TopologyError, match="switch dpid must be an integer >= 1"):
        Switch("s0", 0)
    with pytest.raises(TopologyError, match="ports are integers >= 0"):
        Link("h0", -1, "s1", 1)


def test_attrs_are_read_only_and_lists_become_tuples() -> None:
    switch = Switch.numbered(1, coords=[1, 2])
    assert switch.attrs["coords"] == (1, 2)
    with pytest.raises(TypeError):
        switch.attrs["coords"] = (0, 0)  # type: ignore[index]
    assert hash(switch) == hash(Switch.numbered(1, coords=(1, 2)))


def small(links: list[Link], hosts: int = 2, switches: int = 2, **kwargs) -> Topology:
    return Topology("t", "file", [Host.numbered(i) for i in range(hosts)],
                    [Switch.numbered(i + 1) for i in range(switches)], links, **kwargs)


GOOD = [Link("h0", 0, "s1", 1), Link("h1", 0, "s2", 1), Link("s1", 2, "s2", 2)]


@pytest.mark.parametrize(("links", "message"), [
    ([*GOOD, Link("h0", 0, "s9", 1)], r"link 4 \(h0-s9\) names unknown node 's9'"),
    ([*GOOD, Link("s1", 3, "s1", 4)], r"link 4 \(s1-s1\) connects s1 to itself"),
    ([*GOOD, Link("h0", 0, "h1", 0)], r"link 4 \(h0-h1\) connects two hosts"),
    ([*GOOD, Link("s2", 3, "s1", 3)], r"link 4 \(s2-s1\) duplicates an earlier link"),
    ([*GOOD, Link("h0", 0, "s2", 3)], "host h0 has more than one link"),
    ([Link("h0", 2, "s1", 1), *GOOD[1:]], "gives host h0 port 2; a host's end is always port 0"),
    ([Link("h0", 0, "s1", 0), *GOOD[1:]], "gives switch s1 port 0; switch ports start at 1"),
    ([Link("h0", 0, "s1", 2), *GOOD[1:]], r"link 3 \(s1-s2\) reuses port 2 of s1, which "
                                          "already leads to h0"),
    (GOOD[1:], "host h0 has no link"),
    (GOOD[:2], "not connected: h1 cannot be reached from h0"),
])
def test_topology_link_checks(links: list[Link], message: str) -> None:
    with pytest.raises(TopologyError, match=message):
        small(links)


def test_topology_node_checks() -> None:
    with pytest.raises(TopologyError, match="has no hosts"):
        Topology("t", "file", [], [Switch.numbered(1)], [])
    with pytest.raises(TopologyError, match="duplicate node name 'h0'"):
        Topology("t", "file", [Host.numbered(0), Host.numbered(0)], [Switch.numbered(1)], [])
    with pytest.raises(TopologyError, match=r"exactly 0..1, but h1 is missing \(highest is h2\)"):
        Topology("t", "file", [Host.numbered(0), Host.numbered(2)], [Switch.numbered(1)], [])


def test_hosts_are_sorted_into_rank_order() -> None:
    topo = Topology("t", "file", [Host.numbered(1), Host.numbered(0)], [Switch.numbered(1)],
                    [Link("h1", 0, "s1", 1), Link("h0", 0, "s1", 2)])
    assert [h.name for h in topo.hosts] == ["h0", "h1"]


def test_lookups() -> None:
    topo = tree(2, 2)
    assert topo.host(3) is topo.host("h3") is topo.hosts[3]
    assert topo.switch(2) is topo.switch("s2")
    assert topo.node_names() == ["h0", "h1", "h2", "h3", "s1", "s2", "s3"]
    for bad in (4, -1, "h9", True):
        with pytest.raises(TopologyError, match="has no host"):
            topo.host(bad)
    with pytest.raises(TopologyError, match="has no switch 9"):
        topo.switch(9)
    assert topo.port_to("s1", "s3") == 2 and topo.neighbour("s1", 2) == "s3"
    assert topo.port_to("h2", "s3") == 0 and topo.neighbour("h2", 0) == "s3"
    with pytest.raises(TopologyError, match="no link between 's2' and 's3'"):
        topo.port_to("s2", "s3")
    with pytest.raises(TopologyError, match="no port 7 on node 's1'"):
        topo.neighbour("s1", 7)
    assert topo.host_attachment("h3") == ("s3", 3)
    assert topo.host_attachment(topo.host(0)) == topo.host_attachment(0) == ("s2", 2)
    assert topo.ports("s2") == {1: "s1", 2: "h0", 3: "h1"}


def test_graph() -> None:
    topo = mesh(2, 2)
    graph = topo.graph()
    assert nx.is_frozen(graph)
    assert graph.nodes["h0"]["kind"] == "host" and graph.nodes["s1"]["kind"] == "switch"
    assert graph.number_of_edges() == len(topo.links)
    data = graph.edges["s1", "s2"]
    assert data["ports"] == {"s1": 2, "s2": 3}
    assert data["link"] in topo.links


SHAPES = [star(4), tree(2, 3, bw=10, core_bw=None), fattree(4, 2), fattree(4, 3, hosts=20),
          mesh(3, 4, delay_ms=1), torus(3, 3, core_bw=float("inf")), bmin(3),
          mesh(2, 2, routing="shortest")]


@pytest.mark.parametrize("topo", SHAPES, ids=lambda t: t.name)
def test_dict_round_trip(topo: Topology) -> None:
    record = topo.to_dict()
    assert record["format"] == FORMAT
    through_json = json.loads(json.dumps(record))
    assert through_json == record  # already JSON-shaped: lists, no tuples
    again = Topology.from_dict(through_json)
    assert again == topo
    assert again.hosts == topo.hosts and again.switches == topo.switches
    assert again.links == topo.links and again.params == topo.params
    assert again.next_hops() == topo.next_hops()
    if "coords" in topo.switches[0].attrs:
        assert isinstance(again.switches[0].attrs["coords"], tuple)


def test_save_and_load_json(tmp_path) -> None:
    topo = torus(3, 3)
    path = tmp_path / "topology.json"
    topo.save(path)
    assert Topology.load_json(path) == topo
    assert [p.name for p in tmp_path.iterdir()] == ["topology.json"]  # no temp file left


def test_load_json_errors(tmp_path) -> None:
    with pytest.raises(TopologyError, match="topology file not found"):
        Topology.load_json(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": \n')
    with pytest.raises(TopologyError, match="invalid JSON at line 2"):
        Topology.load_json(bad)
    bad.write_text('{"name": "x"}')
    with pytest.raises(TopologyError, match="not a saved topology record"):
        Topology.load_json(bad)
    record = star(2).to_dict()
    del record["links"]
    bad.write_text(json.dumps(record))
    with pytest.raises(TopologyError, match="malformed"):
        Topology.load_json(bad)


def test_equality() -> None:
    assert star(3) == star(3)
    assert star(3) != star(4)
    assert star(3) != star(3, bw=10)


def test_summary() -> None:
    text = tree(2, 2, bw=10, core_bw=40, delay_ms=0.5).summary()
    assert text.splitlines() == [
        "tree-2x2 (tree): 4 hosts, 3 switches, 6 links, routing shortest",
        "  host links:   10 Mbit/s, delay 0.5 ms",
        "  switch links: 40 Mbit/s, delay 0.5 ms",
    ]
    assert star(1, bw=None).summary().splitlines() == [
        "star-1 (star): 1 host, 1 switch, 1 link, routing shortest",
        "  host links:   unlimited, delay 0 ms",
    ]


def test_a_host_by_name_or_node_id_as_typed() -> None:
    from topologies import parse_spec

    topo = parse_spec("star:hosts=4")
    assert topo.host("h3") is topo.host(3) is topo.host("3")
    with pytest.raises(TopologyError, match="has no host 7"):
        topo.host("7")
    with pytest.raises(TopologyError, match="has no host 'x3'"):
        topo.host("x3")
