"""testbed.report.tails: which points show a tail, the percentiles a record states or lacks,
the lowest unflagged value marked only where every unflagged row states it, why a
percentile is not stated said once; and the tail in a written report (broadcast and
Allgather runs, synthetic folders)."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest

from collectives.stats import summarize, tails
from testbed.experiments.kinds import write_report
from testbed.report.tails import (
    UNSTATED,
    lacks,
    lowest,
    of,
    shows,
    text_row,
    values,
    why_unstated,
)


def _samples(n: int, seed: int = 0, scale: float = 1e-3) -> list[float]:
    rng = random.Random(seed)
    return [scale * (1 + rng.expovariate(4.0)) for _ in range(n)]


def test_which_points_show_a_tail() -> None:
    assert shows({"loss": 0.001, "repetitions": 10})  # under loss, whatever it asked
    assert shows({"loss": 0.0, "repetitions": 100})  # asked enough for p99
    assert not shows({"loss": 0.0, "repetitions": 99})
    assert not shows({})


def test_a_record_states_its_tails_or_they_are_computed_from_its_samples() -> None:
    xs = _samples(20)
    assert of({"tails_s": tails(xs)}) == tails(xs)
    assert of({"samples_s": xs}) == tails(xs)  # a record written before records had tails
    assert of({"samples_s": []}) is None and of({"tails_s": None}) is None
    assert lacks(tails(xs), "p99.9") == "p99.9: needs 1000 samples, has 20"


def test_the_lowest_of_a_column_is_of_unflagged_rows_that_all_state_it() -> None:
    rows = [([1.0, 2.0, None, None], False), ([0.5, 3.0, 4.0, None], True),
            ([1.5, 1.8, 5.0, 9.0], False)]
    # the flagged row's 0.5 is no result; p99: one unflagged row does not state it
    assert lowest(rows) == [1.0, 1.8, None, None]
    assert lowest([]) == [None, None, None, None]


def test_a_row_of_text() -> None:
    t = tails([0.001 * x for x in range(1, 21)])
    assert text_row(t) == ["20", "10.5", "18.1", UNSTATED, UNSTATED]
    best = [values(t)[0], 1.0, None, None]  # its p50 the lowest, its p90 not
    assert text_row(t, best) == ["20", "10.5*", "18.1", UNSTATED, UNSTATED]
    assert text_row(t, best, flagged=True) == \
        ["20", "10.5!", "18.1!", UNSTATED, UNSTATED]
    assert text_row(None) == ["-"] * 5


def test_why_said_once_with_the_budget_that_ran_out() -> None:
    recs = [{"samples_s": _samples(n), "config": {"repetitions": 1000, "budget_s": 30.0}}
            for n in (20, 143, 1000)]
    lines = why_unstated(recs)
    assert len(lines) == 2
    assert "n(1-q) >= 1" in lines[0]
    assert "p50 2, p90 10, p99 100, p99.9 1000" in lines[0]
    assert "2 points had too few for some (20-143 samples)" in lines[0]
    assert lines[1] == ("2 points measured fewer broadcasts than asked (20-143 of 1000): "
                        "their budget of 30 s ran out.")
    assert why_unstated(recs[2:]) == []  # every percentile stated: nothing to say


# ---- in a broadcast run's report ------------------------------------------------------------
def _config(alg: str, loss: float, reps: int) -> dict[str, Any]:
    return {"algorithm": alg, "size": 1024, "hosts": 8, "traffic": "none", "pattern": None,
            "load": None, "loss": loss, "loss_scope": "all", "fault": "none", "groups": 1,
            "interval_s": 0.0, "topology": "star", "mode": "igmp", "repetitions": reps,
            "budget_s": 30.0}


def _rec(i: int, alg: str, loss: float, xs: list[float], *, reps: int = 1000,
         flags: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"index": i, "key": f"k{i}", "config": _config(alg, loss, reps), "status": "ok",
            "error": None, "t_mcast_s": summarize(xs), "samples_s": xs, "tails_s": tails(xs),
            "verified": True, "fidelity": {"ok": not flags, "flags": list(flags)}}


def _write(tmp_path: Path, recs: list[dict[str, Any]], **spec: Any) -> str:
    (tmp_path / "config.json").write_text(json.dumps(
        {"spec_name": "lt", "points": len(recs), "spec": {"name": "lt", **spec}}))
    (tmp_path / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return write_report(tmp_path)


@pytest.fixture(autouse=True)
def _png_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCASTLAB_FIGURE_FORMATS", "png")


def _block(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    at = lines.index(title)
    return lines[at: lines.index("", at)]


def test_the_tail_of_a_loss_sweep(tmp_path: Path) -> None:
    slow = [x * 3 for x in _samples(1000, 2)]
    recs = [_rec(0, "binomial", 0.0, _samples(1000, 1)), _rec(1, "nack", 0.0, _samples(1000, 2)),
            _rec(2, "binomial", 0.01, [x * 2 for x in _samples(20, 3)]),  # budget ran out
            _rec(3, "nack", 0.01, _samples(1000, 4)),
            _rec(4, "two-stage", 0.01, [x / 10 for x in _samples(1000, 5)],
                 flags=("hosts waited for a core 300% of a frame time",)),
            _rec(5, "scout-linear", 0.01, slow)]
    text = _write(tmp_path, recs)
    quiet = _block(text, "1 KiB on 8 hosts, quiet (ms)")
    assert quiet[1].split() == ["algorithm", "samples", "p50", "p90", "p99", "p99.9"]
    lossy = _block(text, "1 KiB on 8 hosts, loss 1% of every packet (ms)")
    algs = ("binomial", "two-stage", "nack", "scout-linear")
    rows = {ln.split()[0]: ln.split()[1:] for ln in lossy[3:] if ln.split()[0] in algs}
    assert list(rows) == list(algs)
    assert rows["binomial"][0] == "20" and rows["binomial"][3:] == [UNSTATED, UNSTATED]
    # the flagged two-stage is lowest everywhere, yet marked nowhere, nor named lowest
    assert all(c.endswith("!") and "*" not in c for c in rows["two-stage"][1:])
    # p99 and p99.9: binomial states neither, so neither is marked for anyone
    assert not any("*" in c for r in rows.values() for c in r[3:])
    assert rows["nack"][1].endswith("*") and rows["scout-linear"][1][-1].isdigit()
    assert next(ln for ln in lossy if ln.startswith("lowest")).startswith("lowest: p90 nack ")
    # why, once, under the tables: the rule and the budget
    assert text.count("A sample of n states the q-quantile only where n(1-q) >= 1") == 1
    assert "1 point had too few for some (20 samples)" in text
    assert "1 point measured fewer broadcasts than asked (20 of 1000): their budget of 30 s " \
           "ran out." in text
    html = (tmp_path / "report.html").read_text()
    assert "<h2>The tail</h2>" in html and "p99.9: needs 1000 samples, has 20" in html
    with open(tmp_path / "summary.csv") as f:
        csv_rows = {r["index"]: r for r in csv.DictReader(f)}
    assert float(csv_rows["3"]["p99.9_ms"]) == pytest.approx(recs[3]["tails_s"]["p99.9"] * 1e3)
    assert csv_rows["2"]["p99_ms"] == csv_rows["2"]["p99.9_ms"] == ""  # 20 samples: unstated


def test_no_tail_without_loss_or_enough_repetitions(tmp_path: Path) -> None:
    text = _write(tmp_path, [_rec(0, "binomial", 0.0, _samples(10), reps=10),
                             _rec(1, "nack", 0.0, _samples(10, 1), reps=10)])
    assert "The tail" not in text
    assert "The tail" not in (tmp_path / "report.html").read_text()


# ---- in an Allgather run's report ------------------------------------------------------------
def _allgather_rec(i: int, alg: str, loss: float, xs: list[float],
                   flags: tuple[str, ...] = ()) -> dict[str, Any]:
    t = summarize(xs)
    return {"index": i, "key": f"k{i}", "status": "ok", "error": None,
            "config": {"collective": "allgather", "algorithm": alg, "size": 1024, "hosts": 4,
                       "loss": loss, "repetitions": 20},
            "t_s": t, "floor_s": 1e-3, "per_floor": t["median"] / 1e-3, "predicted_s": None,
            "verified": True, "samples_s": xs, "tails_s": tails(xs),
            "fidelity": {"ok": not flags, "flags": list(flags)}}


def test_the_tail_of_an_allgather_run(tmp_path: Path) -> None:
    recs = [_allgather_rec(0, "ring", 0.0, _samples(20)),
            _allgather_rec(1, "ring", 0.001, _samples(20, 1)),
            _allgather_rec(2, "mcast-concurrent", 0.001, _samples(20, 2), flags=("hosts",))]
    text = _write(tmp_path, recs, collective="allgather", repetitions=20)
    lines = text.splitlines()
    heads = [i for i, ln in enumerate(lines) if ln == "its tail (ms; n/s: below)"]
    assert len(heads) == 1  # the lossy condition's table only: 20 repetitions ask no tail
    title = next(ln for ln in reversed(lines[:heads[0]]) if ln.startswith("1 KiB blocks"))
    assert title.startswith("1 KiB blocks, 4 ranks, loss 0.1%")  # not "loss 0%"
    ring = next(ln for ln in lines[heads[0]:] if ln.strip().startswith("ring"))
    assert ring.split()[1:] == ["20", *ring.split()[2:4], UNSTATED, UNSTATED]
    assert ring.split()[2].endswith("*")  # the flagged mcast-concurrent is not the lowest
    assert "2 points had too few for some" in text
    assert text.count("n(1-q) >= 1") == 1
