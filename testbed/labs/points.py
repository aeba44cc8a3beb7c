"""A lab's broadcasts measured together: every broadcast that shares the job-wide settings
(hosts, t_hold/t_end, how the ranks wait, loss) in one MPI job, one after the other
(testbed.measure.bcast_batch), so a lab pays MPI's start-up once per setting, not once
per broadcast (lab 3's eight broadcasts took 8 jobs, ~0.5 s of start-up each here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..measure.bcast_batch import Batched, run_bcasts
from ..measure.bcast_result import BcastResult
from ..measure.options import RunOptions


def measure_together(emu: Any, batch: Sequence[Batched], options: RunOptions | None = None
                     ) -> dict[str, BcastResult]:
    """run_bcasts(emu, batch, options with flow=False) by key; the first broadcast that
    failed (measured again alone, as run_bcasts does) raises its RunFailed, as run_bcast
    would."""
    got = run_bcasts(emu, batch, replace(options or RunOptions(), flow=False))
    out: dict[str, BcastResult] = {}
    for b in batch:
        r = got[b.key]
        if not isinstance(r, BcastResult):
            raise r
        out[b.key] = r
    return out
