"""testbed.report.allgather: an Allgather run's folder written from its records (no
network): the tables per condition and block size with the floor multiple, the fastest
unflagged algorithm marked, failed and flagged rows said, the CSV and the figure."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from testbed.report import write_report


def _rec(i, algo, median, *, size=65536, loss=0.0, flags=(), status="ok", scope=None):
    floor = 3 * size * 8 / 100e6
    return {"index": i, "key": f"k{i}", "status": status,
            "error": None if status == "ok" else "allgather_bench measured 0 of 1 sizes",
            "config": {"collective": "allgather", "algorithm": algo, "size": size, "hosts": 4,
                       "loss": loss, **({"loss_scope": scope} if scope else {})},
            "t_s": {"median": median, "p10": median * 0.9, "p90": median * 1.2}
            if status == "ok" else None,
            "floor_s": floor, "per_floor": median / floor if status == "ok" else None,
            "predicted_s": 0.017 if algo != "mpich" else None,
            "verified": True if status == "ok" else None,
            "fidelity": {"ok": not flags, "flags": list(flags)}}


def test_the_report_of_an_allgather_run(tmp_path: Path):
    recs = [_rec(0, "mpich", 0.023), _rec(1, "ring", 0.022),
            _rec(2, "bruck", 0.019, flags=["hosts waited for a core"]),
            _rec(3, "ring", 0.029, loss=0.05), _rec(4, "bruck", 0.0, loss=0.05, status="failed"),
            _rec(5, "ring", 0.022, loss=0.05, scope="multicast")]
    config = {"spec_name": "ag", "points": 7, "started": "2026-11-27T11:00:00+0000",
              "spec": {"name": "ag", "collective": "allgather", "repetitions": 3},
              "topology": {"name": "star-4"}, "link_rate": {"mbit": 100.0},
              "versions": {"commit": "0123456789ab", "dirty": True}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    text = write_report(tmp_path)
    assert "6 of 7 points measured, 1 failed, 1 flagged" in text
    assert "64 KiB blocks, 4 ranks (floor 15.73 ms)" in text
    # a record without its scope is a run's from before: it lost every packet
    assert "64 KiB blocks, 4 ranks, loss 5% of every packet (floor 15.73 ms)" in text
    assert "64 KiB blocks, 4 ranks, loss 5% of multicast datagrams (floor 15.73 ms)" in text
    lines = text.splitlines()
    # the flagged bruck (19 ms) is not the fastest: ring's 22 ms is
    assert any(ln.strip().startswith("ring *") and "1.40" in ln for ln in lines)
    assert any(ln.strip().startswith("bruck ") and "hosts waited" in ln for ln in lines)
    assert any("failed" in ln and "bruck" in ln for ln in lines)
    for name in ("summary.csv", "report.html", "plots/allgather.png"):
        assert (tmp_path / name).is_file(), name
    with open(tmp_path / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["algorithm"] for r in rows] == ["mpich", "ring", "bruck", "ring", "bruck", "ring"]
    assert [r["loss_scope"] for r in rows] == ["", "", "", "all", "all", "multicast"]
    assert rows[2]["flagged"] == "True" and rows[4]["status"] == "failed"
    assert float(rows[1]["per_floor"]) == 0.022 / (3 * 65536 * 8 / 100e6)
