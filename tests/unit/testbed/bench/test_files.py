"""testbed.bench.files: a suite's rows as NAME.csv (nested columns dotted, every table of the
result with its name), and the caption on its figure read off the result."""

from __future__ import annotations

import csv
from pathlib import Path

from testbed.bench.files import caption, write_csv

RES = {"date": "2026-01-01 12:00", "versions": {"commit": "abcdef0123456789", "dirty": False},
       "topology": "star:hosts=4,bw=100", "quick": True,
       "rows": [{"algorithm": "binomial", "size": 1024, "iterations": 10,
                 "t_mcast_s": {"median": 0.002, "p10": 0.001, "p90": 0.003}},
                {"algorithm": "nack", "size": 1024, "iterations": 20,
                 "t_mcast_s": {"median": 0.004, "p10": 0.003, "p90": 0.005}, "hosts": [1, 2]}],
       "more": {"loss": [{"algorithm": "nack", "loss": 0.1, "predicted_s": None}]}}


def test_every_table_becomes_rows_with_dotted_columns(tmp_path: Path) -> None:
    assert write_csv(RES, tmp_path / "s.csv")
    with (tmp_path / "s.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["table", "algorithm", "size", "iterations", "t_mcast_s.median",
                             "t_mcast_s.p10", "t_mcast_s.p90", "hosts", "loss", "predicted_s"]
    assert [r["table"] for r in rows] == ["rows", "rows", "more.loss"]
    assert rows[0]["t_mcast_s.p90"] == "0.003" and rows[1]["hosts"] == "[1, 2]"
    assert rows[2]["loss"] == "0.1" and rows[2]["predicted_s"] == "" and rows[2]["size"] == ""


def test_no_rows_no_file(tmp_path: Path) -> None:
    assert not write_csv({"date": "x", "versions": {"a": [{"b": 1}]}, "n": 3},
                         tmp_path / "s.csv")
    assert not (tmp_path / "s.csv").exists()


def test_the_caption_reads_topology_rate_repetitions_date_and_commit() -> None:
    assert caption(RES) == ("topology star:hosts=4,bw=100 | 100 Mbit/s | 10-20 repetitions "
                            "per point | 2026-01-01 12:00 | commit abcdef0123")
    rate = {"nominal_mbit": 100.0, "mbit": 25.0, "auto": True, "source": "calibrated now",
            "dilation": 4.0}
    assert "25 Mbit/s, x4 dilation of 100 Mbit/s" in caption({"link_rate": rate})
