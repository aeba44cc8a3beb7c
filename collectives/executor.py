"""Broadcast for mpi4py programs: run a schedule with point-to-point MPI, or MPICH's own
MPI_Bcast (`algorithm="mpich"`).

    from collectives import bcast
    bcast(buf, root=0, comm=MPI.COMM_WORLD, algorithm="opt-tree", t_hold=20e-6, t_end=55e-6)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from . import held, waiting
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


WAIT_MODES = waiting.MODES  # how ranks wait for messages (MCASTLAB_WAIT; collectives.waiting)


def execute(schedule: Schedule, buf: Any, comm: Any) -> None:
    """Carry out this rank's program of `schedule` on `buf` (writable, `schedule.nbytes`)."""
    from mpi4py import MPI

    view = memoryview(buf).cast("B")
    if len(view) != schedule.nbytes:
        raise ValueError(f"buffer holds {len(view)} bytes, the schedule {schedule.nbytes}")
    for op in schedule.programs[comm.Get_rank()]:
        if isinstance(op, Send):
            waiting.wait([comm.Isend([view[op.lo:op.hi], MPI.BYTE], dest=op.peer, tag=TAG)])
        elif isinstance(op, Recv):
            waiting.wait([comm.Irecv([view[op.lo:op.hi], MPI.BYTE], source=op.peer, tag=TAG)])
            held.mark()  # after the last receive, the rank holds the whole message
        elif isinstance(op, SendRecv):
            s, r = op.send, op.recv
            recv = comm.Irecv([view[r.lo:r.hi], MPI.BYTE], source=r.peer, tag=TAG)
            send = comm.Isend([view[s.lo:s.hi], MPI.BYTE], dest=s.peer, tag=TAG)
            waiting.wait([recv])  # both are posted: waiting for one first cannot deadlock
            held.mark()
            waiting.wait([send])


def bcast(buf: Any, root: int = 0, comm: Any = None, algorithm: str = "binomial",
          **params: Any) -> None:
    """Broadcast `buf` (any writable buffer) from `root` over `comm` with `algorithm`;
    parameters as in `collectives.schedules.build` (opt-mesh, u-mesh, u-torus, opt-min: also
    where the ranks sit, e.g. mesh=(4, 4), nodes=(...)); for `dyn-tree` t_hs, t_hd, t_ns, t_nd,
    t_rs, t_rd (or t_hold and t_end; `collectives.dyn_bcast`); for the multicast algorithms
    (scout-linear, scout-binary, two-stage, nack) as in `collectives.mcast_message.Options`;
    for `range-tree` (hardware range multicasts, seed 001) nodes=(...) and fattree=(k, N) as
    in `collectives.range_bcast.RangeOptions`.
    Collective: every rank calls it with the same algorithm, parameters and buffer size."""
    from mpi4py import MPI

    comm = comm if comm is not None else MPI.COMM_WORLD
    held.start(comm.Get_rank() == root)
    if algorithm == NATIVE:  # MPI_Bcast; waiting as every other algorithm's ranks wait
        if waiting.MODE == "spin":
            comm.Bcast([buf, MPI.BYTE], root=root)
        else:
            waiting.wait([comm.Ibcast([buf, MPI.BYTE], root=root)])
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
        if waiting.MODE == "spin":
            comm.Barrier()
        else:
            waiting.wait([comm.Ibarrier()])
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
    waiting.wait([comm.Irecv([empty, 0, MPI.BYTE], source=k, tag=BARRIER_TAG) for k in kids])
    if parent is not None:
        waiting.wait([comm.Isend([empty, 0, MPI.BYTE], dest=parent, tag=BARRIER_TAG)])
        waiting.wait([comm.Irecv([empty, 0, MPI.BYTE], source=parent, tag=BARRIER_TAG)])
    waiting.wait([comm.Isend([empty, 0, MPI.BYTE], dest=k, tag=BARRIER_TAG) for k in kids])
