"""testbed.report.multinode: a [multinode] run's folder written from its records (no
network): the four files, failed and flagged rows said as such, and the gain of
partitioning computed from unflagged rows only."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from testbed.experiments.kinds import write_report


def _rec(i, scheme, median, *, flags=(), status="ok", sources=4, factor=0.25, size=65536):
    t = {"n": 5, "median": median, "min": median * 0.9, "max": median * 1.2,
         "p10": median * 0.95, "p90": median * 1.1, "mean": median}
    return {"index": i, "key": f"k{i}", "status": status,
            "error": None if status == "ok" else "multinode_bench printed no row",
            "config": {"kind": "multinode", "algorithm": scheme, "size": size, "hosts": 16,
                       "sources": sources, "factor": factor, "dests": 6, "dilation": 2},
            "t_s": t if status == "ok" else None, "correct": True if status == "ok" else None,
            "plan": {"steps": 7, "max_contention": 2},
            "fidelity": {"ok": not flags, "flags": list(flags)}}


def _folder(tmp_path: Path, recs: list[dict]) -> Path:
    config = {"spec_name": "mn", "points": 6, "started": "2026-11-27T10:00:00+0000",
              "spec": {"name": "mn", "repetitions": 5, "multinode": {"dests": 6}},
              "topology": {"name": "torus-4x4"}, "link_rate": {"mbit": 10.0, "auto": False},
              "versions": {"commit": "abcdef0123456", "dirty": False}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return tmp_path


def test_the_report_of_a_multinode_run(tmp_path):
    recs = [_rec(0, "u-torus", 0.040), _rec(1, "partitioned-random", 0.030),
            _rec(2, "partitioned-balanced", 0.020, flags=["hosts waited for a core"]),
            _rec(3, "u-torus", 0.050, factor=1.0),
            _rec(4, "partitioned-random", 0.0, status="failed", factor=1.0),
            _rec(5, "partitioned-balanced", 0.045, factor=1.0)]
    run = _folder(tmp_path, recs)
    text = write_report(run)
    assert "6 of 6 points measured, 1 failed, 1 flagged" in text
    assert "4 sources, hot-spot factor p 0.25" in text and "p 1" in text
    # the flagged balanced row (20 ms) is not the best partitioned one: random's 30 ms is
    assert "4 sources, p 0.25, 64 KiB: U-torus / partitioned-random 1.33" in text
    assert "4 sources, p 1, 64 KiB: U-torus / partitioned-balanced 1.11" in text
    assert "hosts waited for a core" in text and "failed" in text
    assert "Links at 10 Mbit/s" in text
    for name in ("summary.txt", "summary.csv", "report.html", "plots/multinode.png"):
        assert (run / name).is_file(), name
    with open(run / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["scheme"] for r in rows][:3] == ["u-torus", "partitioned-random",
                                               "partitioned-balanced"]
    assert rows[2]["flagged"] == "True" and rows[4]["status"] == "failed"
    assert float(rows[0]["median_ms"]) == 40.0
    page = (run / "report.html").read_text()
    assert "data:image/png;base64," in page and "commit abcdef0123" in page


def test_nothing_measured_yet(tmp_path):
    text = write_report(_folder(tmp_path, []))
    assert "0 of 6 points measured" in text
    assert not (tmp_path / "plots" / "multinode.png").exists()


def test_a_mesh_run_reports_u_mesh_and_the_sets_drawn(tmp_path):
    sets = [[0, [1, 2]], [3, [4, 6]]]
    recs = [_rec(0, "u-mesh", 0.040) | {"sets": sets},
            _rec(1, "partitioned-balanced", 0.020) | {"sets": sets}]
    text = write_report(_folder(tmp_path, recs))
    assert "sets (source:destinations): 0:1,2;3:4,6" in text
    assert "4 sources, p 0.25, 64 KiB: U-mesh / partitioned-balanced 2.00" in text
    assert text.index("u-mesh") < text.index("partitioned-balanced")  # the direct one first
