"""One experiment run folder -> summary.csv, plots/*.png, summary.txt and report.html: a
broadcast run's (`BROADCAST`) here; a [multinode] run's: testbed.report.multinode; an
Allgather run's: testbed.report.allgather. Each implements the one report interface
(testbed.report.text_report.RunReport), and the table of experiment kinds
(testbed.experiments.kinds) holds each kind's; its `write_report` reads a folder
(`read_run`) and writes the report of the folder's kind.

A run is a few hundred JSON lines; what a person wants from it is who is fastest under which
condition, the shape behind that (plots, and the trees themselves) and which numbers to
distrust (flagged: the emulator could not keep up; failed: no number at all). So the report
leads with one table per message size, and everything lands in ONE self-contained HTML file
(PNG data URIs, inline CSS) that can be mailed or archived without its folder.

    from testbed.experiments.kinds import write_report
    print(write_report(Path("results/20260101-120000-loadsweep")))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..fidelity.link_rate import operating_point_text
from ..results import read_jsonl
from .findings import crossover, growth, loss_cost
from .html import report_html
from .plots import draw_plots
from .points import Point, point_of, varying_fields
from .repairs import repair_costs
from .tables import count_points, headline_tables, run_title, summary_text, write_csv
from .tails import tail_tables
from .text_report import Rec, RunReport

__all__ = ["BROADCAST", "RunReport", "read_run"]


def _read_config(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "config.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text() or "{}")
    return data if isinstance(data, dict) else {}


def rate_notes(config: Mapping[str, Any]) -> list[str]:
    """The link rate line: what the links ran at, and for `auto` why and the dilation."""
    r = config.get("link_rate")
    if not isinstance(r, dict) or r.get("mbit") is None:
        return []
    if not r.get("auto"):
        return [f"Host links at {r['mbit']:g} Mbit/s."]
    slower = (f"the nominal {r['nominal_mbit']:g} Mbit/s network runs {r['dilation']:.3g} "
              "times slower. Times as multiples of M/B (the message's own time on one link) "
              "carry over to other rates: see summary.csv.")
    op = config.get("operating_point")
    if isinstance(op, dict):
        return [f"Host links at {r['mbit']:g} Mbit/s for the whole sweep, chosen for this "
                f"spec's work by probing its heaviest points before it measured "
                f"({r.get('source')}): {operating_point_text(op)}. {slower[0].upper()}"
                f"{slower[1:]}"]
    return [f"Host links at {r['mbit']:g} Mbit/s, the highest rate this machine keeps up with "
            f"for this network ({r.get('source')}); {slower}"]


def timing_notes(config: Mapping[str, Any], points: list[Point]) -> list[str]:
    """Across servers: where the network ran, and which points are flow latencies."""
    cluster = config.get("cluster")
    if not isinstance(cluster, dict):
        return []
    servers = cluster.get("servers") or []
    flow = sum(p.rec.get("timing") == "flow" for p in points)
    return [f"The network spread over {len(servers)} servers ({', '.join(map(str, servers))}, "
            f"placement {cluster.get('placement')}, {cluster.get('tunnel')} tunnels). "
            f"{flow} of {len(points)} points had a broadcast's ranks on more than one server: "
            "they share no clock, so their latency is Nupairoj's flow latency (the mean of "
            "the repetitions), not the direct one; the rest are direct."]


def read_run(run_dir: Path) -> tuple[dict[str, Any], list[Rec], str]:
    """A results folder's config.json (empty if it has none), records and title."""
    config = _read_config(run_dir)
    records = [r for r in read_jsonl(run_dir / "records.jsonl") if isinstance(r, dict)]
    return config, records, run_title(config, run_dir)


class BroadcastReport:
    """A broadcast run's report (a RunReport): one table per message size, findings, tails,
    the plots and the trees, in one self-contained HTML page."""

    def write(self, run_dir: Path, config: Mapping[str, Any], recs: Sequence[Rec],
              title: str) -> str:
        """Write summary.csv, plots/*.png, summary.txt and report.html into `run_dir`;
        return the text of summary.txt (the headline)."""
        points = [point_of(r) for r in recs]
        report = run_dir / "report.html"
        counts = count_points(points, config)
        # no finish time and points missing: the run stopped early (or is still going)
        unfinished = bool(config.get("started")) and not config.get("finished") and \
            (counts.planned is None or counts.measured < counts.planned)
        varying = varying_fields(p.cond for p in points)
        tables = headline_tables(points, varying)
        write_csv(run_dir / "summary.csv", points)
        plots = draw_plots(run_dir / "plots", points, varying, config)
        findings = growth(points) + crossover(points) + loss_cost(points) + \
            repair_costs(points)
        notes = rate_notes(config) + timing_notes(config, points)
        tails = tail_tables(points, varying)
        text = summary_text(title, run_dir, points, tables, counts, report, unfinished,
                            notes, findings, tails.text())
        (run_dir / "summary.txt").write_text(text)
        report.write_text(report_html(title, run_dir, config, points, tables, plots, counts,
                                      varying, unfinished, notes, findings, tails))
        return text


BROADCAST: RunReport = BroadcastReport()

