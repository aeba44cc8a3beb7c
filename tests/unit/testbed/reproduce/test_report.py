"""testbed.reproduce.report: a run writes JSON, markdown and HTML, and the report names a
difference's kind and draws each interval."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testbed.reproduce.all_claims import CLAIMS
from testbed.reproduce.run import run
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    REPRODUCED,
    UNDECIDED,
    VERDICTS,
)


def test_a_run_writes_json_markdown_and_html(tmp_path: Path) -> None:
    doc = run(tmp_path, only=["nupairoj.table-4.3", "nupairoj.mesh-6x6"],
              progress=lambda _m: None, command="mcastlab reproduce --only ...")
    got = json.loads((tmp_path / "reproduce.json").read_text())
    assert got == json.loads(json.dumps(doc))
    assert {"schema", "command", "quick", "only", "started", "machine", "networks",
            "claims", "seconds", "summary"} <= got.keys()
    assert [c["key"] for c in got["claims"]] == [c.key for c in CLAIMS]
    by = {c["key"]: c for c in got["claims"]}
    assert by["nupairoj.table-4.3"]["verdict"] == REPRODUCED
    assert by["nupairoj.table-4.3"]["paper_figure"]["values"]["t"][-1] == 135
    assert by["coll.table-1"]["verdict"] == "skipped"
    assert set(got["summary"]) == set(VERDICTS)
    assert got["summary"][REPRODUCED] == 2
    md = (tmp_path / "reproduce.md").read_text()
    assert "| nupairoj.mesh-6x6 | Nupairoj1998 | section 5.2 |" in md
    page = (tmp_path / "report.html").read_text()
    assert "id='nupairoj.mesh-6x6'" in page and "OPT-Mesh 130, U-Mesh 165" in page


def test_the_report_names_a_differences_kind_and_draws_each_interval(tmp_path: Path) -> None:
    from testbed.reproduce.report import write

    doc = run(tmp_path, only=["nupairoj.table-4.3"], progress=lambda _m: None)
    claim = doc["claims"][0] | {
        "key": "x.judged", "verdict": DIFFERS, "why_kind": EMULATOR, "why": "slow here",
        "testbed_figure": {"text": "t", "values": {"intervals": {
            "4 hosts": {"figure": 1.0, "interval": [0.9, 1.1], "margin": [1.05, None],
                        "verdict": UNDECIDED},
            "9 hosts": {"figure": 0.8, "interval": [0.7, 0.85], "margin": [1.05, None],
                        "verdict": DIFFERS}}}}}
    write(tmp_path / "out", {**doc, "claims": [claim]})
    md = (tmp_path / "out" / "reproduce.md").read_text()
    assert "| differs (the emulator cannot show it): slow here |" in md
    assert "<i>the emulator cannot show it</i>: slow here" in (
        tmp_path / "out" / "report.html").read_text()
    assert (tmp_path / "out" / "plots" / "x.judged.png").stat().st_size > 1000




def _measured_claim() -> dict:
    """A measured claim as reproduce.json holds it: two jobs of one point, one of another,
    a plot over named conditions (x the index into "categories")."""
    def pt(label: str, ms: float, p10: float, p90: float) -> dict:
        return {"label": label, "algorithm": "binomial", "size": 1024, "hosts": 8,
                "traffic": label.split(", ")[1], "iterations": 10, "ms": ms, "p10_ms": p10,
                "p90_ms": p90, "verified": True, "flags": [], "error": None, "tries": 1}

    points = [pt("binomial 1024 B on 8 hosts, traffic none", 2.0, 1.5, 2.5),
              pt("binomial 1024 B on 8 hosts, traffic none, take 2", 4.0, 3.0, 6.0),
              pt("binomial 1024 B on 8 hosts, traffic hot-1", 5.0, 4.0, 7.0)]
    points[2]["flags"] = ["switch waited"]
    return {"key": "x.cats", "paper": "Nupairoj1998", "where": "figure 6.10",
            "statement": "load hurts", "kind": "measured", "network": "star16",
            "paper_figure": {"text": "a 1 % hot spot has little impact",
                             "values": {"saturation_load": 0.095}, "marker": "R"},
            "testbed_figure": {"text": "t", "values": {"plot": {
                "xlabel": "background traffic", "categories": ["none", "hot-1"],
                "ylabel": "ms", "series": {"binomial": [(0, 3.0), (1, 5.0)]}}}},
            "verdict": DIFFERS, "why_kind": None, "why": "", "margin": "m",
            "points": points, "context": []}


def _doc(claim: dict) -> dict:
    rate = {"nominal_mbit": 100.0, "mbit": 20.0, "auto": True, "source": "calibration cache",
            "dilation": 5.0}
    return {"schema": 1, "command": "mcastlab reproduce", "quick": False, "only": [],
            "started": "2026-01-01 12:00", "seconds": 1.0,
            "machine": {"machine": "vm", "cpus": "2", "cpu_model": "x", "kernel": "6",
                        "commit": "0123456789abcdef", "dirty": True},
            "networks": {"star16": {"topology": "star:hosts=16", "rate": "20 Mbit/s",
                                    "link_rate": rate}},
            "claims": [claim], "summary": {v: 0 for v in VERDICTS}}


@pytest.mark.every_figure_format  # reads the SVG or the PDF
def test_a_categorical_axis_is_named_after_its_conditions(tmp_path: Path) -> None:
    import matplotlib.pyplot as plt  # the figure is read back before it is saved

    from testbed.reproduce import report

    captured = {}
    real = report.save_figure

    def keep(plt_: object, fig: object, path: Path, caption: str | None = None) -> list:
        captured["fig"], captured["caption"] = fig, caption
        ax = fig.axes[0]  # type: ignore[attr-defined]
        captured["ticks"] = [t.get_text() for t in ax.get_xticklabels()]
        captured["errorbars"] = len(ax.containers)
        captured["titles"] = [a.get_title() for a in fig.axes]  # type: ignore[attr-defined]
        return real(plt_, fig, path, caption)

    report.save_figure = keep  # type: ignore[assignment]
    try:
        report.write(tmp_path, _doc(_measured_claim()))
    finally:
        report.save_figure = real  # type: ignore[assignment]
    plt.close("all")
    assert captured["ticks"] == ["none", "hot-1"]
    assert captured["errorbars"] == 1  # the medians' p10-p90 whiskers
    assert captured["titles"][-1].startswith("the paper's figure (Nupairoj1998")
    assert captured["caption"] == (
        "topology star:hosts=16 | 20 Mbit/s, x5 dilation of 100 Mbit/s (auto: calibration "
        "cache) | 1-2 job(s) per point, 10 iterations per job | 2026-01-01 12:00 | "
        "commit 0123456789+dirty")
    for ext in ("png", "svg", "pdf"):
        assert (tmp_path / "plots" / f"x.cats.{ext}").stat().st_size > 1000
    assert "commit 0123456789+dirty" in (tmp_path / "plots" / "x.cats.svg").read_text()


def test_a_series_median_takes_the_p10_p90_of_its_jobs() -> None:
    from testbed.reproduce.report import categories

    claim = _measured_claim()
    spec = claim["testbed_figure"]["values"]["plot"]
    assert categories(spec) == ["none", "hot-1"]
    assert categories({"series": {"a": [("root last", 1.0), ("root first", 0.5)]}}) == [
        "root last", "root first"]
    assert categories({"series": {"a": [(2, 1.0), (4, 0.5)]}}) is None


def test_reproduce_csv_has_a_row_per_measured_point(tmp_path: Path) -> None:
    import csv

    from testbed.reproduce.report import CSV_FIELDS, write_csv

    write_csv(tmp_path / "reproduce.csv", _doc(_measured_claim()))
    with (tmp_path / "reproduce.csv").open() as f:
        reader = csv.DictReader(f)
        rows = list(reader)
    assert tuple(reader.fieldnames or ()) == CSV_FIELDS
    assert CSV_FIELDS[:5] == ("claim", "verdict", "network", "role", "label")
    assert [r["label"] for r in rows] == [p["label"] for p in _measured_claim()["points"]]
    assert (rows[1]["claim"], rows[1]["ms"], rows[1]["p10_ms"], rows[1]["p90_ms"],
            rows[1]["verified"], rows[1]["role"], rows[1]["iterations"]) == (
        "x.cats", "4.0", "3.0", "6.0", "True", "judged", "10")
    assert rows[2]["flags"] == "switch waited" and rows[0]["flags"] == ""


def test_the_paper_is_drawn_beside_the_testbed_where_both_hold_a_number() -> None:
    from testbed.reproduce.report import paper_beside

    claim = {"paper_figure": {"values": {"S1 sequential": 19631, "S1 binomial": 21669,
                                         "fig 6.4 no contention": 3, "verdict": "best"}},
             "testbed_figure": {"values": {"us": {"S1 sequential": 19600.0},
                                           "fig_6_4": {"no contention": 4.0},
                                           "plot": {"S1 binomial": 1}}}}
    assert paper_beside(claim) == [("S1 sequential", 19631.0, 19600.0),
                                   ("fig 6.4 no contention", 3.0, 4.0)]


@pytest.mark.every_figure_format  # reads the SVG or the PDF
def test_a_run_writes_reproduce_csv_and_every_format(tmp_path: Path) -> None:
    run(tmp_path, only=["nupairoj.table-4.1"], progress=lambda _m: None)
    assert (tmp_path / "reproduce.csv").read_text().startswith("claim,verdict,network,")
    doc = json.loads((tmp_path / "reproduce.json").read_text())
    assert {"commit", "dirty"} <= doc["machine"].keys()
    for ext in ("png", "svg", "pdf"):  # the paper's Table 4.1 beside the testbed's
        assert (tmp_path / "plots" / f"nupairoj.table-4.1.{ext}").is_file()


def test_every_claim_says_what_its_jobs_cost_and_every_row_its_commit(tmp_path):
    from testbed.reproduce.report import cost, markdown, write_csv

    pts = [{"label": "binomial 1024 B on 8 hosts" + (f", take {t + 1}" if t else ""),
            "ms": 1.0} for t in range(5)] + [{"label": "chain 1024 B on 8 hosts", "ms": 2.0}]
    claim = {"key": "k", "verdict": "reproduced", "seconds": 42.5, "points": pts}
    assert cost(claim) == "42.5 s: 2 point(s), 1-5 job(s) each"
    assert cost({"verdict": "reproduced", "seconds": 1.0, "points": []}) == "1 s"
    assert cost({"verdict": "skipped", "seconds": None}) == ""
    doc = {"machine": {"commit": "0123456789abcdef", "dirty": False}, "claims": [
        {**claim, "paper": "P", "where": "w", "paper_figure": {"text": "x"},
         "testbed_figure": {"text": "y"}, "why": "", "network": "star16", "context": []}],
           "started": "now", "command": "mcastlab reproduce", "seconds": 50, "quick": False,
           "summary": {"reproduced": 1}, "networks": {}}
    doc["machine"] |= {"machine": "vm", "cpus": "2", "cpu_model": "x", "kernel": "k"}
    assert "commit 0123456789" in markdown(doc) and "42.5 s: 2 point(s)" in markdown(doc)
    write_csv(tmp_path / "r.csv", doc)
    rows = (tmp_path / "r.csv").read_text().splitlines()
    assert len(rows) == 7 and all(r.endswith("commit 0123456789") for r in rows[1:])


# The report forks its plot workers; `mcastlab reproduce` never imports eventlet (it is the
# controller's, another process), but a unit-test worker that ran the controller's tests has,
# and eventlet warns about any fork after its import.
@pytest.mark.filterwarnings("ignore:Using fork\\(\\) is a bad idea:DeprecationWarning")
def test_the_plots_drawn_in_processes_of_their_own_are_those_drawn_in_turn(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After the networks the cores are the report's: the plots are drawn PLOT_WORKERS at a
    time in forked processes, the same pictures and page as one after the other."""
    from testbed.reproduce import report

    doc = run(tmp_path / "first", only=["nupairoj.table-4.3", "nupairoj.mesh-6x6"],
              progress=lambda _m: None)
    pages = []
    for workers in (2, 1):
        monkeypatch.setattr(report, "PLOT_WORKERS", workers)
        monkeypatch.setattr(report, "PLOTS_APART", 2)
        out = tmp_path / f"w{workers}"
        report.write(out, doc)
        pages.append((out / "report.html").read_text().replace(str(out), "OUT"))
        assert sorted(p.name for p in (out / "plots").glob("*.png")) == [
            "nupairoj.mesh-6x6.png", "nupairoj.table-4.3.png"]
    assert pages[0] == pages[1]
