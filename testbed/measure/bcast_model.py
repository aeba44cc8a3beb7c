"""What the t_hold/t_end model makes of measured parameters (testbed.measure.params) for
one broadcast algorithm: the timing options its schedule takes, whether it uses them at
all, its predicted latency, DYN-Tree's trees beside OPT-Tree's; and, with where the ranks
sit (rank_placement), everything a job's ranks are given for it (rank_options)."""

from __future__ import annotations

from typing import Any

from collectives.algorithms import Named, resolve
from collectives.trees import build, predict
from topologies import Topology

from ..errors import RunFailed
from . import model_inputs
from .params import point_to_point
from .rank_placement import node_params


def algorithm_params(algorithm: Named, size: int, params: dict[str, Any] | None,
                     hosts: int | None = None,
                     placement: dict[str, Any] | None = None) -> dict[str, Any]:
    """What `collectives.bcast` needs besides the algorithm's name and where the ranks sit:
    t_hold/t_end of this size for OPT-Tree, OPT-Mesh, OPT-Min and DYN-Tree (from
    measure_params), t_hold at the count of back-to-back sends the tree settles at on
    `hosts` ranks (testbed.measure.model_inputs); DYN-Tree and DYN-Mesh get their six
    static terms from the same figures (collectives.trees.dyntree.from_measured).
    `algorithm`: a call's record (no look-up), or a name."""
    a = resolve("bcast", algorithm)
    if not a.timing:
        return {}
    if not params:
        raise RunFailed(f"{a.name} needs measured t_hold/t_end (measure them first)")
    return model_inputs.timing_options(a.name, size, params, hosts, placement)


def uses_params(algorithm: Named) -> bool:
    """Whether measured t_hold/t_end change anything for `algorithm`: its schedule takes them
    (algorithm_params) or the model predicts it (prediction: a model tree, or a contention
    tree placed on its network). MPI_Bcast, the multicast and the range-multicast
    broadcasts run and are reported the same without them."""
    a = resolve("bcast", algorithm)
    return a.timing or a.model_tree or a.family == "contention"


def prediction(algorithm: Named, k: int, size: int, params: dict[str, Any] | None,
               fragment: int | None = None,
               placement: dict[str, Any] | None = None) -> float | None:
    """The t_hold/t_end model's latency (None without measured parameters, or for an
    algorithm without a schedule). DYN-Tree and DYN-Mesh: the model has no load, so
    OPT-Tree's and OPT-Mesh's. The topology algorithms need `placement`
    (testbed.measure.rank_placement.node_params); the model sees their order of sends, not
    the contention they avoid."""
    a = resolve("bcast", algorithm)
    scheduled = a.zero_load
    placed = a.zero_load_algorithm.family == "contention" and placement
    if not params or (not a.model_tree and not placed):
        return None
    extra: dict[str, Any] = {"fragment": fragment} if fragment is not None else {}
    if placed:
        extra |= placement or {}
    p2p = point_to_point(params, model_inputs.sends_for(scheduled, k, size, params,
                                                        placement if placed else None,
                                                        fragment))
    return predict(build(scheduled, k, 0, size, t_hold=p2p.t_hold(size),
                         t_end=p2p.t_end(size), **extra), p2p)


def dyn_trees(parents: list[list[int | None]] | None, k: int, size: int,
               params: dict[str, Any] | None) -> dict[str, Any] | None:
    """DYN-Tree's tree of every measured broadcast beside OPT-Tree's from the same t_hold and
    t_end (what DYN-Tree builds at zero load, Nupairoj1998 section 6.3), and the share of
    broadcasts whose tree was OPT-Tree's."""
    if parents is None:
        return None
    opt = None
    if params:
        opt = build("opt-tree", k, 0, size,
                    **model_inputs.timing_options("opt-tree", size, params, k)).parents()
    same = sum(p == opt for p in parents) / len(parents) if opt and parents else None
    return {"parents": parents, "opt_tree_parents": opt, "same_as_opt_tree": same}


def rank_options(topo: Topology, algorithm: Named, size: int, names: list[str],
                 params: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a job's ranks on `names` (in rank order) are given for `algorithm` at `size`
    bytes: its timing options (algorithm_params: t_hold at the count of sends its tree
    settles at on these ranks, and t_end) and where they sit (node_params). Whoever
    predicts the tree the ranks build takes both from here (bench.contention.placed_sends):
    at 64 KiB on 10 Mbit/s links t_hold is close to t_end, where OPT-Tree's and OPT-Mesh's
    split turns (t_hold passing t_end), so t_hold at another count can build another
    tree. `algorithm`: a call's record (no look-up), or a name."""
    a = resolve("bcast", algorithm)
    placement = node_params(topo, a, names)
    return algorithm_params(a, size, params, len(names), placement), placement
