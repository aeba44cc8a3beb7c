"""A schedule as a timeline with its predicted latency (what `mcastlab trees` prints)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import opttree
from .latency_model import PointToPoint, completion_times
from .schedules import build


def describe(algorithm: str, k: int, t_hold: float, t_end: float, *, root: int = 0,
             nbytes: int = 0, ports: int = 1, t_int: float | None = None,
             fragment: int | None = None, placement: Mapping[str, Any] | None = None,
             ) -> dict[str, Any]:
    """Every send (time, arrival, sender, receiver) under the t_hold/t_end model and the
    predicted t_mcast, in the unit of the times given. `placement` carries the network-aware
    algorithms' nodes= and shape (mesh=, torus=, bmin=, fattree=)."""
    if ports > 1:
        return _multiport(algorithm, k, t_hold, t_end, root, ports, t_int)
    params: dict[str, Any] = {"t_hold": t_hold, "t_end": t_end, **(placement or {})}
    if fragment is not None:
        params["fragment"] = fragment
    schedule = build(algorithm, k, root, nbytes, **params)
    timeline: list[tuple[float, float, int, int, int, int]] = []
    done = completion_times(schedule, PointToPoint.constant(t_hold, t_end), timeline)
    return {"algorithm": algorithm, "k": k, "root": root, "nbytes": nbytes, "ports": 1,
            "t_hold": t_hold, "t_end": t_end,
            "schedule": [{"time": t, "arrival": a, "sender": s, "receiver": r,
                          "bytes": [lo, hi]} for t, a, s, r, lo, hi in sorted(timeline)],
            "predicted": max(done, default=0.0)}


def _multiport(algorithm: str, k: int, t_hold: float, t_end: float, root: int, ports: int,
               t_int: float | None) -> dict[str, Any]:
    if algorithm != "opt-tree":
        raise ValueError("only opt-tree has an alpha-port version (give --ports 1 otherwise)")
    if t_int is None:
        raise ValueError("--ports needs --t-int, the interval between sends on different "
                         "ports")
    table = opttree.multiport_table(k, t_hold, t_end, t_int, ports)
    children = opttree.multiport_children(k, table)
    have = {0: 0.0}
    sends = []
    stack = [0]
    while stack:
        node = stack.pop()
        rnd, last_port = 0, 0
        for child, port in children.get(node, []):
            if port <= last_port:
                rnd += 1
            last_port = port
            start = have[node] + rnd * t_hold + (port - 1) * t_int
            have[child] = start + t_end
            sends.append({"time": start, "arrival": have[child], "port": port,
                          "sender": (node + root) % k, "receiver": (child + root) % k})
            stack.append(child)
    return {"algorithm": algorithm, "k": k, "root": root, "ports": ports, "t_int": t_int,
            "t_hold": t_hold, "t_end": t_end,
            "schedule": sorted(sends, key=lambda s: (s["time"], s["sender"])),
            "predicted": max(have.values()), "table_t": table.t[k]}
