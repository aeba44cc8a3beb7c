"""Times in units that travel between machines and link rates where milliseconds do not:
multiples of M/B (the message's own time on one link) and of the frame time."""

from __future__ import annotations

import math

FRAME_BYTES = 1538  # a full Ethernet frame on the wire: 1500 + header, FCS, preamble, gap


def wire_time_s(nbytes: int, mbit: float | None) -> float | None:
    """M/B: the message's bytes on one link at `mbit` (None on unlimited links)."""
    if mbit is None or mbit <= 0 or nbytes <= 0:
        return None
    return nbytes * 8 / (mbit * 1e6)


def frame_time_s(mbit: float | None) -> float | None:
    """One full Ethernet frame on a link at `mbit`."""
    if mbit is None or mbit <= 0:
        return None
    return FRAME_BYTES * 8 / (mbit * 1e6)


def in_units(seconds: float | None, nbytes: int, mbit: float | None) -> dict[str, float | None]:
    """A time as multiples of M/B and of the frame time (None where undefined)."""
    def ratio(unit: float | None) -> float | None:
        if seconds is None or unit is None or not math.isfinite(seconds):
            return None
        return seconds / unit

    return {"per_wire_time": ratio(wire_time_s(nbytes, mbit)),
            "per_frame_time": ratio(frame_time_s(mbit))}
