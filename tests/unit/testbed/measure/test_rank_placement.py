"""testbed.measure.rank_placement: what the network-aware algorithms are told of the
emulated topology: each shape's geometry and the nodes in rank order; an algorithm on the
wrong network is refused."""

from __future__ import annotations

import pytest

from testbed.errors import RunFailed
from testbed.measure.rank_placement import geometry, node_params
from topologies import parse_spec


def test_geometry_of_each_shape():
    assert geometry(parse_spec("fattree:k=4,n=2"), "range-tree") == {"fattree": [4, 16]}
    assert geometry(parse_spec("bmin:n=3"), "range-tree") == {"fattree": [2, 8]}
    assert geometry(parse_spec("star:hosts=5"), "range-tree") == {"fattree": [5, 5]}
    assert geometry(parse_spec("mesh:rows=2,cols=3"), "opt-mesh") == {"mesh": [2, 3]}
    assert geometry(parse_spec("torus:rows=3,cols=3"), "u-torus") == {"torus": [3, 3]}
    assert geometry(parse_spec("bmin:n=3"), "opt-min") == {"bmin": [2, 3]}
    assert geometry(parse_spec("star:hosts=5"), "binomial") == {}


@pytest.mark.parametrize(("spec", "algorithm", "says"), [
    ("mesh:rows=2,cols=2", "range-tree", "fat tree, BMIN or star"),
    ("star:hosts=4", "opt-mesh", "runs on a mesh"),
    ("mesh:rows=2,cols=2", "u-torus", "runs on a torus"),
])
def test_an_algorithm_on_the_wrong_network_is_refused(spec, algorithm, says):
    with pytest.raises(RunFailed, match=says):
        geometry(parse_spec(spec), algorithm)


def test_nodes_follow_the_hosts_in_rank_order():
    topo = parse_spec("fattree:k=4,n=2")
    assert node_params(topo, "range-tree", ["h5", "h0", "h9"]) == {
        "fattree": [4, 16], "nodes": [5, 0, 9]}
    assert node_params(topo, "binomial", ["h0"]) == {}
