"""Run an allgather schedule (collectives.exchanges.schedules) with point-to-point MPI on a
receive buffer of p equal blocks: step by step, every receive of the step posted, then
every send, then all waited for as collectives.waiting says. A rank's own block must be in
place before (collectives.executor.allgather puts it there).

Blocks of different sizes on different ranks (which no rank can see alone) are caught
without a message more: a receive that comes short, or that MPI refuses as too long, is a
ValueError naming the sender, on the rank that received it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .. import waiting
from .schedules import Message, Schedule, runs

TAG = 0x4D47  # one tag: MPI's per-pair order matches the schedule's (its steps in turn)


@lru_cache(maxsize=256)
def program(schedule: Schedule, rank: int) -> tuple[tuple[tuple[Message, ...],
                                                          tuple[Message, ...]], ...]:
    """Per step, what `rank` sends and what it receives (built once per schedule)."""
    return tuple(zip(schedule.sends(rank), schedule.receives(rank), strict=True))


def execute(schedule: Schedule, recv: memoryview, comm: Any) -> None:
    """Carry out this rank's part of `schedule` on `recv` (writable bytes, p blocks)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    p, rank = schedule.size, comm.Get_rank()
    if comm.Get_size() != p:
        raise ValueError(f"the schedule is for {p} ranks, the communicator has "
                         f"{comm.Get_size()}")
    block = len(recv) // p
    types: list[Any] = []  # derived datatypes made for this call: freed at its end

    def spec(m: Message) -> list[Any]:
        """The message's blocks in `recv`: a slice, or an indexed type where they wrap."""
        parts = runs(m.blocks)
        if len(parts) == 1 or block == 0:
            first, count = parts[0]
            return [recv[first * block:(first + count) * block], MPI.BYTE]
        kind = MPI.BYTE.Create_indexed([c * block for _f, c in parts],
                                       [f * block for f, _c in parts]).Commit()
        types.append(kind)
        return [recv, 1, kind]

    try:
        for sends, receives in program(schedule, rank):
            requests = [comm.Irecv(spec(m), source=m.src, tag=TAG) for m in receives]
            requests += [comm.Isend(spec(m), dest=m.dst, tag=TAG) for m in sends]
            if requests:
                statuses = [MPI.Status() for _ in requests]
                try:
                    waiting.wait(requests, statuses=statuses)
                except MPI.Exception:
                    _refuse_truncated(receives, statuses, block)
                    raise
                check_received(receives, [s.Get_count(MPI.BYTE) for s in statuses], block)
    finally:
        for kind in types:
            kind.Free()


def check_received(receives: tuple[Message, ...], counts: list[int], block: int) -> None:
    """ValueError where a message came shorter than its blocks (`counts`: bytes received,
    in the order of `receives`): a rank whose block is smaller than this rank's."""
    for m, got in zip(receives, counts, strict=False):
        if got != len(m.blocks) * block:
            raise ValueError(f"allgather: rank {m.src}'s block is {got // len(m.blocks)} "
                             f"bytes, this rank's {block} (every rank's block must be the "
                             "same size)")


def _refuse_truncated(receives: tuple[Message, ...], statuses: list[Any], block: int) -> None:
    """ValueError where MPI refused a message longer than its blocks (MPI_ERR_TRUNCATE)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    for m, status in zip(receives, statuses, strict=False):
        if MPI.Get_error_class(status.Get_error()) == MPI.ERR_TRUNCATE:
            raise ValueError(f"allgather: rank {m.src}'s block is larger than this rank's "
                             f"{block} bytes (every rank's block must be the same size)") \
                from None
