"""Run a broadcast schedule (collectives.trees.schedules) with point-to-point MPI: every rank
carries out its own program, waiting as collectives.waiting says."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .. import held, outqueue, sent, waiting
from ..algorithms import DEFAULT_SEND_ORDER
from .ops import Recv, Schedule, Send, SendRecv
from .schedules import build

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


def execute(schedule: Schedule, buf: Any, comm: Any) -> None:
    """Carry out this rank's program of `schedule` on `buf` (writable, `schedule.nbytes`).
    With send_order fifo (the default) a send starts once this rank's previous sends have
    left the host (collectives.outqueue), as the model's sender sends; overlapped starts it
    as soon as MPI has taken the previous one. collectives.sent hears of every message
    handed over and of every wait that saw the earlier ones gone (the sending queue)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    view = memoryview(buf).cast("B")
    if len(view) != schedule.nbytes:
        raise ValueError(f"buffer holds {len(view)} bytes, the schedule {schedule.nbytes}")
    fifo = schedule.params.get("send_order", DEFAULT_SEND_ORDER) == "fifo"
    sends = False  # this rank has sent in this broadcast
    for op in schedule.programs[comm.Get_rank()]:
        if not isinstance(op, Recv):
            if fifo and sends:
                outqueue.wait_sent()
                sent.left()
            sends = True
            sent.started()
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
