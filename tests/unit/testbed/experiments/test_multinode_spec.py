"""testbed.experiments.multinode_spec: a [multinode] spec (Tseng2001's multi-node multicast)
read and checked in full, its points keyed apart from a broadcast's, and every error naming
its key; the scheme and torus readers `mcastlab multinode` shares."""

from __future__ import annotations

import pytest

from testbed.errors import UsageError
from testbed.experiments.multinode_spec import scheme_names, torus_of
from testbed.experiments.spec import Point, SpecError, from_dict

SPEC = {"name": "mn", "repetitions": 3, "seed": 0,
        "network": {"topology": "torus:rows=2,cols=4,bw=100"},
        "multinode": {"sources": [3, 2], "dests": 4, "factors": [0.25, 1.0],
                      "sizes": [4096, 65536], "schemes": ["u-torus", "balanced"]}}


def test_schemes_by_either_name():
    assert scheme_names(["u-torus", "balanced", "partitioned-balanced"], "--scheme") == \
        ["direct", "balanced"]
    with pytest.raises(UsageError, match="--scheme: unknown scheme 'x'; choose from u-torus, "):
        scheme_names(["x"], "--scheme")
    with pytest.raises(UsageError, match="at least one"):
        scheme_names([], "multinode.schemes")


def test_the_torus_of_a_topology():
    t = torus_of("torus:rows=2,cols=4,bw=10", "--topo")
    assert (t.rows, t.cols) == (2, 4)
    assert (torus_of("torus", "x").rows, torus_of("torus", "x").cols) == (4, 4)
    for spec, needle in [("mesh:rows=2,cols=2", "runs on a torus, not mesh"),
                         ("net.toml", "not the file net.toml"),
                         ("torus:rows=x", "network.topology: ")]:
        with pytest.raises(UsageError, match=needle):
            torus_of(spec, "network.topology" if "x" in spec else "--topo")


def test_points_one_job_per_sources_count_in_the_order_the_job_measures():
    spec = from_dict(SPEC)
    pts = spec.points()
    assert len(pts) == 2 * 2 * 2 * 2
    assert [(p.sources, p.factor, p.size, p.algorithm) for p in pts[:3]] == [
        (3, 0.25, 4096, "u-torus"), (3, 0.25, 4096, "partitioned-balanced"),
        (3, 0.25, 65536, "u-torus")]
    assert {p.hosts for p in pts} == {8}
    assert len({p.key for p in pts}) == len(pts)
    assert [p.index for p in pts] == list(range(len(pts)))
    assert not spec.needs_params and spec.timeout == 600.0


def test_a_broadcasts_key_is_what_it_always_was():
    """Old results folders resume by key: the multinode fields change no broadcast's key."""
    p = Point(0, "binomial", 1024, 4, "none", 0.0, "none", 1, 0.0)
    assert p.key == "cfe75c5c049e"
    q = Point(0, "u-torus", 1024, 4, "none", 0.0, "none", 1, 0.0, 3, 0.25)
    assert q.key != p.key and q.condition[-2:] == (3, 0.25)


@pytest.mark.parametrize("change, needle", [
    ({"sweep": {"algorithms": ["binomial"]}}, "sweep: a \\[multinode\\] spec measures"),
    ({"traffic": {}}, "traffic: a \\[multinode\\] spec"),
    ({"network": {"topology": "star:hosts=4"}}, "runs on a torus, not star"),
    ({"network": {"topology": "torus:rows=2,cols=4", "mode": "contiguous"}},
     "network.mode: unknown key"),
    ({"multinode": {"sources": [9]}}, "multinode.sources\\[0\\]: must be in \\[1, 8\\]"),
    ({"multinode": {"factors": [1.5]}}, "multinode.factors\\[0\\]: must be in \\[0, 1\\]"),
    ({"multinode": {"schemes": ["fast"]}}, "multinode.schemes: unknown scheme 'fast'"),
    ({"multinode": {"dilation": 3}}, "multinode: 4 sources, p 0.25: dilation 3 must divide"),
    ({"multinode": {"dests": 8}}, "multinode: 4 sources, p 0.25: destinations per source"),
    ({"multinode": {"size": [1]}}, "multinode.size: unknown key"),
    ({"multinode": {"sizes": []}}, "multinode.sizes: must be a non-empty list"),
])
def test_errors_name_the_key(change, needle):
    raw = {**SPEC, "multinode": {}, "network": {"topology": "torus:rows=2,cols=4"}} | change
    with pytest.raises(SpecError, match=needle):
        from_dict(raw)
