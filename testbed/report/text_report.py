"""What the reports of runs whose points are not broadcasts share (a [multinode] run's,
testbed.report.multinode; an Allgather run's, testbed.report.allgather): a record's
configuration and verdict, the run's topology and figure caption, the CSV, and the four
files written from the kind's own table, figure and summary."""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..safepath import make_folder
from .figures import Figure, caption_line, rate_text, save_figure
from .html import text_page

Rec = dict[str, Any]


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


def write_files(run_dir: Path, title: str, csv_fields: Sequence[str],
                csv_rows: Iterable[Sequence[Any]], figure: Callable[[Path], Figure | None],
                summary: str) -> str:
    """summary.csv, the figure (plots/), summary.txt and report.html; returns the summary."""
    write_csv(run_dir / "summary.csv", csv_fields, csv_rows)
    fig = figure(run_dir / "plots")
    (run_dir / "summary.txt").write_text(summary)
    (run_dir / "report.html").write_text(text_page(title, summary, fig))
    return summary
