"""Broadcast for mpi4py programs: run a schedule with point-to-point MPI, or MPICH's own
MPI_Bcast (`algorithm="mpich"`).

    from collectives import bcast
    bcast(buf, root=0, comm=MPI.COMM_WORLD, algorithm="opt-tree", t_hold=20e-6, t_end=55e-6)
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from functools import lru_cache
from typing import Any

from . import held
from .mcast_plans import BARRIERS, MULTICAST_ALGORITHMS, parents, scout_binary_tree
from .schedules import (
    ALGORITHMS,
    NATIVE,
    TOPOLOGY_ALGORITHMS,
    Recv,
    Schedule,
    Send,
    SendRecv,
    build,
)

TAG = 0x4D43  # one tag: per-pair FIFO order of MPI matches the schedule's order


@lru_cache(maxsize=256)
def _cached(algorithm: str, size: int, root: int, nbytes: int,
            params: tuple[tuple[str, Any], ...]) -> Schedule:
    return build(algorithm, size, root, nbytes, **dict(params))


def schedule_for(algorithm: str, size: int, root: int, nbytes: int, **params: Any) -> Schedule:
    """The schedule, built once per set of arguments (every rank builds the same one).
    List values (say nodes=[...]) are taken as tuples, so they can key the cache."""
    key = tuple(sorted((name, tuple(v) if isinstance(v, list) else v)
                       for name, v in params.items()))
    return _cached(algorithm, size, root, nbytes, key)


SPIN_S = 50e-6   # poll without sleeping this long, then sleep between polls
NAP_S = 20e-6    # the first nap; each further one twice as long, up to NAP_MAX_S
NAP_MAX_S = 2e-4  # as the multicast collectives' waits (mcast_bcast.NAP_MAX_S)


def _low_timer_slack() -> None:
    """Ask for 1 us timer slack (Linux prctl PR_SET_TIMERSLACK): short sleeps stay short."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).prctl(29, 1000, 0, 0, 0)


def _wait(requests: list[Any]) -> None:
    """Complete requests. MCASTLAB_WAIT chooses how a rank waits: `spin` (default, MPICH's
    own busy polling), `yield` (sched_yield between polls) or `sleep` (poll 50 us, then
    sleep between polls). With many emulated hosts on two cores, spinning ranks compete with
    the ranks that have work and with the software switches; on an 8-host star, 1 KiB
    binomial medians were 1.5 ms (spin), 2.4 ms (yield), 3.5 ms (sleep): spinning won."""
    from mpi4py import MPI

    if MPI.Request.Testall(requests):
        return
    if WAIT == "spin":
        MPI.Request.Waitall(requests)
        return
    start, nap = time.perf_counter(), NAP_S
    while not MPI.Request.Testall(requests):
        if WAIT == "yield" or time.perf_counter() - start < SPIN_S:
            os.sched_yield()
        else:
            time.sleep(nap)
            nap = min(NAP_MAX_S, 2 * nap)


WAIT_MODES = ("spin", "yield", "sleep")
WAIT = os.environ.get("MCASTLAB_WAIT", "spin")
if WAIT == "sleep":
    _low_timer_slack()


def execute(schedule: Schedule, buf: Any, comm: Any) -> None:
    """Carry out this rank's program of `schedule` on `buf` (writable, `schedule.nbytes`)."""
    from mpi4py import MPI

    view = memoryview(buf).cast("B")
    if len(view) != schedule.nbytes:
        raise ValueError(f"buffer holds {len(view)} bytes, the schedule {schedule.nbytes}")
    for op in schedule.programs[comm.Get_rank()]:
        if isinstance(op, Send):
            _wait([comm.Isend([view[op.lo:op.hi], MPI.BYTE], dest=op.peer, tag=TAG)])
        elif isinstance(op, Recv):
            _wait([comm.Irecv([view[op.lo:op.hi], MPI.BYTE], source=op.peer, tag=TAG)])
            held.mark()  # after the last receive, the rank holds the whole message
        elif isinstance(op, SendRecv):
            s, r = op.send, op.recv
            recv = comm.Irecv([view[r.lo:r.hi], MPI.BYTE], source=r.peer, tag=TAG)
            send = comm.Isend([view[s.lo:s.hi], MPI.BYTE], dest=s.peer, tag=TAG)
            _wait([recv])  # both are posted: waiting for one first cannot deadlock
            held.mark()
            _wait([send])


def bcast(buf: Any, root: int = 0, comm: Any = None, algorithm: str = "binomial",
          **params: Any) -> None:
    """Broadcast `buf` (any writable buffer) from `root` over `comm` with `algorithm`;
    parameters as in `collectives.schedules.build` (opt-mesh, u-mesh, u-torus, opt-min: also
    where the ranks sit, e.g. mesh=(4, 4), nodes=(...)); for `dyn-tree` t_hs, t_hd, t_ns, t_nd,
    t_rs, t_rd (or t_hold and t_end; `collectives.dyn_bcast`); for the multicast algorithms
    (scout-linear, scout-binary, two-stage, nack) as in `collectives.mcast_bcast.Options`;
    for `range-tree` (hardware range multicasts, seed 001) nodes=(...) and fattree=(k, N) as
    in `collectives.range_bcast.RangeOptions`.
    Collective: every rank calls it with the same algorithm, parameters and buffer size."""
    from mpi4py import MPI

    comm = comm if comm is not None else MPI.COMM_WORLD
    held.start(comm.Get_rank() == root)
    if algorithm == NATIVE:
        comm.Bcast([buf, MPI.BYTE], root=root)
        return
    if algorithm not in BCAST_ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; choose from "
                         f"{', '.join(BCAST_ALGORITHMS)}")
    if algorithm == "dyn-tree":
        from . import dyn_bcast

        dyn_bcast.bcast(buf, root, comm, dyn_bcast.static_params(params))
        return
    if algorithm in RANGE_ALGORITHMS:
        from . import range_bcast
        from .range_channel import range_channel_for

        range_bcast.bcast(range_channel_for(comm), buf, root, **params)
        return
    if algorithm in MULTICAST_ALGORITHMS:
        from . import mcast_bcast
        from .mcast_channel import channel_for

        mcast_bcast.bcast(channel_for(comm), buf, root, algorithm, **params)
        return
    nbytes = memoryview(buf).nbytes
    execute(schedule_for(algorithm, comm.Get_size(), root, nbytes, **params), buf, comm)


DYNAMIC_ALGORITHMS = ("dyn-tree",)
RANGE_ALGORITHMS = ("range-tree",)  # trees of hardware range multicasts (seed 001)
# told where the ranks sit (nodes=, and the network's shape): see testbed.placement
NODE_ALGORITHMS = (*TOPOLOGY_ALGORITHMS, *RANGE_ALGORITHMS)
BCAST_ALGORITHMS = (NATIVE, *ALGORITHMS, *TOPOLOGY_ALGORITHMS, *DYNAMIC_ALGORITHMS,
                    *MULTICAST_ALGORITHMS, *RANGE_ALGORITHMS)


def barrier(comm: Any = None, algorithm: str = "mpich", **params: Any) -> None:
    """`mpich` (MPI_Barrier), `tree` (zero-byte messages up seed 004's binary tree to rank 0
    and back down: the software tree), `mcast` (seed 004's multicast barrier, safe against a
    lost release) or `range-tree` (the same arrivals, released down a tree of hardware range
    multicasts: `collectives.range_bcast`, with nodes= and fattree=); `timeout` (s) bounds
    the multicast barriers' waits."""
    from mpi4py import MPI

    comm = comm if comm is not None else MPI.COMM_WORLD
    if algorithm == "mpich":
        comm.Barrier()
    elif algorithm == "tree":
        tree_barrier(comm)
    elif algorithm == "range-tree":
        from .range_bcast import barrier as range_barrier
        from .range_channel import range_channel_for

        range_barrier(range_channel_for(comm), **params)
    elif algorithm == "mcast":
        from .mcast_barrier import barrier as mcast_barrier
        from .mcast_channel import channel_for

        mcast_barrier(channel_for(comm), **params)
    else:
        raise ValueError(f"unknown barrier {algorithm!r}; choose from {', '.join(BARRIERS)}")


BARRIER_TAG = 0x4D44


def tree_barrier(comm: Any) -> None:
    """Zero-byte messages up the binary tree to rank 0, then back down (the software tree
    the range-tree barrier is compared with: the same arrivals, a point-to-point release)."""
    from mpi4py import MPI

    rank, tree = comm.Get_rank(), scout_binary_tree(comm.Get_size())
    kids, parent = tree.get(rank, []), parents(tree).get(rank)
    empty = bytearray(1)
    _wait([comm.Irecv([empty, 0, MPI.BYTE], source=k, tag=BARRIER_TAG) for k in kids])
    if parent is not None:
        _wait([comm.Isend([empty, 0, MPI.BYTE], dest=parent, tag=BARRIER_TAG)])
        _wait([comm.Irecv([empty, 0, MPI.BYTE], source=parent, tag=BARRIER_TAG)])
    _wait([comm.Isend([empty, 0, MPI.BYTE], dest=k, tag=BARRIER_TAG) for k in kids])
