"""collectives.pairwise, MPICH 1's three-phase barrier as a plan: it sends Chen2000's count of
messages (the paper's worked values, the seven-rank example), and no rank leaves before
every rank entered."""

from __future__ import annotations

from collections import deque

import pytest

from collectives import pairwise
from collectives.ipmc.plans import mcast_barrier_messages, mpich_barrier_messages


# ---- MPICH 1's barrier as a plan --------------------------------------------------------
@pytest.mark.parametrize("n", range(1, 34))
def test_the_plan_sends_the_papers_count_of_messages(n: int) -> None:
    assert len(pairwise.messages(n)) == mpich_barrier_messages(n)


def test_the_papers_worked_values_and_the_seven_rank_example() -> None:
    assert (mpich_barrier_messages(7), mpich_barrier_messages(9)) == (14, 26)
    assert (mcast_barrier_messages(7), mcast_barrier_messages(9)) == (7, 9)
    # 4, 5, 6 -> 0, 1, 2; pairwise among 0-3; then 0, 1, 2 -> 4, 5, 6
    assert pairwise.plan(7, 4) == [("sendrecv", 0)]
    assert pairwise.plan(7, 0) == [("recv", 4), ("sendrecv", 1), ("sendrecv", 2),
                                   ("send", 4)]
    assert pairwise.plan(7, 3) == [("sendrecv", 2), ("sendrecv", 1)]
    assert pairwise.plan(1, 0) == []
    with pytest.raises(ValueError, match="rank 4 is not in a communicator of 4"):
        pairwise.plan(4, 4)


def _run(n: int) -> list[set[int]]:
    """Play every rank's plan (a send never blocks: zero-byte messages are eager) until no
    rank can go on; each message carries the ranks its sender knows have entered. Returns
    what each rank knows when it leaves (AssertionError if some rank never leaves)."""
    steps = {r: deque(s for kind, peer in pairwise.plan(n, r)
                      for s in ([("send", peer), ("recv", peer)] if kind == "sendrecv"
                                else [(kind, peer)])) for r in range(n)}
    knows = [{r} for r in range(n)]
    wire: dict[tuple[int, int], deque[set[int]]] = {}
    moved = True
    while moved:
        moved = False
        for r in range(n):
            while steps[r]:
                kind, peer = steps[r][0]
                if kind == "send":
                    wire.setdefault((r, peer), deque()).append(set(knows[r]))
                elif wire.get((peer, r)):
                    knows[r] |= wire[(peer, r)].popleft()
                else:
                    break
                steps[r].popleft()
                moved = True
    assert not any(steps.values()), f"{n} ranks: stuck at {dict(steps)}"
    assert not any(wire.values()), "a message nobody received"
    return knows


@pytest.mark.parametrize("n", range(1, 34))
def test_no_rank_leaves_before_every_rank_entered(n: int) -> None:
    assert all(k == set(range(n)) for k in _run(n))
