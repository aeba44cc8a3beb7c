"""collectives.ipmc.gapreport: a report round-trips its done senders and every sender's
gaps, the sections share the datagram's budget (what does not fit is cut, never spilt past
it), and a malformed report is refused."""

from __future__ import annotations

import pytest

from collectives.ipmc import gapreport as gr
from collectives.ipmc.plans import bitmap_indexes


def have_without(count: int, missing: set[int]) -> bytearray:
    return bytearray(0 if i in missing else 1 for i in range(count))


def test_done_senders_and_gaps_round_trip() -> None:
    lacking = {3: (2, have_without(20, {4, 5, 19})), 9: (7, have_without(5, {0}))}
    payload = gr.encode(11, {0, 1, 10}, lacking, 1400)
    done, gaps = gr.decode(payload, 11)
    assert done == {0, 1, 10}
    assert set(gaps) == {3, 9}
    assert (gaps[3].seq, bitmap_indexes(gaps[3].start, gaps[3].bitmap, 20)) == (2, [4, 5, 19])
    assert (gaps[9].seq, bitmap_indexes(gaps[9].start, gaps[9].bitmap, 5)) == (7, [0])


def test_a_complete_report_is_its_done_bits_alone() -> None:
    payload = gr.encode(16, set(range(16)), {}, 1400)
    assert payload == b"\xff\xff"
    assert gr.decode(payload, 16) == (set(range(16)), {})


def test_sections_share_the_budget_and_the_rest_is_cut() -> None:
    everything = {s: (1, bytearray(4000)) for s in range(1, 16)}  # each lacks 4000
    payload = gr.encode(16, {0}, everything, 1400)
    assert len(payload) <= 1400
    done, gaps = gr.decode(payload, 16)
    assert done == {0} and set(gaps) == set(range(1, 16))
    share = (1400 - 2) // 15 - gr.SECTION.size
    for g in gaps.values():
        assert g.start == 0 and len(g.bitmap) == share
        assert bitmap_indexes(g.start, g.bitmap, 4000) == list(range(8 * share))


def test_senders_beyond_those_that_fit_wait_for_a_later_report() -> None:
    budget = 2 + 3 * (gr.SECTION.size + gr.MIN_BITMAP)
    payload = gr.encode(16, set(), {s: (1, bytearray(8)) for s in range(16)}, budget)
    assert len(payload) <= budget
    assert set(gr.decode(payload, 16)[1]) == {0, 1, 2}


def test_a_budget_without_room_for_one_section_is_refused() -> None:
    with pytest.raises(ValueError, match="does not fit"):
        gr.encode(16, set(), {3: (1, bytearray(8))}, 2 + gr.SECTION.size)


@pytest.mark.parametrize("payload", [b"", b"\x00\x00" + b"\x00\x01\x00",
                                     b"\x00\x00" + gr.SECTION.pack(16, 1, 0, 1) + b"\x80",
                                     b"\x00\x00" + gr.SECTION.pack(2, 1, 0, 5) + b"\x80"])
def test_malformed_reports_are_refused(payload: bytes) -> None:
    with pytest.raises(ValueError):
        gr.decode(payload, 16)
