"""The networks the contention-free trees are tried on, and the links of a route."""

from __future__ import annotations

import functools
import itertools

from topologies import Topology, bmin, mesh, torus


@functools.cache
def topology(shape: str, *args: int) -> Topology:
    """Built once per shape: building computes the routing tables."""
    return {"mesh": mesh, "torus": torus, "bmin": bmin}[shape](*args)


def links(topo: Topology, a: int, b: int) -> set[tuple[str, str]]:
    """Directed links of topologies' route from host a to host b."""
    return set(itertools.pairwise(topo.path(a, b)))
