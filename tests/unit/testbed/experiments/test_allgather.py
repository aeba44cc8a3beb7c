"""testbed.experiments.allgather's result without a network: its record, the median in
multiples of the floor, and a flagged row known as one."""

from __future__ import annotations

import pytest

from testbed.experiments.allgather import AllgatherResult
from testbed.experiments.bcast_result import Times


def result(flags=(), floor=0.1):
    return AllgatherResult(algorithm="ring", block=65536, ranks=5, repetitions=4,
                           t=Times(0.14, 0.13, 0.15, 0.12, 0.16, n=4, mean=0.14),
                           verified=True, floor_s=floor, predicted_s=0.11,
                           fidelity={"ok": not flags, "flags": list(flags)},
                           window=(1.0, 2.0), frames={"data": 918.0}, frames_expected=920)


def test_the_record_and_the_floor_multiple():
    rec = result().to_dict()
    assert rec["t_s"] == {"median": 0.14, "p10": 0.13, "p90": 0.15, "min": 0.12, "max": 0.16,
                          "n": 4, "mean": 0.14}
    assert rec["per_floor"] == pytest.approx(1.4)
    assert (rec["algorithm"], rec["block"], rec["ranks"], rec["frames_expected"]) == \
        ("ring", 65536, 5, 920)
    assert not result().flagged and result(flags=["hosts waited"]).flagged


def test_no_floor_for_empty_blocks():
    assert result(floor=None).per_floor is None
