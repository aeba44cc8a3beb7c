"""Point-to-point allgathers (family "exchange" of collectives.algorithms): every rank's
block reaches every rank through exchanges among the ranks themselves.

    ring, recursive doubling   [Thakur2005]   schedules (pure: who sends which blocks to whom)
    Bruck's concatenation      [Bruck1997]    schedules
    (ours)                     a schedule run on MPI point-to-point   run

The package is not called ``allgather``: ``collectives.allgather`` is the call
(collectives.executor.allgather), and a package of that name would shadow it or be shadowed.
The multicast allgather is collectives/ipmc/allgather.py's (built apart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .._facade import public_name

# The public names (collectives.PUBLIC), each loaded when first asked for
# (collectives._facade): a rank that imports one module here loads that one alone.
if TYPE_CHECKING:
    from .model import data_frames, floor_s, multicast_frames, predict_s
    from .schedules import build

__all__ = ["build", "data_frames", "floor_s", "multicast_frames", "predict_s"]


def __getattr__(name: str) -> Any:
    return public_name(__name__, name)
