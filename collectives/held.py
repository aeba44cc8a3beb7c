"""When this rank came to hold the whole message of the broadcast under way.

`executor.bcast` starts every broadcast with `start` (the root holds the message from the
start); the algorithms call `mark` when a receiver's last byte has arrived (the schedules
after their last receive, DYN-Tree after its data, the multicast algorithms when the last
fragment is in, repairs included); `at` reads it afterwards (`programs.bcast_bench`'s per-rank
completion times). MPICH's own MPI_Bcast says nothing: `at` is then None for a receiver.
Times are time.time(): the emulated hosts share one clock.
"""

from __future__ import annotations

import time

_at: float | None = None
_root = False


def start(is_root: bool) -> None:
    """A broadcast begins: the root holds the message now, a receiver not yet."""
    global _at, _root
    _root = is_root
    _at = time.time() if is_root else None


def mark() -> None:
    """This rank now holds every byte (a later mark replaces an earlier one: the schedules
    mark after each receive, the last one counts; the root's start stays)."""
    global _at
    if not _root:
        _at = time.time()


def at() -> float | None:
    """When this rank came to hold the message of the last broadcast (None: not reported)."""
    return _at
