"""collectives.ipmc.concurrent, its decisions without a network: when a receiver's report
is due for a sender (a new end marker, and a provable gap or a whole block to confirm
again), when a sender rescues a receiver over MPI, and that nack's Repair, reused for a
sender's own block, queues its parity symbols in the pacer behind the data instead of
sending them at once, and each sender's pace. The protocol on real ranks:
tests/integration/test_mcast_allgather.py."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from collectives.ipmc import datagram as dg
from collectives.ipmc.concurrent import Outgoing, pace, report_due, rescue_due
from collectives.ipmc.nack import END_ROBUST, RESCUE_QUIET_S, RESCUE_RECENT, Repair
from collectives.ipmc.pacer import Pacer
from collectives.ipmc.parity import Encoder


@pytest.mark.parametrize(("seen", "reported", "missing", "provable", "due"), [
    (0, -1, True, True, True),  # the last fragment came: the gap is provable at once
    (0, -1, True, False, False),  # nothing provable yet: the sender is still sending
    (1, 0, True, True, False),  # the end marker right after a report at the last fragment
    (2, 0, True, True, True),  # a later one: the repair was lost, report again
    (3, 3, True, True, False),  # this end marker was answered already
    (4, 3, False, True, True),  # whole, and a new end marker: the "complete" was lost
    (3, 3, False, True, False),
])
def test_a_report_is_due_at_new_evidence_only(seen: int, reported: int, missing: bool,
                                              provable: bool, due: bool) -> None:
    assert report_due(seen, reported, missing, provable) is due


def test_a_rescue_waits_for_the_end_markers_and_the_blocks_time() -> None:
    recent = END_ROBUST + 1
    assert not rescue_due(END_ROBUST, 100.0, 1.0, recent)  # too few end markers
    assert not rescue_due(END_ROBUST + 1, 0.5, 1.0, recent)  # the block may still come
    assert rescue_due(END_ROBUST + 1, 1.5, 1.0, recent)  # reported gaps recently
    quiet = END_ROBUST + 1 - RESCUE_RECENT
    assert not rescue_due(END_ROBUST + 1, 1.5, 1.0, quiet)  # quiet: likely returned
    assert rescue_due(END_ROBUST + 1, 1.5 + RESCUE_QUIET_S, 1.0, quiet)  # but not for ever


def test_the_repair_of_a_senders_block_is_queued_behind_its_data() -> None:
    wire: list[tuple[int, int]] = []
    ch: Any = SimpleNamespace(rank=2)
    pacer = Pacer(lambda kind, i, payload: wire.append((kind, i)), None)
    block = memoryview(bytearray(range(256)) * 20)  # 5120 bytes: 4 fragments of 1400
    out = Outgoing(ch, block, 1400, pacer)
    assert (out.root, out.count, out.missing) == (2, 4, 0)
    pacer.add([(dg.DATA, i, out.fragment_view(i)) for i in range(out.count)])
    repair = Repair(out, Encoder(block, out.count, 1400))
    assert repair.send([(1, [0, 3])], None)  # one receiver lacks fragments 0 and 3
    assert wire == []  # nothing sent until the pacer is pumped
    while not pacer.idle:
        pacer.pump()
    assert wire[:4] == [(dg.DATA, i) for i in range(4)]
    assert [k for k, _ in wire[4:]] == [dg.PARITY, dg.PARITY]  # two fresh symbols


@pytest.mark.parametrize("sizes", [[1000] * 4, [8000, 10, 10, 10], [0, 5, 300, 7], [3, 9],
                                   [0, 0, 4096], [12, 12, 0]])
def test_every_first_pass_ends_together_and_no_link_gets_more_than_its_rate(
        sizes: list[int]) -> None:
    rates = [pace(100.0, sizes, r) for r in range(len(sizes))]
    for j in range(len(sizes)):  # receiver j hears every other sender of data at once
        assert sum(r for i, r in enumerate(rates) if i != j and sizes[i]) <= 100.0 + 1e-9
    first_pass = {round(m / r, 9) for m, r in zip(sizes, rates, strict=True) if m}
    assert len(first_pass) == 1  # the blocks that have data all end together
    assert first_pass == {round((sum(sizes) - min(sizes)) / 100.0, 9)}
    for m, r in zip(sizes, rates, strict=True):  # equal blocks, or an empty one: B/(p-1)
        if len(set(sizes)) == 1 or not m:
            assert r == pytest.approx(100.0 / (len(sizes) - 1))
