"""The group round trip (GRTT) of a multicast broadcast's reports: how long the root
waits for evidence before it acts again (re-sending its end marker, waiting for multicast
repairs), measured instead of fixed.

Kept as NORM keeps its GRTT (RFC 5740; NRL's normSession.cpp, SenderUpdateGrttEstimate): a
larger sample is taken at once (0.25 old + 0.75 new), a smaller one lowers the estimate by at
most 10 % per sample, and it never falls below one frame time at the paced rate. The first
estimate is measured when the channel is set up, with probes the way NORM's sender probes
its receivers (`measure`). Sources: docs/reliable-multicast.md."""

from __future__ import annotations

import statistics
import time
from array import array
from dataclasses import dataclass
from typing import Any

from .. import waiting
from . import datagram as dg

ANSWERS = 3  # from every rank
PROBE_GAP_S = 1e-3
PROBE_LIMIT_S = 5.0  # ranks come from set-up's last MPI call at different times (a TCP
                     # retransmission apart under loss): probe until all have answered
MARK = 0x7FFFFFFF  # the probes' count field: set-up's own probes say 1


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


def measure(ch: Any) -> GroupRoundTrip:
    """Collective over a channel just set up (every rank calls it; all get the same
    estimate): rank 0 multicasts numbered probes PROBE_GAP_S apart, every rank answers the
    newest one it read to rank 0's unicast socket, as a receiver's report goes; a rank's round
    trip is the median over the probes answered after its first answer (those before had
    waited for it to arrive), the estimate that of the slowest rank.
    Datagrams, like the reports it times: a loss costs a probe, not a TCP retransmission
    timeout (an estimate over MPI barriers read 2.3 s at 10 % loss of every packet)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    result = array("d", [0.0])
    if ch.rank == 0:
        sent: dict[int, float] = {}
        got: dict[int, list[float]] = {r: [] for r in range(1, ch.size)}
        awake: dict[int, float] = {}
        limit = time.perf_counter() + PROBE_LIMIT_S
        while time.perf_counter() < limit and any(len(v) < ANSWERS for v in got.values()):
            sent[len(sent)] = time.perf_counter()
            ch.send(dg.PROBE, len(sent) - 1, MARK)
            until = time.perf_counter() + PROBE_GAP_S
            while (left := until - time.perf_counter()) > 0:
                ch.wait_readable(left)
                for d in ch.probes():
                    if d.count != MARK or d.root not in got or d.index not in sent:
                        continue
                    now = time.perf_counter()
                    # a rank answers the probes that waited for it first: time those sent
                    # after its first answer came
                    awake.setdefault(d.root, now)
                    if sent[d.index] > awake[d.root]:
                        got[d.root].append(now - sent[d.index])
        unheard = PROBE_LIMIT_S  # no answer at all: as long as the probing lasted
        result[0] = max((statistics.median(v) if v else unheard for v in got.values()),
                        default=0.0)
        waiting.wait([ch.pcomm.Ibcast([result, MPI.DOUBLE], root=0)])
    else:
        req = ch.pcomm.Ibcast([result, MPI.DOUBLE], root=0)
        while not req.Test():
            ch.wait_readable(PROBE_GAP_S)
            # the newest probe read only: a rank that came late (its set-up met a TCP
            # retransmission) finds hundreds waiting, and answering each put the probes
            # sent after its first answer, the ones timed, behind the pile (39 ms at 5 %
            # loss of every packet against 1-5 ms, 2026-12-07)
            newest = max((d.index for d in ch.probes() if d.count == MARK and d.root == 0),
                         default=None)
            if newest is not None:
                ch.send_to(0, dg.PROBE, newest, MARK)
    return GroupRoundTrip(result[0])
