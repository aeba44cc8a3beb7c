"""testbed.experiments.multinode_run without a network: a [multinode] point's record from
the row its job printed (times, plan, delivery, fidelity, the point's full configuration),
and from no row (a failed job, said with its output)."""

from __future__ import annotations

from types import SimpleNamespace

from testbed.experiments.kinds import from_dict
from testbed.experiments.multinode_run import failure_text, record

SPEC = from_dict({"name": "mn", "repetitions": 2, "seed": 0,
                  "network": {"topology": "torus:rows=2,cols=4,bw=100"},
                  "multinode": {"sources": [3], "dests": 4, "factors": [0.5],
                                "sizes": [4096], "schemes": ["u-torus"]}})
ROW = {"scheme": "u-torus", "size": 4096, "factor": 0.5, "correct": True,
       "t_s": {"n": 2, "median": 0.01, "min": 0.009, "max": 0.011},
       "samples_s": [0.009, 0.011], "steps": 4, "sends": 9, "link_crossings": 12,
       "max_contention": 2, "contention": [2, 1], "window": [1.0, 2.0],
       "cpu": {"wait_per_turn_s": 0.0}, "fidelity": {"ok": True, "flags": []}}


def test_a_point_measured():
    (p,) = SPEC.points()
    rec = record(SPEC, p, ROW, "unused", {"link_rate": {"mbit": 100.0}, "job": 1})
    assert rec["key"] == p.key and rec["status"] == "ok" and rec["error"] is None
    assert rec["config"] | {} == {
        "kind": "multinode", "algorithm": "u-torus", "size": 4096, "hosts": 8, "sources": 3,
        "factor": 0.5, "dests": 4, "dilation": 2, "seed": 0, "torus": [2, 4],
        "topology": "torus-2x4", "switching": "controller", "repetitions": 2,
        "wait": SPEC.wait, "link_mbit": 100.0}
    assert rec["plan"]["max_contention"] == 2 and rec["samples_s"] == [0.009, 0.011]
    assert rec["link_rate"] == {"mbit": 100.0} and rec["job"] == 1


def test_a_destination_that_missed_bytes_fails_the_point():
    (p,) = SPEC.points()
    rec = record(SPEC, p, ROW | {"correct": False}, "unused", {})
    assert rec["status"] == "failed" and rec["error"] == "a destination missed bytes"


def test_no_row_is_a_failed_point_with_the_jobs_words():
    (p,) = SPEC.points()
    res = SimpleNamespace(stderr="rank 3: killed", stdout="", returncode=1)
    rec = record(SPEC, p, None, failure_text(res), {})
    assert rec["status"] == "failed" and rec["t_s"] is None
    assert "exit 1" in rec["error"] and "rank 3: killed" in rec["error"]


def test_a_mesh_points_record_names_its_grid_and_carries_the_sets_drawn():
    spec = from_dict({"name": "mn", "repetitions": 2, "seed": 0,
                      "network": {"topology": "mesh:rows=2,cols=4,bw=100"},
                      "multinode": {"sources": [3], "dests": 4, "factors": [0.5],
                                    "sizes": [4096], "schemes": ["u-mesh"]}})
    (p,) = spec.points()
    sets = [[0, [1, 2, 5, 6]], [3, [1, 2, 4, 7]], [5, [1, 2, 3, 4]]]
    rec = record(spec, p, ROW | {"scheme": "u-mesh", "sets": sets}, "unused", {})
    assert rec["config"]["algorithm"] == "u-mesh" and rec["config"]["mesh"] == [2, 4]
    assert "torus" not in rec["config"] and rec["sets"] == sets
    assert record(spec, p, None, "failed", {})["sets"] is None
