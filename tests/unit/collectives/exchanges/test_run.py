"""collectives.exchanges.run's parts that need no MPI job: each rank's program is its own
messages of the schedule, step by step, every step present (an idle one empty) so that
the ranks keep in step; a message shorter than its blocks' slots names the rank whose block
is smaller (an Allgatherv's: whose counts differ). (It runs on real ranks in
tests/integration/test_allgather.py.)"""

from __future__ import annotations

import pytest

from collectives.exchanges.run import check_received, program
from collectives.exchanges.schedules import Message, build
from collectives.slots import equal


def test_a_ranks_program_is_its_messages_step_by_step():
    s = build("recursive-doubling", 5)
    steps = program(s, 4)
    assert len(steps) == len(s.steps) == 3
    (sends0, receives0), (sends1, receives1), (sends2, receives2) = steps
    assert sends0 == receives0 == sends1 == receives1 == ()  # nobody to pair with
    assert [m.dst for m in sends2] == [0, 1, 2, 3] and [m.src for m in receives2] == [0]
    for rank in range(5):
        mine = [m for sends, receives in program(s, rank) for m in (*sends, *receives)]
        assert sorted(map(repr, mine)) == sorted(repr(m) for step in s.steps for m in step
                                                 if rank in (m.src, m.dst))


def test_a_short_message_names_the_rank_with_the_smaller_block():
    got = (Message(3, 0, (3,)), Message(4, 0, (4, 0)))
    check_received(got, [8, 16], equal(5, 8))
    check_received((), [], equal(5, 8))
    with pytest.raises(ValueError, match=r"allgather: rank 4's block is 4 bytes, this rank's 8 "
                                         r"\(every rank's block must be the same size\)"):
        check_received(got, [8, 8], equal(5, 8))


def test_an_allgatherv_message_is_judged_by_its_slots():
    slots = ((0, 3), (3, 0), (3, 5), (8, 1), (9, 2))  # an Allgatherv's counts end to end
    got = (Message(3, 0, (3,)), Message(4, 0, (4, 0)))
    check_received(got, [1, 5], slots)
    with pytest.raises(ValueError, match=r"allgatherv: rank 4 sent 4 bytes for the blocks of "
                                         r"ranks \[4, 0\], this rank's counts say 5 \(every "
                                         r"rank must pass the same counts\)"):
        check_received(got, [1, 4], slots)
