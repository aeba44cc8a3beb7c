"""Broadcast for mpi4py programs: run a schedule with point-to-point MPI, or MPICH's own
MPI_Bcast (`algorithm="mpich"`).

    from collectives import bcast
    bcast(buf, root=0, comm=MPI.COMM_WORLD, algorithm="opt-tree", t_hold=20e-6, t_end=55e-6)
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .schedules import NATIVE, Recv, Schedule, Send, SendRecv, build

TAG = 0x4D43  # one tag: per-pair FIFO order of MPI matches the schedule's order


@lru_cache(maxsize=256)
def _cached(algorithm: str, size: int, root: int, nbytes: int,
            params: tuple[tuple[str, Any], ...]) -> Schedule:
    return build(algorithm, size, root, nbytes, **dict(params))


def schedule_for(algorithm: str, size: int, root: int, nbytes: int, **params: Any) -> Schedule:
    """The schedule, built once per set of arguments (every rank builds the same one)."""
    return _cached(algorithm, size, root, nbytes, tuple(sorted(params.items())))


def execute(schedule: Schedule, buf: Any, comm: Any) -> None:
    """Carry out this rank's program of `schedule` on `buf` (writable, `schedule.nbytes`)."""
    from mpi4py import MPI

    view = memoryview(buf).cast("B")
    if len(view) != schedule.nbytes:
        raise ValueError(f"buffer holds {len(view)} bytes, the schedule {schedule.nbytes}")
    for op in schedule.programs[comm.Get_rank()]:
        if isinstance(op, Send):
            comm.Send([view[op.lo:op.hi], MPI.BYTE], dest=op.peer, tag=TAG)
        elif isinstance(op, Recv):
            comm.Recv([view[op.lo:op.hi], MPI.BYTE], source=op.peer, tag=TAG)
        elif isinstance(op, SendRecv):
            s, r = op.send, op.recv
            comm.Sendrecv([view[s.lo:s.hi], MPI.BYTE], dest=s.peer, sendtag=TAG,
                          recvbuf=[view[r.lo:r.hi], MPI.BYTE], source=r.peer, recvtag=TAG)


def bcast(buf: Any, root: int = 0, comm: Any = None, algorithm: str = "binomial",
          **params: Any) -> None:
    """Broadcast `buf` (any writable buffer) from `root` over `comm` with `algorithm`;
    parameters as in `collectives.schedules.build`. Collective: every rank calls it with
    the same algorithm, parameters and buffer size."""
    from mpi4py import MPI

    comm = comm if comm is not None else MPI.COMM_WORLD
    if algorithm == NATIVE:
        comm.Bcast([buf, MPI.BYTE], root=root)
        return
    nbytes = memoryview(buf).nbytes
    execute(schedule_for(algorithm, comm.Get_size(), root, nbytes, **params), buf, comm)
