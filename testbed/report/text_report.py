"""The report interface, written once: `RunReport` is what the table of experiment kinds
(testbed.experiments.kinds) holds of each kind's report (a broadcast run's:
testbed.report.BROADCAST); `TableReport` is the one implementation of it that the kinds
whose points are not broadcasts (a [multinode] run's, testbed.report.multinode; an
Allgather run's, testbed.report.allgather) fill with their own CSV row, figure and tables.
Besides, what those reports share: a record's configuration and verdict, the run's topology
and figure caption, the CSV, the counts line and the four files."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..safepath import make_folder
from .figures import Figure, caption_line, rate_text, save_figure
from .html import text_page

Rec = dict[str, Any]
Config = Mapping[str, Any]
VERDICT = ("flagged", "flags", "error")  # the last columns of every row of summary.csv


class RunReport(Protocol):
    """A kind's report: a results folder's summary.csv, plots/, summary.txt and report.html
    written from its config.json (`config`), records and title; returns summary.txt."""

    def write(self, run_dir: Path, config: Config, recs: Sequence[Rec], title: str) -> str:
        ...


def rec_config(r: Rec) -> Rec:
    return r.get("config") or {}


def flags(r: Rec) -> list[str]:
    return list((r.get("fidelity") or {}).get("flags") or [])


def flagged(r: Rec) -> bool:
    """The fidelity monitor judged the point: the emulator did not keep up (no result)."""
    return (r.get("fidelity") or {}).get("ok") is False or bool(flags(r))


def fidelity_text(r: Rec) -> str:
    """Its flags, "kept up", or "-" for a point never judged (it failed first)."""
    return "; ".join(flags(r)) or ("kept up" if r.get("fidelity") else "-")


def topology_name(config: Mapping[str, Any], default: str = "?") -> str:
    topo = config.get("topology")
    return str(topo.get("name")) if isinstance(topo, dict) and topo.get("name") else default


def run_caption(config: Mapping[str, Any], default_topology: str = "?") -> str:
    """The caption line on the run's figure (testbed.report.figures.caption_line)."""
    spec = config.get("spec") or {}
    return caption_line(topology=topology_name(config, default_topology),
                        rate=rate_text(config.get("link_rate")),
                        repetitions=f"{spec.get('repetitions', 10)} repetitions per point",
                        date=str(config.get("started") or "") or None,
                        versions=config.get("versions"))


def save_run_figure(plt: Any, fig: Any, path: Path, config: Mapping[str, Any], what: str,
                    default_topology: str = "?") -> Figure:
    """`fig` saved as `path` (and SVG, PDF) with the run's caption; `what` says what it
    shows, before the caption, in the report."""
    caption = run_caption(config, default_topology)
    make_folder("results folder", path.parent)
    save_figure(plt, fig, path, caption)
    return Figure(path, f"{what} {caption}")


def write_csv(path: Path, fields: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(fields)
        w.writerows(rows)


def by_index(recs: Sequence[Rec]) -> list[Rec]:
    return sorted(recs, key=lambda r: r.get("index") or 0)


def ok_status(r: Rec) -> bool:
    """The point was measured (its status "ok")."""
    return r.get("status") == "ok"


def counts_line(config: Config, recs: Sequence[Rec], ok: Callable[[Rec], bool]) -> str:
    """How many of the planned points were measured, failed (not `ok`) and flagged."""
    planned = config.get("points")
    return (f"{len(recs)} of {planned if planned is not None else '?'} points measured, "
            f"{sum(not ok(r) for r in recs)} failed, {sum(flagged(r) for r in recs)} flagged "
            "(the emulator did not keep up: not a result).")


@dataclass(frozen=True)
class TableReport:
    """A RunReport of a kind's own parts: a row of summary.csv per record (`csv_fields`,
    `csv_row`; every row then ends in the record's verdict, VERDICT), one figure (`plot`)
    and summary.txt: the title, what was measured (`head`), how many points were measured,
    failed (not `ok`) and flagged (then `legend`), the kind's tables (`body`) and where the
    report is. report.html shows the summary and the figure."""

    csv_fields: tuple[str, ...]
    csv_row: Callable[[Rec], list[Any]]
    plot: Callable[[Path, Config, Sequence[Rec]], Figure | None]
    head: Callable[[Config, Sequence[Rec]], list[str]]
    body: Callable[[Sequence[Rec]], list[str]]
    ok: Callable[[Rec], bool] = ok_status
    legend: str = ""

    def summary(self, title: str, run_dir: Path, config: Config, recs: Sequence[Rec]) -> str:
        lines = [f"{title} ({run_dir.name})", *self.head(config, recs),
                 counts_line(config, recs, self.ok) + self.legend, *self.body(recs),
                 "", f"report: {run_dir / 'report.html'}"]
        return "\n".join(lines) + "\n"

    def row(self, r: Rec) -> list[Any]:
        return [*self.csv_row(r), flagged(r), "; ".join(flags(r)), r.get("error")]

    def write(self, run_dir: Path, config: Config, recs: Sequence[Rec], title: str) -> str:
        return write_files(run_dir, title, (*self.csv_fields, *VERDICT),
                           map(self.row, by_index(recs)),
                           lambda plots: self.plot(plots, config, recs),
                           self.summary(title, run_dir, config, recs))


def write_files(run_dir: Path, title: str, csv_fields: Sequence[str],
                csv_rows: Iterable[Sequence[Any]], figure: Callable[[Path], Figure | None],
                summary: str) -> str:
    """summary.csv, the figure (plots/), summary.txt and report.html; returns the summary."""
    write_csv(run_dir / "summary.csv", csv_fields, csv_rows)
    fig = figure(run_dir / "plots")
    (run_dir / "summary.txt").write_text(summary)
    (run_dir / "report.html").write_text(text_page(title, summary, fig))
    return summary
