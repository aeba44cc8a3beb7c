"""topologies.registry: the shapes and their common parameters, each shape's default routing,
and build() and parse_spec() strings and their errors."""

import inspect

import pytest

import topologies
from topologies import SHAPES, TopologyError, build, fattree, mesh, parse_spec, shape_parameters
from topologies.construction import MAX_HOSTS, MAX_SWITCHES


def test_shapes_and_common_parameters() -> None:
    assert list(SHAPES) == ["star", "tree", "fattree", "mesh", "torus", "bmin"]
    for name, builder in SHAPES.items():
        params = inspect.signature(builder).parameters
        assert {"bw", "core_bw", "delay_ms", "routing"} <= set(params), name
        assert params["bw"].default == 100.0 and params["delay_ms"].default == 0.0
        assert build(name).shape == name
    assert shape_parameters("mesh") == ["rows", "cols", "bw", "core_bw", "delay_ms", "routing"]


def test_default_routing_per_shape() -> None:
    routing = {name: build(name).routing for name in SHAPES}
    assert routing == {"star": "shortest", "tree": "shortest", "fattree": "updown",
                       "mesh": "xy", "torus": "xy", "bmin": "updown"}


@pytest.mark.parametrize(("spec", "expected"), [
    ("star", topologies.star()),
    ("mesh:rows=4,cols=4,bw=10", mesh(4, 4, bw=10)),
    (" torus : rows = 3 , cols = 3 ", topologies.torus(3, 3)),
    ("fattree:k=4,n=3,hosts=32", fattree(4, 3, hosts=32)),
    ("fattree:hosts=none", fattree()),
    ("bmin:n=2,delay_ms=0.5", topologies.bmin(2, delay_ms=0.5)),
    ("tree:leaves=3,hosts_per_leaf=2,core_bw=1000", topologies.tree(3, 2, core_bw=1000)),
    ("star:hosts=4,bw=unlimited", topologies.star(4, bw=None)),
    ("star:hosts=4,bw=10,core_bw=inf", topologies.star(4, bw=10, core_bw=float("inf"))),
    ("mesh:rows=2,cols=3,routing=shortest", mesh(2, 3, routing="shortest")),
    ("mesh:", mesh()),
])
def test_parse_spec_forms(spec: str, expected: topologies.Topology) -> None:
    assert parse_spec(spec) == expected


def test_parse_spec_values() -> None:
    topo = parse_spec("mesh:rows=2,cols=2,bw=2.5,delay_ms=3")
    assert {lk.params.bw_mbit for lk in topo.links} == {2.5}
    assert {lk.params.delay_ms for lk in topo.links} == {3.0}
    assert topo.params == {"rows": 2, "cols": 2, "bw": 2.5, "core_bw": 2.5, "delay_ms": 3.0,
                           "routing": "xy"}


@pytest.mark.parametrize(("spec", "message"), [
    ("ring", "unknown topology shape 'ring'; choose from star, tree, fattree, mesh, torus, bmin"),
    ("ring:n=3", "unknown topology shape 'ring'"),
    ("mesh:rowz=3", "unknown parameter 'rowz' for shape 'mesh'; valid parameters are rows, cols, "
                    "bw, core_bw, delay_ms, routing"),
    ("mesh:rows", r"bad parameter 'rows' in topology spec 'mesh:rows'; expected key=value"),
    ("mesh:rows=", "bad parameter 'rows='"),
    ("mesh:rows=2,rows=3", "parameter 'rows' is given twice"),
    ("mesh:rows=x", "mesh: rows must be an integer >= 1, got 'x'"),
    ("torus:cols=2.5", "torus: cols must be an integer >= 1, got 2.5"),
    ("star:hosts=0", "star: hosts must be an integer >= 1, got 0"),
    ("tree:hosts_per_leaf=-1", "tree: hosts_per_leaf must be an integer >= 1"),
    ("fattree:k=1", "fattree: k must be an integer >= 2"),
    ("fattree:k=4,n=2,hosts=17", r"fattree: hosts must be at most k\^n = 16, got 17"),
    ("fattree:k=8,n=5", "fattree: 32768 hosts is more than the limit of 4096"),
    ("bmin:n=0", "bmin: n must be an integer >= 1"),
    ("star:bw=0", "star: bw is invalid: bandwidth must be > 0"),
    ("mesh:core_bw=-1", "mesh: core_bw is invalid: bandwidth must be > 0"),
    ("mesh:delay_ms=-1", "mesh: delay_ms is invalid: delay must be >= 0 ms"),
    ("mesh:routing=updown", "routing 'updown' needs levelled switches"),
    ("star:routing=magic", "unknown routing 'magic'"),
    ("notes.txt", "unknown topology shape 'notes.txt'"),
])
def test_parse_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(TopologyError, match=message):
        parse_spec(spec)


def test_build_errors() -> None:
    with pytest.raises(TopologyError, match="unknown topology shape 'hypercube'"):
        build("hypercube")
    with pytest.raises(TopologyError, match="unknown parameter 'k' for shape 'mesh'"):
        build("mesh", k=4)
    assert build("fattree", k=2, n=2) == fattree(2, 2)


# issue 53: every shape has the same size limit and says so in the same words, before it
# builds anything (star and tree had none: star:hosts=100000 ran on)
@pytest.mark.parametrize(("spec", "count", "what"), [
    ("star:hosts=100000", "100000", "hosts"),
    ("tree:leaves=1000,hosts_per_leaf=100", "100000", "hosts"),
    ("tree:leaves=4097,hosts_per_leaf=1", "4097", "hosts"),
    ("mesh:rows=100,cols=100", "10000", "hosts"),
    ("torus:rows=65,cols=64", "4160", "hosts"),
    ("fattree:k=8,n=5", "32768", "hosts"),
    ("fattree:k=1000,n=5,hosts=2", "1001001001001", "switches"),  # every top switch made
    ("fattree:k=2,n=1000,hosts=2", "2^999", "switches"),  # never computed, nor printed
    ("bmin:n=13", "8192", "hosts"),
    ("bmin:n=1000000", "2^1000000", "hosts"),
])
def test_every_shape_over_the_cap_is_refused_with_one_message(spec: str, count: str,
                                                              what: str) -> None:
    limit = MAX_HOSTS if what == "hosts" else MAX_SWITCHES
    shape = spec.split(":")[0]
    with pytest.raises(TopologyError) as exc:  # k=1000 built would not end in this test
        parse_spec(spec)
    assert str(exc.value) == f"{shape}: {count} {what} is more than the limit of {limit}"


def test_every_shape_is_capped() -> None:
    """No shape of the registry is left out of the table above."""
    assert set(SHAPES) == {"star", "tree", "mesh", "torus", "fattree", "bmin"}


@pytest.mark.parametrize("spec", ["star:hosts=4096", "tree:leaves=64,hosts_per_leaf=64"])
def test_a_shape_at_the_cap_is_built(spec: str) -> None:
    assert len(parse_spec(spec).hosts) == MAX_HOSTS
