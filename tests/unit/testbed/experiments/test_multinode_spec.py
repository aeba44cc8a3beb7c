"""testbed.experiments.multinode_spec: a [multinode] spec (Tseng2001's multi-node multicast)
read and checked in full, its points keyed apart from a broadcast's, and every error naming
its key; the scheme and grid (torus or mesh) readers `mcastlab multinode` shares."""

from __future__ import annotations

import pytest

from collectives.partitioning.grid import Mesh, Torus
from testbed.errors import UsageError
from testbed.experiments.kinds import from_dict
from testbed.experiments.multinode_spec import grid_of, schemes_of
from testbed.experiments.spec import Point, SpecError

SPEC = {"name": "mn", "repetitions": 3, "seed": 0,
        "network": {"topology": "torus:rows=2,cols=4,bw=100"},
        "multinode": {"sources": [3, 2], "dests": 4, "factors": [0.25, 1.0],
                      "sizes": [4096, 65536], "schemes": ["u-torus", "balanced"]}}


T24, M24 = Torus(2, 4), Mesh(2, 4)


def test_schemes_by_either_name():
    assert schemes_of(["u-torus", "balanced", "partitioned-balanced"], T24, "--scheme") == \
        ["direct", "balanced"]
    assert schemes_of(["u-mesh", "direct", "partitioned-random"], M24, "--scheme") == \
        ["direct", "random"]
    with pytest.raises(UsageError, match="--scheme: unknown scheme 'x'; choose from u-torus, "):
        schemes_of(["x"], T24, "--scheme")
    with pytest.raises(UsageError, match="choose from u-mesh, partitioned-random, "):
        schemes_of(["x"], M24, "--scheme")
    with pytest.raises(UsageError, match="u-torus is the direct scheme on a torus; on the 2x4 "
                                         "mesh it is u-mesh"):
        schemes_of(["u-torus"], M24, "--scheme")
    with pytest.raises(UsageError, match="u-mesh is the direct scheme on a mesh; on the 2x4 "
                                         "torus it is u-torus"):
        schemes_of(["u-mesh"], T24, "--scheme")
    with pytest.raises(UsageError, match="at least one"):
        schemes_of([], T24, "multinode.schemes")


def test_the_grid_of_a_topology():
    assert grid_of("torus:rows=2,cols=4,bw=10", "--topo") == T24
    assert grid_of("mesh:rows=2,cols=4,bw=10", "--topo") == M24
    assert grid_of("torus", "x") == Torus(4, 4) and grid_of("mesh", "x") == Mesh(4, 4)
    for spec, needle in [("fattree:k=4,n=2", "needs a torus or a mesh, where xy routing and a "
                                             "partition into DDNs and blocks exist; fattree"),
                         ("star:hosts=4", "needs a torus or a mesh"),
                         ("tree", "needs a torus or a mesh"),
                         ("mesh:rows=2,cols=2,routing=shortest", "plans for xy routing, not "
                                                                 "routing=shortest"),
                         ("net.toml", "not the file net.toml"),
                         ("torus:rows=x", "network.topology: ")]:
        with pytest.raises(UsageError, match=needle):
            grid_of(spec, "network.topology" if "x" in spec else "--topo")


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


def test_a_mesh_spec_names_its_direct_scheme_u_mesh():
    spec = from_dict(SPEC | {"network": {"topology": "mesh:rows=2,cols=4,bw=100"},
                             "multinode": {"sources": [3], "dests": 4, "sizes": [4096],
                                           "dilation": 2}})
    assert spec.multinode is not None and spec.multinode.grid == M24
    assert [p.algorithm for p in spec.points()] == ["u-mesh", "partitioned-random",
                                                    "partitioned-balanced"]
    # the direct scheme alone needs no partition: a dilation that divides nothing is fine
    alone = from_dict(SPEC | {"network": {"topology": "mesh:rows=3,cols=5"},
                              "multinode": {"schemes": ["u-mesh"], "dilation": 2}})
    assert [p.algorithm for p in alone.points()] == ["u-mesh"]


def test_a_broadcasts_key_is_what_it_always_was():
    """Old results folders resume by key: the multinode fields change no broadcast's key."""
    p = Point(0, "binomial", 1024, 4, "none", 0.0, "none", 1, 0.0)
    assert p.key == "cfe75c5c049e"
    q = Point(0, "u-torus", 1024, 4, "none", 0.0, "none", 1, 0.0, 3, 0.25)
    assert q.key != p.key and q.condition[-2:] == (3, 0.25)


@pytest.mark.parametrize("change, needle", [
    ({"sweep": {"algorithms": ["binomial"]}}, "sweep: a \\[multinode\\] spec measures"),
    ({"traffic": {}}, "traffic: a \\[multinode\\] spec"),
    ({"network": {"topology": "star:hosts=4"}}, "needs a torus or a mesh"),
    ({"network": {"topology": "mesh:rows=2,cols=4"}, "multinode": {"schemes": ["u-torus"]}},
     "u-torus is the direct scheme on a torus; on the 2x4 mesh it is u-mesh"),
    ({"network": {"topology": "torus:rows=2,cols=4", "mode": "contiguous"}},
     "network.mode: unknown key"),
    ({"multinode": {"sources": [9]}}, "multinode.sources\\[0\\]: must be in \\[1, 8\\]"),
    ({"multinode": {"factors": [1.5]}}, "multinode.factors\\[0\\]: must be in \\[0, 1\\]"),
    ({"multinode": {"schemes": ["fast"]}}, "multinode.schemes: unknown scheme 'fast'"),
    ({"multinode": {"dilation": 3}}, "multinode: 4 sources, p 0.25: dilation 3 must divide "
                                     "both sides of the 2x4 torus .the partitioned schemes' h x "
                                     "h blocks.; without a partition only the direct scheme, "
                                     "u-torus, runs"),
    ({"multinode": {"dests": 8}}, "multinode: 4 sources, p 0.25: destinations per source"),
    ({"multinode": {"size": [1]}}, "multinode.size: unknown key"),
    ({"multinode": {"sizes": []}}, "multinode.sizes: must be a non-empty list"),
])
def test_errors_name_the_key(change, needle):
    raw = {**SPEC, "multinode": {}, "network": {"topology": "torus:rows=2,cols=4"}} | change
    with pytest.raises(SpecError, match=needle):
        from_dict(raw)
