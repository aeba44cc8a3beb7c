"""Where each rank's block lies in an allgather's receive buffer (pure): a slot, (offset,
length) in bytes, per rank. An Allgather's slots are p equal blocks end to end; an
Allgatherv's are its counts at its displacements (MPI_Allgatherv's recvcounts and displs,
here in bytes). Every allgather of the registry moves slots, so both are one code path:
the exchanges send a message's slots as one MPI message (one slice where they touch), the
multicast ones multicast each rank's slot.

MPI_Allgatherv's rules are kept: a count or displacement below zero is an error, as is a
slot past the buffer's end; slots may lie in any order with gaps between them (the gaps'
bytes are left as they were), but two slots that overlap would receive two blocks into the
same bytes (MPI-4.0 section 6.7: erroneous) and are refused here.
"""

from __future__ import annotations

from collections.abc import Sequence

Slot = tuple[int, int]
"""(offset, length) of one rank's block in the receive buffer, in bytes."""
Slots = tuple[Slot, ...]


def equal(size: int, block: int) -> Slots:
    """An Allgather's slots: `size` blocks of `block` bytes, rank i's at i x block."""
    return tuple((i * block, block) for i in range(size))


def uniform(slots: Slots) -> int | None:
    """The block size when every slot is the same size and they lie end to end from 0 in
    rank order (an Allgather's layout), else None."""
    if not slots:
        return 0
    block = slots[0][1]
    return block if slots == equal(len(slots), block) else None


def of_counts(counts: Sequence[int], displs: Sequence[int] | None, size: int,
              buffer_bytes: int) -> Slots:
    """MPI_Allgatherv's layout in bytes, checked: `counts[i]` bytes of rank i at
    `displs[i]` (None: end to end in rank order). ValueError names the first fault."""
    if len(counts) != size:
        raise ValueError(f"allgatherv: {len(counts)} counts for {size} ranks (one per rank)")
    if displs is None:
        offsets, at = [], 0
        for c in counts:
            offsets.append(at)
            at += max(c, 0)
        displs = offsets
    elif len(displs) != size:
        raise ValueError(f"allgatherv: {len(displs)} displacements for {size} ranks "
                         "(one per rank)")
    slots = tuple((int(d), int(c)) for d, c in zip(displs, counts, strict=True))
    for rank, (offset, length) in enumerate(slots):
        if length < 0 or offset < 0:
            raise ValueError(f"allgatherv: rank {rank}'s "
                             f"{'count' if length < 0 else 'displacement'} is negative "
                             f"({length if length < 0 else offset})")
        if offset + length > buffer_bytes:
            raise ValueError(f"allgatherv: rank {rank}'s {length} bytes at {offset} end past "
                             f"the receive buffer's {buffer_bytes}")
    ordered = sorted((s for s in enumerate(slots) if s[1][1]), key=lambda s: s[1][0])
    for (a, (oa, la)), (b, (ob, _lb)) in zip(ordered, ordered[1:], strict=False):
        if oa + la > ob:
            raise ValueError(f"allgatherv: the slots of ranks {a} and {b} overlap (bytes "
                             f"{ob}..{oa + la - 1}); every rank's block needs its own bytes")
    return slots


def extents(slots: Slots, blocks: Sequence[int]) -> tuple[Slot, ...]:
    """The bytes blocks `blocks` (rank indices, in the order sent) occupy, as (offset,
    length) runs in that order: slots that follow one another in the buffer become one run,
    empty ones none. A message is these runs, one MPI message."""
    out: list[list[int]] = []
    for b in blocks:
        offset, length = slots[b]
        if not length:
            continue
        if out and out[-1][0] + out[-1][1] == offset:
            out[-1][1] += length
        else:
            out.append([offset, length])
    return tuple((o, n) for o, n in out)


def total(slots: Slots, blocks: Sequence[int]) -> int:
    """Bytes of blocks `blocks`: what a message carrying them holds."""
    return sum(slots[b][1] for b in blocks)
