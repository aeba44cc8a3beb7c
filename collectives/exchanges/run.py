"""Run an allgather schedule (collectives.exchanges.schedules) with point-to-point MPI on a
receive buffer of p slots (collectives.slots: an Allgather's equal blocks, an Allgatherv's
counts at their displacements): step by step, every receive of the step posted, then every
send, then all waited for as collectives.waiting says. A message is its blocks' slots as one
MPI message: a slice where they lie end to end, an hindexed type over the buffer where
not. A rank's own block must be in place before (collectives.executor puts it there).

Blocks of different sizes on different ranks (which no rank can see alone) are caught
without a message more: a receive that comes short, or that MPI refuses as too long, is a
ValueError naming the sender, on the rank that received it."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .. import waiting
from ..slots import Slots, equal, extents, total, uniform
from .schedules import Message, Schedule

TAG = 0x4D47  # one tag: MPI's per-pair order matches the schedule's (its steps in turn)


@lru_cache(maxsize=256)
def program(schedule: Schedule, rank: int) -> tuple[tuple[tuple[Message, ...],
                                                          tuple[Message, ...]], ...]:
    """Per step, what `rank` sends and what it receives (built once per schedule)."""
    return tuple(zip(schedule.sends(rank), schedule.receives(rank), strict=True))


def execute(schedule: Schedule, recv: memoryview, comm: Any,
            slots: Slots | None = None) -> None:
    """Carry out this rank's part of `schedule` on `recv` (writable bytes): block i in
    `slots[i]` (None: p equal blocks filling `recv`)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    p = schedule.size
    if comm.Get_size() != p:
        raise ValueError(f"the schedule is for {p} ranks, the communicator has "
                         f"{comm.Get_size()}")
    slots = slots if slots is not None else equal(p, len(recv) // p)
    types: list[Any] = []  # derived datatypes made for this call: freed at its end

    def spec(m: Message) -> list[Any]:
        """The message's blocks in `recv`: a slice, or an hindexed type where they part."""
        parts = extents(slots, m.blocks)
        if len(parts) <= 1:
            offset, length = parts[0] if parts else (0, 0)
            return [recv[offset:offset + length], MPI.BYTE]
        kind = MPI.BYTE.Create_hindexed([n for _o, n in parts],
                                        [o for o, _n in parts]).Commit()
        types.append(kind)
        return [recv, 1, kind]

    try:
        for sends, receives in program(schedule, comm.Get_rank()):
            requests = [comm.Irecv(spec(m), source=m.src, tag=TAG) for m in receives]
            requests += [comm.Isend(spec(m), dest=m.dst, tag=TAG) for m in sends]
            if requests:
                statuses = [MPI.Status() for _ in requests]
                try:
                    waiting.wait(requests, statuses=statuses)
                except MPI.Exception:
                    _refuse_truncated(receives, statuses, slots)
                    raise
                check_received(receives, [s.Get_count(MPI.BYTE) for s in statuses], slots)
    finally:
        for kind in types:
            kind.Free()


def check_received(receives: tuple[Message, ...], counts: list[int], slots: Slots) -> None:
    """ValueError where a message came shorter than its blocks' slots (`counts`: bytes
    received, in the order of `receives`): a rank whose block is smaller than this rank
    counts it (an Allgather's: than this rank's own)."""
    for m, got in zip(receives, counts, strict=False):
        if got != total(slots, m.blocks):
            raise ValueError(_differs(m, slots, got))


def _differs(m: Message, slots: Slots, got: int | None) -> str:
    """What is wrong with message `m` that came with `got` bytes (None: more than fit)."""
    block = uniform(slots)
    if block is not None:
        size = "larger than" if got is None else f"{got // len(m.blocks)} bytes,"
        return (f"allgather: rank {m.src}'s block is {size} this rank's {block}"
                f"{' bytes' if got is None else ''} (every rank's block must be the same size)")
    sent = "more" if got is None else f"{got} bytes"
    return (f"allgatherv: rank {m.src} sent {sent} for the blocks of ranks "
            f"{list(m.blocks)}, this rank's counts say {total(slots, m.blocks)} (every rank "
            "must pass the same counts)")


def _refuse_truncated(receives: tuple[Message, ...], statuses: list[Any],
                      slots: Slots) -> None:
    """ValueError where MPI refused a message longer than its blocks (MPI_ERR_TRUNCATE)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    for m, status in zip(receives, statuses, strict=False):
        if MPI.Get_error_class(status.Get_error()) == MPI.ERR_TRUNCATE:
            raise ValueError(_differs(m, slots, None)) from None
