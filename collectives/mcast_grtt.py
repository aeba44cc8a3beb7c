"""The group round trip (GRTT) of a multicast broadcast's report tree: how long the root
waits for evidence before it acts again (re-sending its end marker, waiting for multicast
repairs), measured instead of fixed.

Kept as NORM keeps its GRTT (RFC 5740; NRL's normSession.cpp, SenderUpdateGrttEstimate): a
larger sample is taken at once (0.25 old + 0.75 new), a smaller one lowers the estimate by at
most 10 % per sample, and it never falls below one frame time at the paced rate. The first
estimate is measured when the channel is set up: the slowest rank's median over a few
barriers (a barrier gathers up a tree and releases down it: one round trip of the tree the
reports travel). Sources: docs/reliable-multicast.md."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any

from . import waiting

SETUP_ROUNDS = 5


@dataclass
class GroupRoundTrip:
    value: float  # seconds
    floor: float = 0.0

    def update(self, sample: float) -> float:
        if sample > self.value:
            self.value = 0.25 * self.value + 0.75 * sample
        else:
            self.value = max(sample, 0.9 * self.value)
        self.value = max(self.value, self.floor)
        return self.value


def measure(comm: Any, rounds: int = SETUP_ROUNDS) -> GroupRoundTrip:
    """Collective: every rank of `comm` calls it; all get the same estimate."""
    from mpi4py import MPI

    samples = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        waiting.wait([comm.Ibarrier()])
        samples.append(time.perf_counter() - t0)
    return GroupRoundTrip(comm.allreduce(statistics.median(samples), op=MPI.MAX))

