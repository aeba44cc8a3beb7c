"""The model's t_hold and t_end (Nupairoj1998, chapter 2) measured where they are used.

The timed rounds, shared with collectives.programs.params (the testbed's measurement), so
that both measure the same quantities:

- `hold`: rank 0 sends messages back to back, one to each other rank in turn (as a tree
  node sends to its children), in the broadcast's send order (fifo: each send starts once
  the previous message has left the host), from an idle start; t_hold is the time until
  the last has left, over their number: the sender's time per message;
- `pingpong`: ranks 0 and 1 bounce a message; t_end is half a round trip: one message's
  end-to-end time.

The drop-in communicator (collectives.intracomm) measures them on first use. An algorithm
that takes t_hold and t_end (`Algorithm.timing`: opt-tree, opt-mesh, opt-min, dyn-tree,
dyn-mesh), given none of its timing parameters, gets at an m-byte broadcast the values the
testbed's model gets (testbed.measure.bcast_model.algorithm_params): t_hold(m) and t_end(m)
interpolated linearly between measured sizes (collectives.trees.latency_model's
MeasuredPointToPoint). The sizes measured are the points of a grid, 1, 4, 16, ... bytes
(powers of GRID), each measured once per communicator and send order, the first time a
broadcast falls next to it: an m-byte broadcast uses the grid point at or below m and, if m
is not one, the one above. So a program that broadcasts one size pays for at most two
measurements, and one that broadcasts every size from 8 B to 3 KiB (mpi4py's tests) for
seven, where measuring every size would cost one a size (a pickled object's length varies
from call to call); and the measured point above is at most GRID times the message, which
bounds what measuring costs against the broadcast itself.

A measurement is collective over the communicator's ranks: every rank takes part in the
hold rounds, ranks 0 and 1 ping-pong while the others wait asleep, and rank 0's figures are
broadcast, so every rank builds the same tree from the same numbers (ranks with numbers of
their own would build different trees and wait for each other forever). What was measured
is kept (`Cache`) and reported (`Measured.record`: collectives.use --report).
"""

from __future__ import annotations

import statistics
import struct
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, cast

from . import outqueue
from .algorithms import DEFAULT_SEND_ORDER, Named, resolve
from .timing import busy_wait, idle_barrier

# Sends and receives wait as the broadcasts' own do (collectives.waiting): the model's
# t_hold and t_end then hold the wake-up that a broadcast's ranks pay.
from .waiting import recv, send, wait

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["Cache", "Measured", "checkable", "departures", "hold", "hold_rounds", "measure",
           "needs", "pingpong", "points", "reps", "rounds", "send_order", "software"]

HOLD_TAG, PINGPONG_TAG = 10, 9


# ---- the timed rounds (collectives.programs.params runs them too) ----------------------
def reps(m: int, budget_bytes: int = 8 << 20, most: int = 200) -> int:
    """Round trips in one timed ping-pong run of m-byte messages: `budget_bytes` worth, 3
    to `most`."""
    return max(3, min(most, budget_bytes // max(m, 1)))


def hold_rounds(m: int, repeats: int) -> int:
    """Rounds of back-to-back sends timed for t_hold: up to ten times `repeats` for small
    messages, whose rounds take a millisecond and vary by a woken rank's latency (1 byte on 8
    hosts: medians of 3 rounds from 80 to 300 us, 2026-11-26)."""
    return repeats * max(1, min(10, (64 << 10) // max(m, 1)))


def departures(comm: Any, buf: Any, sends: int, fifo: bool) -> list[tuple[float, float]]:
    """Rank 0: `sends` back-to-back messages to the other ranks in turn, from an idle start;
    per message, (when its send call returned, when it had left the host (fifo) or its call
    returned (overlapped)), both from the first send's start. The first S of them are a
    round of S sends: one round gives t_hold at every count up to `sends` (a message's
    departure does not depend on the sends after it). The other ranks receive theirs and
    return []."""
    rank, n = comm.Get_rank(), comm.Get_size()
    peers = [1 + j % (n - 1) for j in range(sends)]
    idle_barrier(comm)
    if rank:
        for _ in range(peers.count(rank)):
            recv(comm, buf, 0, HOLD_TAG)
        return []
    out: list[tuple[float, float]] = []
    t0 = time.perf_counter()
    for peer in peers:
        send(comm, buf, peer, HOLD_TAG)
        returned = time.perf_counter() - t0
        if fifo:  # the next send, and the clock's end after the last, once it has left
            outqueue.wait_sent()
        out.append((returned, time.perf_counter() - t0))
    return out


def hold(comm: Any, buf: Any, sends: int, fifo: bool) -> float:
    """Rank 0: the mean time per send of `sends` back-to-back messages to the other ranks in
    turn, until the last has left the host (fifo) or its send returned (overlapped). The
    other ranks receive theirs and return 0."""
    got = departures(comm, buf, sends, fifo)
    return got[-1][1] / sends if got else 0.0


def software(got: list[tuple[float, float]]) -> float:
    """The mean time a send call of a round (`departures`) held its caller: from its start
    (the previous one's departure) to its return, Nupairoj1998's t_hs + m t_hd, what a send
    costs before the network takes over (section 6.3)."""
    starts = [0.0] + [left for _, left in got[:-1]]
    return sum(r - s for (r, _), s in zip(got, starts, strict=True)) / len(got)


def pingpong(comm: Any, buf: Any, k: int, dummy: float = 0.0) -> float:
    """Ranks 0 and 1 of `comm` (a pair): half the mean round trip of k round trips; rank 0
    spends `dummy` s busy between its send and its receive (the dummy loop)."""
    rank = comm.Get_rank()
    idle_barrier(comm)
    t0 = time.perf_counter()
    for _ in range(k):
        if rank == 0:
            send(comm, buf, 1, PINGPONG_TAG)
            if dummy:
                busy_wait(dummy)
            recv(comm, buf, 1, PINGPONG_TAG)
        else:
            recv(comm, buf, 0, PINGPONG_TAG)
            send(comm, buf, 0, PINGPONG_TAG)
    return (time.perf_counter() - t0) / (2 * k)


# ---- what the drop-in measures, and when -----------------------------------------------
TIMING = ("t_hold", "t_end")
DYNAMIC = ("t_hs", "t_hd", "t_ns", "t_nd", "t_rs", "t_rd")  # DYN-Tree's own six
# what a choice is checked with (collectives.executor.check) before anything is measured:
# any valid times build a valid tree, and the layout is checked as it will be used
STAND_IN = {"t_hold": 1e-5, "t_end": 3e-5}
GRID = 4  # the sizes measured: 1, 4, 16, 64, ... bytes
REPEATS = 3  # timed ping-pong runs, and at least as many hold rounds (as model_params)
BUDGET_BYTES = 1 << 20  # bytes per timed ping-pong run (as model_params)
MOST_ROUND_TRIPS = 20  # per timed ping-pong run (params' 200: a first use is kept short)


def rounds(size: int) -> int:
    """Hold rounds timed at `size`: hold_rounds of one repeat (ten for small messages,
    whose rounds vary most), at least REPEATS."""
    return max(REPEATS, hold_rounds(size, 1))


def needs(algorithm: Named, options: Mapping[str, Any]) -> bool:
    """Whether the drop-in measures t_hold and t_end for broadcast `algorithm` given
    `options`: it takes them and the options name none of its timing parameters. Given
    some but not all, nothing is measured: the choice is refused as before (check), and
    values given are used as given."""
    return resolve("bcast", algorithm).timing and not any(
        name in options for name in (*TIMING, *DYNAMIC))


def checkable(algorithm: Named, options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` as `check` should see them: with STAND_IN times where they will be
    measured, so that everything else (a layout, a send order) is checked before any
    message."""
    return {**STAND_IN, **options} if needs(algorithm, options) else dict(options)


def points(nbytes: int) -> tuple[int, ...]:
    """The grid sizes an `nbytes` broadcast's t_hold and t_end come from: the power of GRID
    at or below it (1 for 0 and 1 byte) and, unless it is one, the next."""
    if nbytes < 0:
        raise ValueError(f"message size must be a non-negative byte count, got {nbytes!r}")
    low = 1
    while low * GRID <= nbytes:
        low *= GRID
    return (low,) if nbytes <= low else (low, low * GRID)


@dataclass(frozen=True)
class Measured:
    """One measurement: t_hold and t_end of `size`-byte messages among `ranks` ranks, sends
    in `send_order`; t_hold at every count of back-to-back sends up to ranks - 1
    (`t_hold_sends_s`, collectives.trees.inputs: t_hold_s is the last), how long a send's
    call held the sender (`t_software_s`, DYN-Tree's holding terms); `took_s`: how long the
    measurement took (every rank's own clock)."""

    size: int
    send_order: str
    ranks: int
    t_hold_s: float
    t_end_s: float
    took_s: float
    t_hold_sends_s: tuple[float, ...] = ()
    t_software_s: float | None = None

    def record(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def by_count(self) -> tuple[float, ...]:
        return self.t_hold_sends_s or (self.t_hold_s,)


class Cache:
    """What one communicator has measured, by (send order, size)."""

    def __init__(self, entries: Mapping[tuple[str, int], Measured] | None = None) -> None:
        self.entries: dict[tuple[str, int], Measured] = dict(entries or {})

    def copy(self) -> Cache:
        """A copy for a duplicate communicator (the same ranks): it measures on its own
        from then on."""
        return Cache(self.entries)

    def missing(self, nbytes: int, send_order: str) -> list[int]:
        """The grid sizes an `nbytes` broadcast needs that are not measured yet."""
        return [p for p in points(nbytes) if (send_order, p) not in self.entries]

    def add(self, m: Measured) -> None:
        self.entries[m.send_order, m.size] = m

    def params(self, nbytes: int, send_order: str, algorithm: str = "opt-tree",
               k: int | None = None) -> dict[str, float]:
        """What `algorithm` is given for an `nbytes` broadcast on `k` ranks (None: t_hold at
        the most sends measured), as the testbed's model gives it
        (collectives.trees.inputs.timing; KeyError while a point it needs is missing)."""
        # imported here: the model (trees, schedules) costs a rank's start-up ~25 ms, and
        # only the drop-in uses it (collectives.executor says why start-up matters)
        from .trees.inputs import HoldTable, timing

        got = [self.entries[send_order, p] for p in points(nbytes)]
        most = min(len(m.by_count) for m in got)
        table = HoldTable(tuple(m.size for m in got), tuple(m.by_count[:most] for m in got),
                          tuple(m.t_end_s for m in got))
        software = [m.t_software_s for m in got]
        return timing(algorithm, nbytes, table, k, None,
                      None if None in software else cast("list[float]", software))

    def records(self) -> list[dict[str, Any]]:
        return [self.entries[key].record() for key in sorted(self.entries)]


def send_order(options: Mapping[str, Any]) -> str:
    return str(options.get("send_order", DEFAULT_SEND_ORDER))


def measure(comm: Any, size: int, order: str = DEFAULT_SEND_ORDER) -> Measured:
    """t_hold and t_end of `size`-byte messages on `comm` (2 ranks or more), as
    collectives.programs.params measures them, shorter: collective, every rank gets rank
    0's figures. One untimed round of each kind first (connections, a protocol's set-up),
    then `rounds(size)` hold rounds of n - 1 sends (t_hold at every count up to it, from
    the same rounds) and REPEATS ping-pong runs of up to MOST_ROUND_TRIPS round trips
    (BUDGET_BYTES worth), medians."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    t0 = time.perf_counter()
    rank, n = comm.Get_rank(), comm.Get_size()
    fifo = order == "fifo"
    view = memoryview(bytearray(size))
    pair = comm.Split(0 if rank < 2 else MPI.UNDEFINED, rank)  # ranks 0 and 1 keep theirs
    hold(comm, view, n - 1, fifo)
    rounds_ = [departures(comm, view, n - 1, fifo) for _ in range(rounds(size))]
    ends = [0.0]
    if pair != MPI.COMM_NULL:
        k = reps(size, BUDGET_BYTES, MOST_ROUND_TRIPS)
        pingpong(pair, view, 3)
        ends = [pingpong(pair, view, k) for _ in range(REPEATS)]
        pair.Free()
    # rank 0's medians, to every rank (the others asleep until they come)
    by_count = [statistics.median(r[s - 1][1] / s for r in rounds_) if rank == 0 else 0.0
                for s in range(1, n)]
    soft = statistics.median(software(r) for r in rounds_) if rank == 0 else 0.0
    fmt = f"={n + 1}d"
    figures = bytearray(struct.pack(fmt, statistics.median(ends), soft, *by_count))
    wait([comm.Ibcast([figures, MPI.BYTE], root=0)], mode="block")
    t_end, soft, *by_count = struct.unpack(fmt, figures)
    return Measured(size, order, n, by_count[-1], t_end, time.perf_counter() - t0,
                    tuple(by_count), soft)
