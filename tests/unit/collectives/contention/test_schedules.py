"""collectives.contention.schedules: the contention-free trees (OPT-Mesh, U-Mesh, U-Torus,
OPT-Min; Nupairoj 1998, ch. 5) as broadcast schedules: whole-message programs that are the
tree, `build`'s defaults and errors, the executor's cache, and timed sends that match the
trees' own times. On a 4x4 mesh with shuffled ranks, OPT-Tree's sends contend where
OPT-Mesh's do not."""

from __future__ import annotations

import functools
import random

import pytest

from collectives.algorithms import BCASTS
from collectives.contention import schedules as cs
from collectives.contention import trees as ct
from collectives.trees.latency_model import PointToPoint, predict
from collectives.trees.run import schedule_for
from collectives.trees.schedules import TOPOLOGY_ALGORITHMS, Recv, Send, build

from .networks import links, topology

T_HOLD, T_END = 20.0, 55.0


def test_names_agree_and_are_broadcast_algorithms() -> None:
    assert TOPOLOGY_ALGORITHMS == cs.ALGORITHMS
    assert set(TOPOLOGY_ALGORITHMS) <= set(BCASTS)


GEOMETRIES = {"opt-mesh": {"mesh": (4, 5)}, "u-mesh": {"mesh": (4, 5)},
              "u-torus": {"torus": (4, 5)}, "opt-min": {"bmin": (2, 5)}, "u-min": {"bmin": (2, 5)}}


@pytest.mark.parametrize("algorithm", TOPOLOGY_ALGORITHMS)
def test_build_gives_the_tree_as_whole_message_programs(algorithm) -> None:
    rng = random.Random(algorithm)
    p = PointToPoint.constant(T_HOLD, T_END)
    for _ in range(20):
        size = rng.randint(1, 12)
        nodes = tuple(rng.sample(range(20), size))
        root = rng.randrange(size)
        params = {**GEOMETRIES[algorithm], "nodes": nodes, "t_hold": T_HOLD, "t_end": T_END}
        s = build(algorithm, size, root, 33, **params)
        tree = cs.build_tree(algorithm, size, root, **params)
        if algorithm.startswith("u-"):  # the shape does not depend on the times
            tree = ct.chain_tree(tree.chain, tree.root, ct.halving_split, T_HOLD, T_END)
        assert (s.algorithm, s.size, s.root, s.nbytes) == (algorithm, size, root, 33)
        assert s.params["nodes"] == nodes
        for rank, prog in enumerate(s.programs):
            recvs = [op for op in prog if isinstance(op, Recv)]
            assert len(recvs) == (0 if rank == root else 1)
            assert not recvs or prog[0] == recvs[0]
            assert all(op.lo == 0 and op.hi == 33 for op in prog)
        edges = [(nodes[a], nodes[b]) for a, b, _, _ in s.transfers()]
        assert sorted(edges) == sorted((x.sender, x.receiver) for x in tree.sends)
        assert predict(s, p) == tree.latency


def test_build_defaults_to_a_line_and_records_it() -> None:
    assert build("u-mesh", 5).params == {"mesh": (1, 5), "nodes": (0, 1, 2, 3, 4),
                                         "send_order": "fifo"}
    assert build("u-torus", 3, 1).params["torus"] == (1, 3)
    assert build("opt-min", 5, 0, 0, t_hold=1, t_end=2).params["bmin"] == (2, 3)
    assert build("opt-mesh", 1, 0, 0, t_hold=1, t_end=2).programs == ((),)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"algorithm": "u-torus", "mesh": (2, 2)}, "runs on a torus"),
    ({"algorithm": "opt-mesh"}, "needs t_hold and t_end"),
    ({"algorithm": "u-mesh", "nodes": (0, 1)}, "one node per rank"),
    ({"algorithm": "u-mesh", "nodes": (0, 1, 1)}, "distinct"),
    ({"algorithm": "u-mesh", "mesh": (1, 2)}, "not a node"),
    ({"algorithm": "u-mesh", "mesh": (2,)}, "pair"),
    ({"algorithm": "opt-min", "bmin": (1, 3), "t_hold": 1, "t_end": 1}, "k >= 2"),
    ({"algorithm": "opt-star"}, "opt-mesh, u-mesh, u-torus, opt-min"),
])
def test_build_errors(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        build(kwargs.pop("algorithm"), 3, 0, 10, **kwargs)


def test_executor_caches_schedules_with_node_lists() -> None:
    a = schedule_for("u-mesh", 3, 0, 8, mesh=[2, 2], nodes=[3, 1, 2])
    b = schedule_for("u-mesh", 3, 0, 8, mesh=(2, 2), nodes=(3, 1, 2))
    assert a is b
    # chain by (col, row): nodes 2, 1, 3; root node 3 (rank 0) hands {2, 1} to node 1
    assert [(x, y) for x, y, _, _ in a.transfers()] == [(0, 1), (1, 2)]
    assert all(isinstance(op, Send | Recv) for prog in a.programs for op in prog)


@pytest.mark.parametrize("algorithm", ["opt-mesh", "u-mesh"])
def test_timed_schedule_matches_the_trees_own_times(algorithm) -> None:
    params = {"mesh": (4, 4), "t_hold": 20, "t_end": 55} if algorithm == "opt-mesh" else {
        "mesh": (4, 4)}
    tree = cs.build_tree(algorithm, 16, 5, **params)
    sched = cs.schedule(algorithm, 16, 5, 1000, **params)
    timed = cs.timed_sends(sched, tree.t_hold, tree.t_end)
    assert sorted((s.sender, s.receiver, s.start) for s in timed) == sorted(
        (s.sender, s.receiver, s.start) for s in tree.sends)
    topo = topology("mesh", 4, 4)
    assert cs.contended_pairs(timed, tree.t_hold, lambda a, b: links(topo, a, b)) == []


def test_opt_tree_contends_on_a_mesh_where_opt_mesh_does_not() -> None:
    """Ranks on a 4x4 mesh in a shuffled order (as an MPI launcher may place them), XY
    routing, t_hold ~ t_end (large messages): five pairs of OPT-Tree's concurrent sends share
    a link; OPT-Mesh, which sorts the same ranks by the routing order, has none. With ranks in
    node order OPT-Tree happens to meet none either."""
    topo = topology("mesh", 4, 4)
    route = functools.partial(links, topo)
    nodes = [10, 5, 12, 9, 14, 3, 0, 8, 13, 2, 15, 6, 11, 1, 4, 7]
    opt = cs.timed_sends(schedule_for("opt-tree", 16, 0, 65536, t_hold=50.0, t_end=55.0),
                         50.0, 55.0)
    placed = [cs.Timed(nodes[s.sender], nodes[s.receiver], s.start) for s in opt]
    pairs = cs.contended_pairs(placed, 50.0, route)
    assert len(pairs) == 5 and all(shared for _, _, shared in pairs)
    assert cs.contended_pairs(opt, 50.0, route) == []
    mesh = cs.schedule("opt-mesh", 16, 0, 65536, mesh=(4, 4), nodes=nodes, t_hold=50.0,
                       t_end=55.0)
    on_nodes = [cs.Timed(nodes[s.sender], nodes[s.receiver], s.start)
                for s in cs.timed_sends(mesh, 50.0, 55.0)]
    assert cs.contended_pairs(on_nodes, 50.0, route) == []
