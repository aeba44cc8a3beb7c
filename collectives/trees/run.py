"""Run a broadcast schedule (collectives.trees.schedules) with point-to-point MPI: every rank
carries out its own program, waiting as collectives.waiting says."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from .. import held, outqueue, sent, waiting
from ..algorithms import DEFAULT_SEND_ORDER, Named
from ..ops import Op, Recv, Schedule, Send, SendRecv
from .schedules import build

TAG = 0x4D43  # one tag: per-pair FIFO order of MPI matches the schedule's order


@lru_cache(maxsize=256)
def _cached(algorithm: Named, size: int, root: int, nbytes: int,
            params: tuple[tuple[str, Any], ...]) -> Schedule:
    return build(algorithm, size, root, nbytes, **dict(params))


def schedule_for(algorithm: Named, size: int, root: int, nbytes: int, **params: Any
                 ) -> Schedule:
    """The schedule, built once per set of arguments (every rank builds the same one);
    `algorithm` a name or its record (trees.schedules.build).
    List values (say nodes=[...]) are taken as tuples, so they can key the cache."""
    key = tuple(sorted((name, tuple(v) if isinstance(v, list) else v)
                       for name, v in params.items()))
    return _cached(algorithm, size, root, nbytes, key)


def next_receives(program: Sequence[Op]) -> dict[int, int]:
    """For each plain receive of a rank's program, the index of its next plain receive (a
    pipelined tree's next piece from the same parent): where `execute` posts it ahead."""
    at = [i for i, op in enumerate(program) if isinstance(op, Recv)]
    return dict(zip(at, at[1:], strict=False))


def execute(schedule: Schedule, buf: Any, comm: Any) -> None:
    """Carry out this rank's program of `schedule` on `buf` (writable, `schedule.nbytes`).
    With send_order fifo (the default) a send starts once this rank's previous sends have
    left the host (collectives.outqueue), as the model's sender sends; overlapped starts it
    as soon as MPI has taken the previous one. collectives.sent hears of every message
    handed over and of every wait that saw the earlier ones gone (the sending queue).
    A pipelined tree (a schedule with a `fragment`) posts its next piece's receive before it
    waits for the current piece and forwards it, as Open MPI's segmented trees and chain
    do (ompi_coll_tuned_bcast_intra_generic; the [Siebert2006] ipmc component's fragmented
    chain is tuned's): the next piece then comes in while this one goes out, not only once
    this rank has handed it to MPI."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    view = memoryview(buf).cast("B")
    if len(view) != schedule.nbytes:
        raise ValueError(f"buffer holds {len(view)} bytes, the schedule {schedule.nbytes}")
    fifo = schedule.params.get("send_order", DEFAULT_SEND_ORDER) == "fifo"
    sends = False  # this rank has sent in this broadcast
    program = schedule.programs[comm.Get_rank()]
    ahead = next_receives(program) if schedule.params.get("fragment") else {}
    posted: dict[int, Any] = {}  # receives posted ahead, by their index in the program

    def irecv(op: Recv) -> Any:
        return comm.Irecv([view[op.lo:op.hi], MPI.BYTE], source=op.peer, tag=TAG)

    for i, op in enumerate(program):
        if not isinstance(op, Recv):
            if fifo and sends:
                outqueue.wait_sent()
                sent.left()
            sends = True
            sent.started()
        if isinstance(op, Send):
            waiting.wait([comm.Isend([view[op.lo:op.hi], MPI.BYTE], dest=op.peer, tag=TAG)])
        elif isinstance(op, Recv):
            request = posted.pop(i) if i in posted else irecv(op)
            if i in ahead:  # the next piece's receive, posted before this one is forwarded
                nxt = program[ahead[i]]
                assert isinstance(nxt, Recv)
                posted[ahead[i]] = irecv(nxt)
            waiting.wait([request])
            held.mark()  # after the last receive, the rank holds the whole message
        elif isinstance(op, SendRecv):
            s, r = op.send, op.recv
            recv = comm.Irecv([view[r.lo:r.hi], MPI.BYTE], source=r.peer, tag=TAG)
            send = comm.Isend([view[s.lo:s.hi], MPI.BYTE], dest=s.peer, tag=TAG)
            waiting.wait([recv])  # both are posted: waiting for one first cannot deadlock
            held.mark()
            waiting.wait([send])
