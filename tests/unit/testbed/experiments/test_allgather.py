"""testbed.experiments.allgather's result without a network: its record, the median in
multiples of the floor, a flagged row known as one, and a point's record with its tail."""

from __future__ import annotations

import pytest

from collectives.stats import tails
from testbed.experiments.allgather import point_config, point_record
from testbed.experiments.kinds import from_dict
from testbed.measure.allgather import AllgatherResult
from testbed.measure.times import Times


def result(flags=(), floor=0.1, samples=()):
    return AllgatherResult(algorithm="ring", block=65536, ranks=5, repetitions=4,
                           t=Times(0.14, 0.13, 0.15, 0.12, 0.16, n=4, mean=0.14),
                           verified=True, floor_s=floor, predicted_s=0.11,
                           fidelity={"ok": not flags, "flags": list(flags)},
                           window=(1.0, 2.0), frames={"data": 918.0}, frames_expected=920,
                           samples=tuple(samples))


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


def test_a_points_record_carries_its_tail():
    spec = from_dict({"name": "ag", "collective": "allgather", "repetitions": 12,
                  "network": {"topology": "star:hosts=5,bw=100"},
                  "sweep": {"algorithms": ["ring"], "sizes": [65536], "loss": [0.01]}})
    p = spec.points()[0]
    samples = [0.1 + 0.001 * i for i in range(12)]
    rec = point_record(spec, p, result(samples=samples), None, {"run": {}})
    assert rec["samples_s"] == samples and rec["tails_s"] == tails(samples)
    assert rec["tails_s"]["p90"] is not None and rec["tails_s"]["needs"] == {
        "p99": 100, "p99.9": 1000}
    failed = point_record(spec, p, None, "allgather_bench measured 0 of 1 sizes", {})
    assert failed["status"] == "failed" and failed["tails_s"] is None
    # the kind's record (what the run folder, --list and the probe ask) is the record's config
    assert rec["config"] == failed["config"] == spec.kind.record(spec, p) == point_config(
        spec, p)
    assert rec["config"]["loss"] == 0.01 and rec["config"]["link_mbit"] == 100


def test_a_lossy_points_record_says_its_scope_verification_and_flags():
    """Each loss under each scope (sweep.loss_scope): a point's record names its scope (none
    without loss), whether every block arrived, and the fidelity monitor's flags."""
    spec = from_dict({"name": "ag", "collective": "allgather", "repetitions": 12,
                      "network": {"topology": "star:hosts=5,bw=100"},
                      "sweep": {"algorithms": ["ring"], "sizes": [1024], "loss": [0, 0.01],
                                "loss_scope": ["multicast", "all"]}})
    points = spec.points()
    recs = [point_record(spec, p, result(flags=["hosts waited"] * (i == 2),
                                         samples=[0.1] * 12), None, {})
            for i, p in enumerate(points)]
    assert [(r["config"]["loss"], r["config"]["loss_scope"]) for r in recs] == [
        (0.0, None), (0.01, "multicast"), (0.01, "all")]
    assert all(r["verified"] is True and r["status"] == "ok" for r in recs)
    assert [r["fidelity"]["flags"] for r in recs] == [[], [], ["hosts waited"]]
