"""Run an allgather schedule (collectives.exchanges.schedules) with point-to-point MPI on a
receive buffer of p equal blocks: step by step, every receive of the step posted, then
every send, then all waited for as collectives.waiting says. A rank's own block must be in
place before (collectives.executor.allgather puts it there)."""

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
                waiting.wait(requests)
    finally:
        for kind in types:
            kind.Free()
