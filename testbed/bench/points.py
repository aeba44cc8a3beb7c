"""A suite's measured point as its tables show it: a point is a result only if it finished
and the emulator kept up (no fidelity flag), and only results feed a ratio; and a broadcast
measured under the fidelity monitor (`flagged_bcast`), which every such point comes from."""

from __future__ import annotations

from typing import Any

from collectives.call import BcastCall

from ..emulation.network import Emulation
from ..errors import RunFailed
from ..experiments.bcast import run_bcast
from ..fidelity.flags import Monitor


def flagged_bcast(emu: Emulation, call: BcastCall, **kwargs: Any) -> dict[str, Any]:
    """run_bcast (same arguments) under the fidelity monitor: its result with `flags` and
    `fidelity` (Monitor.window over the broadcasts) added, `ms` (the median) and `error`
    None; a job that failed gives {"ms": None, "flags": [], "error": why} instead."""
    try:
        with Monitor(emu.topo, emu.spread) as mon:
            r = run_bcast(emu, call, **kwargs)
    except RunFailed as exc:
        return {"ms": None, "flags": [], "error": " ".join(str(exc).split())}
    fid = mon.window(*r["window"], host_wait_s=r["cpu"]["wait_per_turn_s"])
    return r | {"flags": fid["flags"], "fidelity": fid, "error": None,
                "ms": r["t_mcast_s"]["median"] * 1e3}


def is_result(p: dict[str, Any] | None) -> bool:
    """A point that is a result: it finished (`ms` set) and carries no flag."""
    return p is not None and p["ms"] is not None and not p["flags"]


def ratio(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    """a / b in ms, or '-' unless both are results (a flagged point feeds no ratio)."""
    if not (is_result(a) and is_result(b)):
        return "-"
    return f"{a['ms'] / b['ms']:.2f}"
