"""What one broadcast with completion reports (nack's, and the scouts' "report") cost its
root in repair: kept per broadcast on the channel, read by the benchmarks after each
measured broadcast (outside its timed span) and carried, aligned with the broadcasts'
samples, into the raw record.

What a loss costs is "one repair round = detection + one round trip": the root learns of the
loss when the first gap report arrives (`detect_s` after it finished sending the message:
its first end marker goes right after the last fragment), repairs, and the receiver's
"complete" comes one round trip later."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class RepairAccount:
    """One broadcast at its root."""

    rounds: int  # repairs multicast (each a batch of reports answered, then an end marker)
    detect_s: float | None  # end of sending -> the first gap report's arrival (None: none)
    detect_at: int | None  # the end marker that report named (0: none yet, it came at the
    # last fragment; 2 or more: an end marker was repeated first, the first one or the
    # receiver's first report lost, or the receiver slow)
    grtt_s: float  # the group round trip the broadcast's end markers were timed by
    sent_s: float  # the root's call -> the end of its sending (the first end marker)
    root_s: float  # the root's call -> its return (every receiver complete)
    end_markers: int  # end markers sent (1: no repeat was needed)
    by_mpi: int  # receivers whose "complete" the root took over MPI, none by datagram
    rescued: int  # receivers sent what they lacked over MPI (ipmc.nack's rescue)


FIELDS = tuple(f.name for f in fields(RepairAccount))


def columns(accounts: Sequence[RepairAccount | None]) -> dict[str, list[Any]] | None:
    """The accounts of consecutive broadcasts as one list per field (None where a
    broadcast had none); None if no broadcast had one."""
    if all(a is None for a in accounts):
        return None
    rows = [asdict(a) if a is not None else dict.fromkeys(FIELDS) for a in accounts]
    return {k: [r[k] for r in rows] for k in FIELDS}


def joined(parts: Sequence[dict[str, list[Any]] | None], lengths: Sequence[int]
           ) -> dict[str, list[Any]] | None:
    """Columns of consecutive runs of broadcasts (of `lengths` broadcasts each) as one, a
    run without any (None) padded with None; None if none had any."""
    if all(p is None for p in parts):
        return None
    out: dict[str, list[Any]] = {k: [] for k in FIELDS}
    for part, n in zip(parts, lengths, strict=True):
        for k in FIELDS:
            col = (part or {}).get(k)
            if col is not None and len(col) != n:
                raise ValueError(f"{len(col)} {k} for {n} broadcasts")
            out[k] += col if col is not None else [None] * n
    return out
