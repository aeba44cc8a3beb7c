"""Where the ranks sit: what the network-aware algorithms are told about the topology.

OPT-Mesh, U-Mesh, U-Torus and OPT-Min (Nupairoj1998 ch. 5) place their trees in the order of the
network's routing, the range tree (Coll2003) follows the fat tree's node numbering; all of
them need the node of every rank (`nodes=`) and the network's shape (`mesh=`, `torus=`,
`bmin=` or `fattree=`), taken here from the emulated topology.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import Any

from collectives.algorithms import Named, resolve
from collectives.contention import Timed, contended_pairs
from topologies.model import Topology

from ..errors import RunFailed

_RANGE_SHAPES = ("fattree", "bmin", "star")


def geometry(topo: Topology, algorithm: Named, collective: str = "bcast") -> dict[str, Any]:
    """The shape parameter `algorithm` (a broadcast, or a barrier: a call's record, or a
    name) needs on `topo` ({} for the others), or RunFailed."""
    a = resolve(collective, algorithm)
    kind, algorithm = a.geometry, a.name
    if kind == "fattree":
        n = len(topo.hosts)
        arity = {"fattree": topo.params.get("k"), "bmin": 2, "star": n}.get(topo.shape)
        if arity is None:
            raise RunFailed(f"{algorithm} runs on a fat tree, BMIN or star (its ranges follow "
                            f"the k-ary n-tree's node numbering), not on a {topo.shape}")
        return {"fattree": [arity, n]}
    if not kind:
        return {}
    if topo.shape != kind:
        raise RunFailed(f"{algorithm} runs on a {kind} (its tree follows the {kind}'s "
                        f"routing), not on a {topo.shape}")
    if kind == "bmin":
        return {"bmin": [2, topo.params["n"]]}
    return {kind: [topo.params["rows"], topo.params["cols"]]}


def node_params(topo: Topology, algorithm: Named, hosts: Sequence[str],
                collective: str = "bcast") -> dict[str, Any]:
    """geometry() plus nodes= for ranks on `hosts` (in rank order); {} for other algorithms."""
    a = resolve(collective, algorithm)
    if not a.nodes:
        return {}
    return {**geometry(topo, a, collective),
            "nodes": [topo.host(h).node_id for h in hosts]}


def route_links(topo: Topology, a: int, b: int) -> list[tuple[str, str]]:
    """The directed links of the network's route from node a to node b."""
    return list(itertools.pairwise(topo.path(a, b)))


def contended(topo: Topology, sends: Sequence[Timed], t_hold: float) -> list[tuple]:
    """Pairs of sends (between nodes) under way together on a shared link of the routes."""
    return contended_pairs(sends, t_hold, functools.partial(route_links, topo))


def predicted_copies(topo: Topology, sends: Sequence[Timed]) -> dict[str, int]:
    """How many of the sends each directed link ("a>b") carries under the network's routing."""
    out: dict[str, int] = {}
    for s in sends:
        for a, b in route_links(topo, s.sender, s.receiver):
            out[f"{a}>{b}"] = out.get(f"{a}>{b}", 0) + 1
    return out
