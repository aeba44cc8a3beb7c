"""testbed.report: a run folder becomes summary.csv, plots, summary.txt and one HTML file.

Run folders are synthetic (tmp_path): 2 algorithms x 2 sizes x 2 conditions, one point
flagged by the fidelity check and one failed. Real matplotlib and networkx draw the PNGs.
"""

from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from testbed.experiments.kinds import write_report
from testbed.report import rate_notes
from testbed.report.figures import FORMATS_ENV
from testbed.report.plots import Plots, relative_growth
from testbed.report.points import point_of

ERROR = "rank 3 timed out after 30 s waiting for fragment 7"
FLAG = "cpu busy 97% > 90%"
# (algorithm, size, loss) -> median seconds; None = the failed point
MEDIANS: dict[tuple[str, int, float], float | None] = {
    ("binomial", 1024, 0.0): 0.00123,
    ("opt-tree", 1024, 0.0): 0.00101,
    ("binomial", 1024, 0.05): 0.0042,
    ("opt-tree", 1024, 0.05): 0.0051,
    ("binomial", 65536, 0.0): 0.0210,
    ("opt-tree", 65536, 0.0): 0.0188,  # flagged
    ("binomial", 65536, 0.05): 0.0355,
    ("opt-tree", 65536, 0.05): None,   # failed
}
FLAGGED = ("opt-tree", 65536, 0.0)


def _config(algorithm: str, size: int, loss: float, hosts: int = 8) -> dict[str, Any]:
    return {"algorithm": algorithm, "size": size, "hosts": hosts, "traffic": "none",
            "pattern": None, "load": None, "loss": loss, "loss_scope": "all", "fault": "none",
            "groups": 1, "interval_s": 0.0, "topology": "star", "mode": "igmp"}


def _record(index: int, cfg: dict[str, Any], median: float | None,
            flagged: bool = False) -> dict[str, Any]:
    failed = median is None
    fidelity = {"cpu_busy": 0.97 if flagged else 0.3, "flags": [FLAG] if flagged else [],
                "ok": not flagged,
                "links": [{"link": "s1-h1", "configured_mbit": 100.0, "expected_mbit": 40.0,
                           "achieved_mbit": 12.5 if flagged else 39.0,
                           "ratio": 0.31 if flagged else 0.98}]}
    return {
        "index": index, "key": f"k{index}", "config": cfg,
        "status": "failed" if failed else "ok", "error": ERROR if failed else None,
        "t_mcast_s": None if failed else {"median": median, "p10": median * 0.9,
                                          "p90": median * 1.2, "min": median * 0.8,
                                          "max": median * 1.5},
        "samples_s": [] if failed else [median] * 5,
        "predicted_s": None if failed else median * 0.8, "verified": None if failed else True,
        "per_group": None, "traffic": None, "fidelity": fidelity, "datagrams": None,
        "cpu": None, "run": {"spec": "sweep", "versions": {}}}


def _run_dir(tmp_path: Path, records: list[dict[str, Any]], **config: Any) -> Path:
    run = tmp_path / "20260101-120000-sweep"
    run.mkdir()
    base = {"spec_name": "sweep",
            "spec": {"name": "sweep", "description": "Trees against loss & <friends>"},
            "spec_file": "specs/sweep.toml", "versions": {"python": "3.12"},
            "topology": {"name": "star", "hosts": 8},
            "params": {"sizes": [1, 1024, 65536], "t_hold_s": [2e-5, 3e-5, 4e-4],
                       "t_end_s": [5e-5, 7e-5, 9e-4]},
            "started": "2026-01-01T12:00:00", "finished": "2026-01-01T12:30:00",
            "points": len(records), "capabilities": {}}
    (run / "config.json").write_text(json.dumps({**base, **config}))
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    return run


@pytest.fixture
def run(tmp_path: Path) -> Path:
    records = [_record(i, _config(*key), median, key == FLAGGED)
               for i, (key, median) in enumerate(MEDIANS.items())]
    return _run_dir(tmp_path, records)


@pytest.fixture
def without_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    """write_report without drawing, for the tests of `run`'s summary.csv and summary.txt:
    neither file is made from the plots, and `run`'s plots are drawn and checked by
    test_html_is_self_contained_and_lists_the_failure and test_plots_and_trees_are_written
    (drawing them again took two thirds of each of these two tests)."""
    import testbed.report

    monkeypatch.setattr(testbed.report, "draw_plots", lambda *_args: Plots())


def _table_rows(text: str, title: str) -> dict[str, list[str]]:
    """The rows (algorithm -> cells) of the text table under `title`."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(title))
    rows = {}
    for ln in lines[start + 3:]:
        if not ln.strip() or ln.startswith("fastest"):
            break
        alg, *cells = ln.split()
        rows[alg] = cells
    return rows


# ---- summary.csv ------------------------------------------------------------------------
def test_csv_has_one_row_per_record_with_its_median(run: Path, without_plots: None) -> None:
    write_report(run)
    with (run / "summary.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(MEDIANS)
    for row, (key, median) in zip(rows, MEDIANS.items(), strict=True):
        assert (row["algorithm"], int(row["size"]), float(row["loss"])) == key
        if median is None:
            assert (row["status"], row["median_ms"], row["error"]) == ("failed", "", ERROR)
        else:
            assert float(row["median_ms"]) == pytest.approx(median * 1e3)
            assert float(row["p90_ms"]) == pytest.approx(median * 1.2e3)
            assert float(row["predicted_ms"]) == pytest.approx(median * 0.8e3)
        assert row["flagged"] == str(key == FLAGGED)
    assert {"hosts", "traffic", "fault", "interval_s", "mode", "cpu_busy",
            "accepted_load"} <= set(rows[0])


# ---- summary.txt ------------------------------------------------------------------------
def test_summary_marks_the_best_flagged_and_failed(run: Path, without_plots: None) -> None:
    text = write_report(run)
    assert (run / "summary.txt").read_text() == text
    small = _table_rows(text, "1 KiB on 8 hosts")
    assert small == {"binomial": ["1.23", "4.20*"], "opt-tree": ["1.01*", "5.10"]}
    big = _table_rows(text, "64 KiB on 8 hosts")
    # opt-tree's 18.8 ms is lower but flagged: no result, so binomial is the fastest
    assert big == {"binomial": ["21.0*", "35.5*"], "opt-tree": ["18.8!", "failed"]}
    assert "fastest: quiet: binomial 21.0 ms; loss 5%: binomial 35.5 ms" in text
    assert re.search(r"^algorithm +quiet +loss 5%$", text, re.M)
    assert f"flag: {FLAG}: 1 point" in text
    assert str(run / "report.html") in text
    assert "8 points measured of 8 planned: 7 ok, 1 failed, 1 flagged." in text


def test_summary_has_a_column_per_host_count_when_only_hosts_vary(tmp_path: Path) -> None:
    records = [_record(i, _config(alg, 1024, 0.0, hosts), ms * 1e-3)
               for i, (alg, hosts, ms) in enumerate((
                   ("binomial", 4, 4.0), ("binomial", 8, 8.0), ("binomial", 16, 16.0),
                   ("nack", 4, 5.0), ("nack", 8, 5.2), ("nack", 16, 5.5)))]
    run = _run_dir(tmp_path, records)
    text = write_report(run)
    assert re.search(r"^algorithm +4 hosts +8 hosts +16 hosts +T\(16\)/T\(4\)$", text, re.M)
    assert _table_rows(text, "1 KiB") == {"binomial": ["4.00*", "8.00", "16.0", "4.00"],
                                          "nack": ["5.00", "5.20*", "5.50*", "1.10"]}
    assert "nack 1 KiB: 5.00 ms on 4 hosts, 5.50 ms on 16 (flat, T(16)/T(4) = 1.10)" in text
    assert "binomial 1 KiB: 4.00 ms on 4 hosts, 16.0 ms on 16 (x4.0" in text
    assert "1 KiB: nack beats every point-to-point broadcast from 8 hosts (5.20 ms against " \
        "binomial 8.00 ms)" in text
    assert (run / "plots" / "latency-vs-hosts.png").exists()
    assert (run / "plots" / "growth-vs-hosts.png").exists()


def test_growth_is_relative_to_the_fewest_unflagged_hosts() -> None:
    recs = [_record(i, _config("binomial", 1024, 0.0, hosts), ms * 1e-3, flagged=flagged)
            for i, (hosts, ms, flagged) in enumerate(((2, 9.0, True), (4, 4.0, False),
                                                      (8, 6.0, False), (16, 8.0, True)))]
    pts = [point_of(r) for r in recs]
    # the flagged 2 hosts is no base and the flagged 16 no point: 4 hosts is the base
    assert relative_growth(pts, lambda q: q.median_ms) == [(4, 1.0), (8, 1.5)]
    # the model's growth (predicted 0.8 x the median here) from the same base
    assert relative_growth(pts, lambda q: q.predicted_ms) == [(4, 1.0), (8, pytest.approx(1.5))]
    assert relative_growth(pts[:2], lambda q: q.median_ms) == []  # one good point: no growth


def test_findings_never_rest_on_a_flagged_point(tmp_path: Path) -> None:
    records = [_record(i, _config(alg, 1024, 0.0, hosts), ms * 1e-3, flagged=flagged)
               for i, (alg, hosts, ms, flagged) in enumerate((
                   ("binomial", 4, 4.0, False), ("binomial", 16, 16.0, False),
                   ("nack", 4, 5.0, False), ("nack", 16, 5.5, True)))]
    text = write_report(_run_dir(tmp_path, records))
    # nack's 5.5 ms on 16 hosts is flagged: binomial's 16 ms is the fastest result there
    assert _table_rows(text, "1 KiB") == {"binomial": ["4.00*", "16.0*", "4.00"],
                                          "nack": ["5.00", "5.50!", "-"]}
    assert "nack 1 KiB" not in text  # its growth would need the flagged point
    assert "beats" not in text       # and so would the crossover at 16 hosts
    assert "1 KiB: no multicast broadcast beat the point-to-point ones up to 4 hosts" in text
    assert "Flagged points are not results" in text


# ---- report.html and plots --------------------------------------------------------------
def test_html_is_self_contained_and_lists_the_failure(run: Path) -> None:
    write_report(run)
    page = (run / "report.html").read_text()
    assert '<img src="data:image/png;base64,' in page
    assert not re.search(r"https?://", page)
    assert not re.search(r"""<(?:link|script)\b|src=["'](?!data:)""", page)
    assert ERROR in page
    assert "Trees against loss &amp; &lt;friends&gt;" in page
    assert 'title="median 18.8 ms' in page and html.escape(FLAG) in page
    assert 'class="best' in page
    assert "could not be drawn" not in page
    assert "the number is no result. What to do: fewer hosts, a lower link rate" in page


@pytest.mark.every_figure_format  # reads the SVG or the PDF
def test_plots_and_trees_are_written(run: Path) -> None:
    write_report(run)
    plots = run / "plots"
    for name in ("latency-vs-size", "condition-effect-1024", "condition-effect-65536",
                 "tree-binomial", "tree-opt-tree"):
        assert (plots / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert (plots / f"{name}.pdf").read_bytes()[:5] == b"%PDF-", name
        # the caption: topology, rate, date, commit (none recorded here), wrapped to the
        # figure's width (a narrow tree's on several lines)
        words = " ".join(re.findall(r">([^<>]+)</text>", (plots / f"{name}.svg").read_text()))
        for part in ("topology star |", "link rate not recorded", "2026-01-01T12:00:00",
                     "commit not recorded"):
            assert part in words, (name, part)
    assert not (plots / "latency-vs-hosts.png").exists()  # one communicator size only
    assert not (plots / "growth-vs-hosts.png").exists()
    assert not (plots / "latency-vs-load.png").exists()   # no traffic


def test_a_run_without_plots_says_so(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """$MCASTLAB_FIGURE_FORMATS=none: the report, its tables and CSV, without a plot or a
    tree (no plots folder), and a note in their place naming the setting."""
    monkeypatch.setenv(FORMATS_ENV, "none")
    write_report(run)
    assert not (run / "plots").exists()
    page = (run / "report.html").read_text()
    assert "No plots and no trees drawn: $MCASTLAB_FIGURE_FORMATS was none" in page
    assert "data:image/png" not in page
    assert len(list(csv.DictReader((run / "summary.csv").open()))) == len(MEDIANS)


def test_trees_for_every_kind_of_algorithm(tmp_path: Path) -> None:
    algs = ("mpich", "fragmented-chain", "scatter-allgather", "dyn-tree", "nack", "chain")
    run = _run_dir(tmp_path, [_record(i, _config(a, 65536, 0.0, 12), 0.01)
                              for i, a in enumerate(algs)], params=None)
    write_report(run)
    page = (run / "report.html").read_text()
    for a in algs[1:]:
        assert (run / "plots" / f"tree-{a}.png").exists(), a
    assert not (run / "plots" / "tree-mpich.png").exists()
    assert "mpich: not drawn" in page
    assert "t_hold = 1 and t_end = 3" in page  # dyn-tree without measured parameters
    assert "8 fragments of 8192 B" in page
    # a single message size: no size plot, the condition-effect bars carry the numbers
    assert not (run / "plots" / "latency-vs-size.png").exists()
    assert (run / "plots" / "condition-effect-65536.png").exists()


def test_load_plot_uses_accepted_load(tmp_path: Path) -> None:
    records = []
    for i, load in enumerate((None, 0.2, 0.5)):
        cfg = {**_config("binomial", 1024, 0.0), "load": load,
               "traffic": "none" if load is None else "uniform"}
        rec = _record(i, cfg, 0.001 * (1 + (load or 0)))
        if load:
            rec["traffic"] = {"pattern": "uniform", "load": load, "offered": load,
                              "accepted": load * 0.9, "generators": 4, "window_s": 1.0,
                              "hot_share": None}
        records.append(rec)
    run = _run_dir(tmp_path, records)
    text = write_report(run)
    assert (run / "plots" / "latency-vs-load.png").exists()
    assert "uniform (load 0.5)" in text
    with (run / "summary.csv").open() as f:
        assert [r["accepted_load"] for r in csv.DictReader(f)] == ["", "0.18", "0.45"]


# ---- sparse folders ---------------------------------------------------------------------
def test_empty_records_say_nothing_was_measured(tmp_path: Path) -> None:
    run = _run_dir(tmp_path, [], points=12, finished=None)
    text = write_report(run)
    assert "Nothing was measured" in text
    page = (run / "report.html").read_text()
    assert "Nothing was measured" in page and "12 planned" in page
    with (run / "summary.csv").open() as f:
        assert len(list(csv.reader(f))) == 1  # the header


def test_missing_records_and_config_files(tmp_path: Path) -> None:
    text = write_report(tmp_path)
    assert "Nothing was measured" in text
    assert (tmp_path / "report.html").exists()


def test_all_failed(tmp_path: Path) -> None:
    run = _run_dir(tmp_path, [_record(i, _config(a, 1024, 0.0), None)
                              for i, a in enumerate(("binomial", "nack"))])
    text = write_report(run)
    assert _table_rows(text, "1 KiB") == {"binomial": ["failed"], "nack": ["failed"]}
    assert "no point succeeded" in text
    page = (run / "report.html").read_text()
    assert page.count(ERROR) >= 2 and "could not be drawn" not in page
    assert (run / "plots" / "tree-nack.png").exists()


def test_sparse_records_with_missing_optional_fields(tmp_path: Path) -> None:
    bare = {"index": 0, "config": {"algorithm": "binomial", "size": 0, "hosts": 2},
            "status": "ok", "t_mcast_s": {"median": 1e-4}}
    odd = {"index": 1, "config": {"algorithm": "mystery", "size": 0, "hosts": 2},
           "status": "ok", "t_mcast_s": None, "fidelity": None, "traffic": None}
    run = tmp_path / "run"
    run.mkdir()
    (run / "records.jsonl").write_text(json.dumps(bare) + "\n" + json.dumps(odd) + "\n")
    text = write_report(run)
    assert _table_rows(text, "0 B") == {"binomial": ["0.1*"], "mystery": ["failed"]}
    page = (run / "report.html").read_text()
    assert "no latency recorded" in page and "could not be drawn" not in page


def test_flag_reasons_differing_in_their_percentage_are_merged() -> None:
    from types import SimpleNamespace

    from testbed.report.tables import flag_kinds

    def pt(*flags: str) -> SimpleNamespace:
        return SimpleNamespace(flagged=True, flags=flags)

    wait = "switch waited for a core {}% of its time (limit 75%)"
    points = [pt(wait.format(77)), pt(wait.format(82), "s14-eth1 carried 0.1 of 0.2 Mbit/s"),
              pt(wait.format(76)), SimpleNamespace(flagged=False, flags=())]
    points.append(pt("s2-eth1 carried 0.1 of 0.2 Mbit/s expected"))
    points.append(pt("5 of 8 loaded links carried less than 70% of their expected rate "
                     "(worst: s1-eth1 carried 0.0 of 0.2 Mbit/s expected)"))
    assert flag_kinds(points) == [  # type: ignore[arg-type]
        ("switch waited for a core 76-82% of its time (limit 75%)", 3),
        ("loaded links carried less than 70% of their expected rate", 2),
        ("s14-eth1 carried 0.1 of 0.2 Mbit/s", 1)]


def test_members_are_not_a_condition(tmp_path: Path) -> None:
    records = []
    for i, groups in enumerate((1, 2)):
        cfg = {**_config("binomial", 1024, 0.0), "groups": groups,
               "members": [["h0", "h1"], ["h2", "h3"]][:groups]}
        records.append(_record(i, cfg, 0.001 * groups))
    text = write_report(_run_dir(tmp_path, records))
    table = text.split("report:")[0]  # the folder's name holds the test's name
    assert "members" not in table and "quiet, 2 groups" in table


def test_the_send_order_is_not_a_condition(tmp_path: Path) -> None:
    """A tree's point records its send order, a multicast's None: one condition still, and
    the fastest is marked across them (the default experiment's headline)."""
    records = [_record(0, {**_config("binomial", 65536, 0.0), "send_order": "fifo"}, 0.076),
               _record(1, {**_config("nack", 65536, 0.0), "send_order": None}, 0.023)]
    text = write_report(_run_dir(tmp_path, records))
    table = text.split("report:")[0]
    assert "send_order" not in table, table
    assert "fastest: quiet: nack 23.0 ms" in table, table


# ---- loss scopes ------------------------------------------------------------------------
# (algorithm, loss, scope) -> median ms: a sweep of both scopes (sweep.loss_scope), whose
# points without loss have none; binomial rides on TCP, untouched by multicast-only loss
SCOPED = {("binomial", 0.0, None): 12.0, ("nack", 0.0, None): 9.0,
          ("binomial", 0.05, "multicast"): 12.1, ("nack", 0.05, "multicast"): 14.0,
          ("binomial", 0.05, "all"): 30.0, ("nack", 0.05, "all"): 20.0}


def test_each_scope_has_its_table_and_is_named_everywhere(tmp_path: Path,
                                                           without_plots: None) -> None:
    records = [_record(i, {**_config(alg, 65536, loss), "loss_scope": scope}, ms * 1e-3)
               for i, ((alg, loss, scope), ms) in enumerate(SCOPED.items())]
    run = _run_dir(tmp_path, records)
    text = write_report(run)
    # one table a scope, the points without loss the reference in each
    assert _table_rows(text, "64 KiB on 8 hosts, loss of every packet") == {
        "binomial": ["12.0", "30.0"], "nack": ["9.00*", "20.0*"]}
    assert _table_rows(text, "64 KiB on 8 hosts, loss of multicast datagrams") == {
        "binomial": ["12.0", "12.1*"], "nack": ["9.00*", "14.0"]}
    assert len(re.findall(r"^algorithm +quiet +loss 5%$", text, re.M)) == 2
    # the findings: the crossover per condition, and what the loss costs under each scope
    assert "64 KiB (loss 5% of multicast datagrams): no multicast broadcast beat" in text
    assert "64 KiB (loss 5% of every packet): nack beats every point-to-point" in text
    assert ("64 KiB, loss 5%: of every packet binomial x2.50, nack x2.22; of multicast "
            "datagrams binomial x1.01, nack x1.56") in text
    with (run / "summary.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["condition"], r["loss_scope"]) for r in rows[::2]] == [
        ("quiet", ""), ("loss 5% of multicast datagrams", "multicast"),
        ("loss 5% of every packet", "all")]
    page = (run / "report.html").read_text()
    assert "64 KiB on 8 hosts, loss of every packet" in page
    assert "conditions quiet, loss 5% of every packet, loss 5% of multicast datagrams" in page


# ---- the link-rate note: a given rate, a calibrated one, the operating point of the work --
SETTER = {"algorithm": "two-stage", "size": 1048576, "hosts": 8, "groups": 1, "loss": 0.3,
          "scope": "multicast", "traffic": "none", "interval_s": 0.0, "mbit": 10,
          "text": "two-stage 1 MiB, 8 hosts, loss 30% of multicast datagrams",
          "why": "hosts waited for a core 115% of a frame time each turn"}


def rate_config(mbit: float, source: str, op: dict[str, Any] | None = None) -> dict[str, Any]:
    rate = {"nominal_mbit": 100.0, "mbit": mbit, "auto": True, "source": source,
            "dilation": 100.0 / mbit}
    return {"link_rate": rate, "topology": {"name": "star-8"}, "spec": {"repetitions": 5},
            **({"operating_point": op} if op else {})}


def operating_point(**over: Any) -> dict[str, Any]:
    return {"calibrated_mbit": 50.0, "mbit": 5, "keeps_up": True, "points": [SETTER],
            "set_by": [SETTER], "still_failing": [], "rungs": [], "probe_s": 61.8,
            "cached": False} | over


def test_given_and_calibrated_rates_are_said_as_before() -> None:
    assert rate_notes({"link_rate": {"mbit": 20.0, "auto": False}}) == \
        ["Host links at 20 Mbit/s."]
    note, = rate_notes(rate_config(50.0, "calibration cache"))
    assert note.startswith("Host links at 50 Mbit/s, the highest rate this machine keeps up "
                           "with for this network (calibration cache); the nominal 100")


def test_the_operating_point_names_the_rate_and_the_point_that_set_it() -> None:
    note, = rate_notes(rate_config(5, "work probe", operating_point()))
    assert note.startswith("Host links at 5 Mbit/s for the whole sweep, chosen for this "
                           "spec's work by probing its heaviest points before it measured "
                           "(work probe): operating point 5 Mbit/s, below the calibrated 50")
    assert "not at 10 Mbit/s (two-stage 1 MiB, 8 hosts, loss 30% of multicast datagrams: " \
        "hosts waited" in note
    assert "The nominal 100 Mbit/s network runs 20 times slower" in note
    cached, = rate_notes(rate_config(5, "work probe cache", operating_point(cached=True)))
    assert "(from the cache of an earlier probe)" in cached
    stands, = rate_notes(rate_config(50, "work probe", operating_point(mbit=50, set_by=[])))
    assert "operating point 50 Mbit/s, the calibrated rate: the sweep's 1 heaviest point(s) " \
        "keep up there" in stands
    short, = rate_notes(rate_config(5, "work probe", operating_point(
        keeps_up=False, set_by=[], still_failing=[SETTER | {"mbit": 5}])))
    assert "the lowest rung: even there these heaviest points do not keep up, and their " \
        "points carry flags: two-stage 1 MiB" in short
