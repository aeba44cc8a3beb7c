"""testbed.labs.unreliable (lab 4): the frames of nack and the report scouts are counted with
every receiver's "complete" straight to the root (acks direct, 3 copies each), whose count
does not depend on what the machine's timing did in the broadcasts before; two-stage's
are asked with data only (its TCP chain's pure ACKs follow the timing); the other
broadcasts and the lossy ones run as the registry has them; every variant asks and counts
alike (no network: the measuring step is replaced by one that records what it is asked)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from collectives.call import BcastCall
from testbed.labs import unreliable
from testbed.measure.bcast_batch import Batched
from testbed.measure.options import RunOptions

SIZES = tuple(unreliable.VARIANTS.knobs[0].choices)


def test_the_report_broadcasts_are_counted_with_direct_completes() -> None:
    for size in SIZES:
        for a in unreliable.FRAMED:
            call = unreliable.counted(a, size)
            assert (call.algorithm, call.size) == (a, size)
            want = {"acks": "direct"} if a in ("scout-linear", "nack") else {}
            assert dict(call.options) == want
    # the registry's default is the tree: what the lab counts is not it (the question says so)
    assert "acks" not in BcastCall("nack", 8192).options


@pytest.mark.parametrize("size", SIZES)
def test_each_variants_questions_name_the_completion_counted(size: int) -> None:
    qs = {q.key: q for q in unreliable.questions({"size": size, "loss": 0.03})}
    assert [q.key for q in qs.values()] == [q.key for q in unreliable.QUESTIONS]
    for key in ("frames_sent.nack", "frames_sent.scout-linear", "frames_delivered.nack"):
        assert f"--acks direct broadcast of {size} B" in qs[key].text
    for key in ("frames_sent.binomial", "frames_data.two-stage"):
        assert "--acks" not in qs[key].text and f"of {size} B" in qs[key].text
    assert "frames with data (TCP's pure ACKs left out)" in qs["frames_data.two-stage"].text
    assert "frames_sent.two-stage" not in qs
    assert all(q.factor == 1.3 for q in qs.values() if q.key.startswith("frames_")
               and q.key != "frames_data.two-stage")
    # a run's TCP segments per chain message (one or two) spread it x1.25 at 32 KiB; a
    # neighbour's size (x2) moves it x1.56 or more
    assert qs["frames_data.two-stage"].factor == 1.5
    assert qs["frames_data.two-stage"].accepts(119.4, 95.4)
    assert not qs["frames_data.two-stage"].accepts(14.4, 9.2)


def test_measure_counts_direct_completes_and_runs_the_lossy_broadcasts_as_they_are(
        monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[list[Batched], RunOptions | None]] = []

    def together(emu: Any, batch: list[Batched], options: RunOptions | None = None
                 ) -> dict[str, Any]:
        asked.append((list(batch), options))
        return {b.key: SimpleNamespace(frames={"sent": 19.96, "delivered": 33.04,
                                               "data": 15.04},
                                       verified=True,
                                       datagrams={"per_broadcast": {"repaired": 2.0}})
                for b in batch}

    monkeypatch.setattr(unreliable, "measure_together", together)
    out = unreliable.measure({"size": 4096, "loss": 0.07}, None, lambda _: None)
    (framed, plain), (lossy, options) = asked
    assert plain is None and options == RunOptions(loss=0.07)
    assert [(b.key, b.call, b.frames) for b in framed] == [
        (a, unreliable.counted(a, 4096), 5) for a in unreliable.FRAMED]
    assert [(b.call.algorithm, b.call.size, dict(b.call.options), b.frames) for b in lossy] \
        == [(a, unreliable.LOSSY_SIZE, {}, 0) for a in unreliable.REPAIRED]
    assert out == {**{f"frames_sent.{a}": 20.0 for a in ("binomial", "scout-linear", "nack")},
                   "frames_data.two-stage": 15.0, "frames_delivered.nack": 33.0,
                   "delivered_under_loss.two-stage": "yes",
                   "delivered_under_loss.nack": "yes", "repaired.nack": "yes"}
    assert set(out) == {q.key for q in unreliable.QUESTIONS}
