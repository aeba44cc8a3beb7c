"""collectives.ops: a forwarder issues its sends from when it holds the message, and a
deadlocked schedule is refused."""

from __future__ import annotations

import pytest

from collectives.ops import Recv, Schedule, Send
from collectives.trees.hol import Channel, hol_times

QUIET, BUSY = Channel(20, 20, 15, 20, 20), Channel(20, 20, 15, 20, 20, 15)


def test_a_forwarder_issues_its_sends_from_when_it_holds_the_message() -> None:
    sched = Schedule("two-hop", 3, 0, 0, ((Send(1, 0, 0),), (Recv(0, 0, 0), Send(2, 0, 0)),
                                          (Recv(1, 0, 0),)))
    done, sent = hol_times(sched, BUSY)
    assert sent[1].issued == done[1] == 75 and done[2] == 150  # 20 + 35 + 20, twice


def test_a_deadlocked_schedule_is_refused() -> None:
    sched = Schedule("stuck", 2, 0, 0, ((Recv(1, 0, 0),), (Recv(0, 0, 0),)))
    with pytest.raises(ValueError, match="deadlocks"):
        hol_times(sched, QUIET)
