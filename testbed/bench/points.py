"""A suite's measured point as its tables show it: a point is a result only if it finished
and the emulator kept up (no fidelity flag), and only results feed a ratio; and a broadcast
measured under the fidelity monitor (`flagged_bcast`, a `Flagged`), which every such point
comes from."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from collectives.call import BcastCall

from ..emulation.network import Emulation
from ..errors import RunFailed
from ..fidelity.flags import Monitor
from ..fidelity.wire_units import wire_time_s
from ..measure.bcast import run_bcast
from ..measure.bcast_batch import Batched, run_bcasts
from ..measure.bcast_result import BcastResult
from ..measure.options import RunOptions


@dataclass(frozen=True)
class Flagged:
    """A broadcast measured under the fidelity monitor: its result and `fidelity`
    (Monitor.window over its broadcasts), or, for a job that failed, `error` (why)."""

    result: BcastResult | None
    fidelity: dict[str, Any] | None = None
    error: str | None = None

    @property
    def flags(self) -> list[str]:
        return list(self.fidelity["flags"]) if self.fidelity else []

    @property
    def ms(self) -> float | None:
        """t_mcast's median in ms (None: the job failed)."""
        return None if self.result is None else self.result.median_s * 1e3


def flagged_bcast(emu: Emulation, call: BcastCall, options: RunOptions | None = None
                  ) -> Flagged:
    """run_bcast (same arguments) under the fidelity monitor; a job that failed (RunFailed)
    is a Flagged with its message, on one line."""
    try:
        with Monitor(emu.topo, emu.spread) as mon:
            r = run_bcast(emu, call, options)
    except RunFailed as exc:
        return Flagged(None, error=" ".join(str(exc).split()))
    return Flagged(r, mon.window(*r.window, host_wait_s=r.wait_per_turn_s))


def flagged_bcasts(emu: Emulation, batch: Sequence[Batched], options: RunOptions | None = None,
                   rounds: int = 1) -> dict[str, Flagged]:
    """run_bcasts (the same arguments: several broadcasts in one MPI job) under the fidelity
    monitor, by key: each a Flagged judged over its own broadcasts' window."""
    try:
        with Monitor(emu.topo, emu.spread) as mon:
            got = run_bcasts(emu, batch, options, rounds)
    except RunFailed as exc:
        return {b.key: Flagged(None, error=" ".join(str(exc).split())) for b in batch}
    return {key: Flagged(None, error=" ".join(str(r).split())) if isinstance(r, RunFailed)
            else Flagged(r, mon.window(*r.window, host_wait_s=r.wait_per_turn_s))
            for key, r in got.items()}


def is_result(p: dict[str, Any] | None) -> TypeGuard[dict[str, Any]]:
    """A point that is a result: it finished (`ms` set) and carries no flag."""
    return p is not None and p["ms"] is not None and not p["flags"]


def ratio(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    """a / b in ms, or '-' unless both are results (a flagged point feeds no ratio)."""
    if not (is_result(a) and is_result(b)):
        return "-"
    return f"{a['ms'] / b['ms']:.2f}"


def wire_s(nbytes: int, mbit: float) -> float:
    """M/B in seconds for a bench's message on its calibrated star: defined there (a rate,
    a message of some bytes), ValueError otherwise."""
    wire = wire_time_s(nbytes, mbit)
    if wire is None:
        raise ValueError(f"M/B is undefined for {nbytes} B at {mbit} Mbit/s")
    return wire
