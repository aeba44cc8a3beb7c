"""Flow latencies of a multicast tree when the nodes call the routine at different times
(pure): the collective communication flow model of Nupairoj1998, section 3.3.1.

A flow f(r, d) is the chain of sends that carries the message from the root r to the
destination d; its flow latency t_f(r, d) is the time from r's call until d returns from
the call (Definition 3). In the t_hold/t_end model a node's receive completes when the
message is there and the node has called (whichever is later), its sends start there, one
every t_hold, and it returns when its last send has held it for t_hold (a leaf returns on
its receive). The critical destinations are those that return last (Definition 1): with
every node calling at the root's call, the multicast latency is their flow latency (Lemma 1).

Trees are dicts from a node to its children in send order (as collectives.opttree
and collectives.trees.schedules build them); leaves may be left out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

__all__ = ["critical_destinations", "flow_latencies"]


def flow_latencies(children: Mapping[int, Sequence[int]], t_hold: float, t_end: float,
                   calls: Sequence[float] | None = None, root: int = 0) -> dict[int, float]:
    """t_f(root, d) of every destination d of the tree, in node order; ``calls[n]`` is when
    node n calls the routine (None: all at 0). ValueError when ``children`` is not a tree
    from ``root`` or a time is negative."""
    for name, value in (("t_hold", t_hold), ("t_end", t_end)):
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    nodes = {root, *children, *(c for kids in children.values() for c in kids)}
    when = list(calls) if calls is not None else [0.0] * (max(nodes) + 1)
    if len(when) <= max(nodes) or min(nodes) < 0:
        raise ValueError(f"calls gives {len(when)} call times; the tree has nodes "
                         f"{min(nodes)}..{max(nodes)}")
    have = {root: when[root]}  # when each node's receive completes (the root: its call)
    stack = [root]
    while stack:
        node = stack.pop()
        for index, child in enumerate(children.get(node, ())):
            if child in have:
                raise ValueError(f"not a tree: node {child} is reached twice")
            have[child] = max(when[child], have[node] + index * t_hold + t_end)
            stack.append(child)
    lost = nodes - set(have)
    if lost:
        raise ValueError(f"not a tree: nodes {sorted(lost)} are not reachable from {root}")
    return {d: have[d] + len(children.get(d, ())) * t_hold - when[root]
            for d in sorted(have) if d != root}


def critical_destinations(latencies: Mapping[int, float]) -> list[int]:
    """The destinations whose flow latency is the longest (D_c), in node order."""
    if not latencies:
        return []
    top = max(latencies.values())
    return [d for d, t in sorted(latencies.items()) if math.isclose(t, top)]
