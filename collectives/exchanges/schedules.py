"""Allgather schedules as plain data: a list of steps, each the messages every rank sends
in it (source, destination, the indices of the blocks it carries). Pure: no MPI, no
buffers; collectives.exchanges.run carries a schedule out, the unit tests simulate it.

Block i is rank i's contribution; where it sits in every rank's receive buffer is its slot
(collectives.slots: i x m for an Allgather's equal blocks, the counts and displacements for
an Allgatherv), so a message is a set of blocks, never bytes, and one schedule serves both.
In a step every rank first posts all its receives, then its sends: the messages of one
step may go both ways between two ranks without deadlock.

- ring [Thakur2005]: p - 1 steps; in step s rank r sends block (r - s) mod p to r + 1 and
  receives block (r - s - 1) mod p from r - 1. Each rank sends and receives (p - 1) blocks.
- recursive doubling [Thakur2005]: ceil(log2 p) steps; in step k (d = 2^k) the ranks are
  in aligned groups of 2d, each two halves of d; a rank holds its half's blocks and swaps
  them with the rank at r XOR d, in the other half, for that half's. For p not a power of
  two the upper half of the last group may be short: a rank whose partner r XOR d is
  missing receives the upper half from one of its ranks (upper rank j + (r - lo) mod n,
  n the ranks there), so an upper rank may send several times in a step and every rank
  still receives once a step, (p - 1) blocks in all, in ceil(log2 p) steps. (MPICH 2's
  forwarded the missing halves in extra steps; MPICH 4's and Open MPI's take powers of
  two only.)
- Bruck [Bruck1997]: ceil(log2 p) steps; in step k (d = 2^k) rank r holds blocks
  r .. r + d - 1 (mod p) and sends the first min(d, p - d) of them to r - d, receiving
  as many from r + d: its blocks r + d .. r + d + count - 1. Each rank sends and receives
  (p - 1) blocks. Bruck's final rotation is not needed: blocks land at their own offsets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from ..algorithms import Named, resolve


@dataclass(frozen=True)
class Message:
    """Rank `src` sends rank `dst` the blocks `blocks` (indices, in the order sent)."""

    src: int
    dst: int
    blocks: tuple[int, ...]


Step = tuple[Message, ...]


@dataclass(frozen=True)
class Schedule:
    algorithm: str
    size: int
    steps: tuple[Step, ...]

    def sends(self, rank: int) -> tuple[tuple[Message, ...], ...]:
        """Per step, the messages `rank` sends."""
        return tuple(tuple(m for m in step if m.src == rank) for step in self.steps)

    def receives(self, rank: int) -> tuple[tuple[Message, ...], ...]:
        """Per step, the messages `rank` receives."""
        return tuple(tuple(m for m in step if m.dst == rank) for step in self.steps)


def ring(p: int) -> tuple[Step, ...]:
    return tuple(tuple(Message(r, (r + 1) % p, ((r - s) % p,)) for r in range(p))
                 for s in range(p - 1))


def recursive_doubling(p: int) -> tuple[Step, ...]:
    steps = []
    d = 1
    while d < p:
        step = []
        for lo in range(0, p, 2 * d):  # each group [lo, lo + 2d): halves [lo, lo+d), [lo+d, ..)
            upper = range(lo + d, min(lo + 2 * d, p))
            if not upper:  # a last group with no upper half: nothing to swap
                continue
            lower_blocks = tuple(range(lo, lo + d))
            for j in upper:  # every upper rank has its partner below
                step.append(Message(j - d, j, lower_blocks))
            for r in range(lo, lo + d):  # the lower ranks get the upper half from ...
                src = r + d if r + d < p else upper[(r - lo) % len(upper)]  # ... a stand-in
                step.append(Message(src, r, tuple(upper)))
        steps.append(tuple(step))
        d *= 2
    return tuple(steps)


def bruck(p: int) -> tuple[Step, ...]:
    steps = []
    d = 1
    while d < p:
        count = min(d, p - d)
        steps.append(tuple(Message(r, (r - d) % p, tuple((r + i) % p for i in range(count)))
                           for r in range(p)))
        d *= 2
    return tuple(steps)


# the registry's family "exchange" (collectives.algorithms), one builder each
BUILDERS: dict[str, Callable[[int], tuple[Step, ...]]] = {
    "ring": ring, "recursive-doubling": recursive_doubling, "bruck": bruck}


@lru_cache(maxsize=64)
def build(algorithm: Named, size: int) -> Schedule:
    """The schedule of `algorithm` (a name, or its record: no look-up) on `size` ranks (the
    same on every rank), or ValueError."""
    record = resolve("allgather", algorithm)
    algorithm = record.name
    if record.family != "exchange":
        raise ValueError(f"{algorithm} has no schedule (it is not a point-to-point exchange: "
                         f"choose from {', '.join(BUILDERS)})")
    if size < 1:
        raise ValueError(f"an allgather needs at least 1 rank, got {size}")
    return Schedule(algorithm, size, BUILDERS[algorithm](size))
