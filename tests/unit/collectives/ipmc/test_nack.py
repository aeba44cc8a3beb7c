"""nack's one timer in the path of a loss, the end marker's repeat, is in units of the
measured group round trip (as NORM's flush and Aeron's NAK timers scale with theirs): 2 GRTT
while receivers answer, doubling up to SILENT_MAX x 2 GRTT while none does, doubling
without bound after END_ROBUST; no fixed time anywhere in it."""

from __future__ import annotations

from typing import Any

import pytest

from collectives.ipmc.nack import END_INFO, END_ROBUST, SILENT_MAX, EndMarker


class _Channel:
    def __init__(self) -> None:
        self.sent: list[tuple[Any, ...]] = []

    def send(self, *datagram: Any) -> None:
        self.sent.append(datagram)


def intervals(grtt: float, answered: set[int]) -> list[float]:
    """The interval after each of END_ROBUST + 3 end markers, the receivers answering
    those in `answered` (numbered from 1)."""
    end = EndMarker(_Channel(), 5, grtt)  # type: ignore[arg-type]
    out = []
    for seq in range(1, END_ROBUST + 4):
        end.send()
        out.append(end.interval)
        if seq in answered:
            end.answered = True
    return out


@pytest.mark.parametrize("grtt", [2e-4, 3e-3, 0.05])
def test_the_end_markers_repeat_in_group_round_trips(grtt: float) -> None:
    got = [round(x / grtt, 9) for x in intervals(grtt, answered={1, 6})]
    assert got[:2] == [2, 2]  # answered: 2 GRTT
    assert got[2:6] == [4, 8, 16, 16]  # silent: doubling up to SILENT_MAX x 2 GRTT
    assert SILENT_MAX * 2 == 16
    assert got[6:8] == [2, 4]  # an answer brings it back
    assert got[END_ROBUST:] == [got[END_ROBUST - 1] * 2 ** k for k in (1, 2, 3)]


def test_an_end_marker_carries_its_number_and_the_grtt() -> None:
    ch = _Channel()
    end = EndMarker(ch, 5, 3e-3)  # type: ignore[arg-type]
    end.send()
    end.send()
    assert [END_INFO.unpack(d[3]) for d in ch.sent] == [(1, 3e-3), (2, 3e-3)]
    assert end.sent_at[2] >= end.sent_at[1] == end.first
