"""MPICH 1's barrier, the one Chen2000 (section 3.2) counts the multicast barrier against
(MPICH 1.2's `intra_Barrier`, src/coll/intra_fns.c). With K the largest power of two <= N:

1. the ranks K..N-1 each send to rank - K (they "pair in");
2. the ranks 0..K-1 exchange pairwise by recursive doubling, with rank XOR 1, 2, ..., K/2
   (K log2 K messages);
3. the ranks 0..N-K-1 release rank + K.

2(N - K) + K log2 K zero-byte messages (collectives.ipmc.plans.mpich_barrier_messages).
Every step is a point-to-point message, so it needs no deadline (as the `tree` barrier).
The plan is plain data (`plan`, `messages`); `barrier` runs it with MPI."""

from __future__ import annotations

from typing import Any, Literal

from . import waiting
from .ipmc.plans import largest_power_of_two

# what a rank does next with `peer`: receive from it, send to it, or both at once (MPICH 1's
# MPI_Sendrecv: a rank beyond K sends its arrival and waits for its release; each step of
# recursive doubling)
Kind = Literal["recv", "send", "sendrecv"]
Step = tuple[Kind, int]
TAG = 0x4D45  # beside executor.BARRIER_TAG (the tree barrier's)


def plan(size: int, rank: int) -> list[Step]:
    """Rank `rank`'s steps of the barrier on `size` ranks, in order."""
    if size < 1 or not 0 <= rank < size:
        raise ValueError(f"rank {rank} is not in a communicator of {size} rank(s)")
    k = largest_power_of_two(size)
    if rank >= k:
        return [("sendrecv", rank - k)]
    steps: list[Step] = []
    if rank < size - k:
        steps.append(("recv", rank + k))
    d = 1
    while d < k:
        steps.append(("sendrecv", rank ^ d))
        d <<= 1
    if rank < size - k:
        steps.append(("send", rank + k))
    return steps


def messages(size: int) -> list[tuple[int, int]]:
    """Every message of one barrier on `size` ranks as (sender, receiver), each rank's in
    its own order: as many as mpich_barrier_messages(size)."""
    return [(r, peer) for r in range(size) for kind, peer in plan(size, r) if kind != "recv"]


def barrier(comm: Any) -> None:
    """Run this rank's plan with zero-byte messages, waiting as every wait here waits
    (collectives.waiting). Each ordered pair of ranks carries at most one message a barrier,
    so MPI's in-order matching keeps back-to-back barriers apart with one tag."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    empty = bytearray(1)
    for kind, peer in plan(comm.Get_size(), comm.Get_rank()):
        reqs = []
        if kind != "send":
            reqs.append(comm.Irecv([empty, 0, MPI.BYTE], source=peer, tag=TAG))
        if kind != "recv":
            reqs.append(comm.Isend([empty, 0, MPI.BYTE], dest=peer, tag=TAG))
        waiting.wait(reqs)
