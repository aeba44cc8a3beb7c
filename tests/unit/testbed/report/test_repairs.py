"""The cost of one loss in a loss point's report: the median of the broadcasts repaired in
exactly one round minus the median of those with none, beside the root's detection and
group round trip (testbed.report.repairs)."""

from __future__ import annotations

from typing import Any

import pytest

from testbed.report.points import point_of
from testbed.report.repairs import OneLoss, one_loss, one_loss_text, repair_costs


def repairs(rounds: list[int], detect: list[float | None], grtt: float = 1e-3
            ) -> dict[str, list[Any]]:
    n = len(rounds)
    return {"rounds": rounds, "detect_s": detect, "detect_at": [1] * n, "grtt_s": [grtt] * n,
            "sent_s": [1e-4] * n, "root_s": [2e-3] * n, "end_markers": [1] * n,
            "by_mpi": [0] * n, "rescued": [0] * n}


def test_one_round_costs_the_difference_of_the_medians() -> None:
    samples = [0.002, 0.003, 0.004, 0.006, 0.007, 0.020]
    acc = repairs([0, 0, 0, 1, 1, 2], [None, None, None, 5e-4, 7e-4, 6e-4])
    got = one_loss(samples, acc)
    assert got is not None
    assert (got.none, got.one, got.more) == (3, 2, 1)
    assert got.extra_ms == pytest.approx(6.5 - 3.0)
    assert got.detect_ms == pytest.approx(0.6) and got.grtt_ms == pytest.approx(1.0)
    text = one_loss_text(got)
    assert text.startswith("one repair round: +3.50 ms over the broadcasts with none")
    assert "n=2 and 3, 1 with more" in text
    assert text.endswith("detection 0.6 ms + group round trip 1.00 ms")


def test_what_cannot_be_stated_is_said() -> None:
    assert one_loss([0.001, 0.002], repairs([0, 0], [None, None])) is None  # no rounds
    assert one_loss([0.001], repairs([1, 0], [1e-3, None])) is None  # not aligned
    assert one_loss([0.001], None) is None
    only_more = one_loss([0.001, 0.009], repairs([0, 3], [None, 1e-3]))
    assert only_more == OneLoss(1, 0, 1, None, None, None)
    assert one_loss_text(only_more).startswith(
        "no broadcast with exactly one repair round (1 with more, 1 with none)")
    all_repaired = one_loss([0.004, 0.005], repairs([1, 1], [1e-3, 2e-3]))
    assert all_repaired is not None and all_repaired.extra_ms is None
    assert "no broadcast without a repair" in one_loss_text(all_repaired)


def record(alg: str, loss: float, samples: list[float], acc: dict | None,
           flagged: bool = False) -> dict[str, Any]:
    return {"index": 0, "status": "ok", "samples_s": samples, "repairs": acc,
            "t_mcast_s": {"median": sorted(samples)[len(samples) // 2]},
            "fidelity": {"ok": not flagged, "flags": ["slow"] if flagged else []},
            "config": {"algorithm": alg, "size": 1024, "hosts": 8, "loss": loss,
                       "loss_scope": "all", "traffic": "none", "fault": "none"}}


def test_one_line_per_point_with_rounds_and_none_for_a_flagged_one() -> None:
    points = [point_of(r) for r in [
        record("binomial", 0.01, [0.002, 0.003], None),
        record("nack", 0.0, [0.002, 0.003], repairs([0, 0], [None, None])),
        record("nack", 0.01, [0.002, 0.004], repairs([0, 1], [None, 1e-3])),
        record("scout-linear", 0.01, [0.002, 0.004], repairs([0, 1], [None, 1e-3]),
               flagged=True)]]
    lines = repair_costs(points)
    assert lines == [
        "nack 1 KiB, loss 1% of every packet: " + one_loss_text(one_loss([0.002, 0.004],
                                                         repairs([0, 1], [None, 1e-3]))),
        "scout-linear 1 KiB, loss 1% of every packet: flagged, the cost of one loss not stated"]
