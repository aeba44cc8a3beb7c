"""testbed.report.allgather: an Allgather run's folder written from its records (no
network): the tables per condition and block size with the floor multiple, the fastest
unflagged algorithm marked, failed and flagged rows said, the CSV and the figure."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from testbed.experiments.kinds import write_report
from testbed.report import allgather


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


def test_an_allgather_runs_summary_says_its_operating_point(tmp_path: Path) -> None:
    """A bw=auto run's sweep ran at the operating point of its work
    (testbed.experiments.operating_point): the summary says the rate and what set it."""
    def config(source: str, op: dict | None = None) -> dict:
        return {"link_rate": {"nominal_mbit": 100.0, "mbit": 10, "auto": True,
                              "source": source, "dilation": 10.0},
                "topology": {"name": "star-4"}, **({"operating_point": op} if op else {})}

    setter = {"text": "mcast-concurrent 16 KiB, 4 hosts, loss 5% of every packet", "mbit": 20,
              "why": "hosts waited for a core 187% of a frame time each turn (limit 150%)"}
    op = {"calibrated_mbit": 50.0, "mbit": 10, "keeps_up": True, "points": [setter],
          "set_by": [setter], "still_failing": [], "cached": False}
    text = allgather.REPORT.summary("ag", tmp_path, config("work probe", op), [])
    assert "The whole sweep ran at the operating point 10 Mbit/s, below the calibrated 50: " \
        "the heaviest points keep up there, not at 20 Mbit/s (mcast-concurrent 16 KiB" in text
    assert "operating point" not in allgather.REPORT.summary("ag", tmp_path,
                                                             config("calibration cache"), [])


def _tailed(i, algo, median, loss, scope=None, *, n=100, flags=()):
    """A record with `n` samples, all `median` but the two largest, 2 and 3 times it (its
    p99 2.01 times), and its tails, as allgather.point_record writes them."""
    from collectives.stats import summarize, tails

    xs = [median] * (n - 2) + [2 * median, 3 * median]
    rec = _rec(i, algo, median, loss=loss, scope=scope, flags=flags, size=1024)
    t = summarize(xs)
    return rec | {"t_s": t, "samples_s": xs, "tails_s": tails(xs)}


def test_an_allgather_runs_loss_side_by_side_per_scope(tmp_path: Path) -> None:
    """Per block size and scope: the medians, the p99 and each algorithm's median over its
    own without loss, a column per loss (the lossless one shared by both scopes); the
    fastest unflagged of a column marked *, a flagged point ! and in no ratio; the CSV
    carries p99 and p99.9 (empty where 100 samples cannot state it)."""
    recs = [_tailed(0, "mcast-concurrent", 0.010, 0.0), _tailed(1, "ring", 0.004, 0.0),
            _tailed(2, "mcast-concurrent", 0.012, 0.01, "multicast"),
            _tailed(3, "ring", 0.004, 0.01, "multicast"),
            _tailed(4, "mcast-concurrent", 0.020, 0.01, "all"),
            _tailed(5, "ring", 0.030, 0.01, "all", flags=["hosts waited for a core"])]
    config = {"points": 6, "spec": {"name": "ag", "collective": "allgather",
                                    "repetitions": 100},
              "topology": {"name": "star-4"}, "link_rate": {"mbit": 100.0}}
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    lines = write_report(tmp_path).splitlines()

    def table(title: str) -> list[list[str]]:
        at = lines.index(title)
        assert lines[at + 1].split() == ["algorithm", "quiet", "loss", "1%"]
        return [ln.split() for ln in lines[at + 3:at + 5]]

    every = "1 KiB blocks on 4 ranks, loss of every packet"
    assert table(f"{every} (median ms)") == [["ring", "4.00*", "30.0!"],
                                             ["mcast-concurrent", "10.0", "20.0*"]]
    assert table(f"{every} (p99 ms)") == [["ring", "8.04*", "60.3!"],
                                          ["mcast-concurrent", "20.1", "40.2*"]]
    assert table(f"{every} (median over its own without loss)") == [
        ["ring", "x1.00", "-"], ["mcast-concurrent", "x1.00", "x2.00"]]
    mcast = "1 KiB blocks on 4 ranks, loss of multicast datagrams"
    assert table(f"{mcast} (median ms)") == [["ring", "4.00*", "4.00*"],
                                             ["mcast-concurrent", "10.0", "12.0"]]
    assert table(f"{mcast} (median over its own without loss)")[1] == [
        "mcast-concurrent", "x1.00", "x1.20"]
    with open(tmp_path / "summary.csv") as f:
        rows = list(csv.DictReader(f))
    assert float(rows[0]["p99_ms"]) == recs[0]["tails_s"]["p99"] * 1e3
    assert rows[0]["p99.9_ms"] == ""


def test_a_run_without_loss_has_no_loss_tables() -> None:
    from testbed.report.allgather_loss import scope_tables

    assert scope_tables([_tailed(0, "ring", 0.004, 0.0)]) == []


def test_a_p99_that_20_samples_cannot_state_is_said_so_and_marks_none() -> None:
    from testbed.report.allgather_loss import scope_tables

    lines = "\n".join(scope_tables([_tailed(0, "ring", 0.004, 0.0, n=20),
                                     _tailed(1, "ring", 0.005, 0.05, "all", n=20),
                                     _tailed(2, "mpich", 0.006, 0.05, "all", n=200)])
                       ).splitlines()
    at = lines.index("1 KiB blocks on 4 ranks, loss of every packet (p99 ms)")
    assert [ln.split() for ln in lines[at + 3:at + 5]] == [["mpich", "-", "6.06"],
                                                            ["ring", "n/s", "n/s"]]
