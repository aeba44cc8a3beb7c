"""report.html: one self-contained page (inline CSS, the PNGs as data URIs) that can be
mailed or archived without its folder."""

from __future__ import annotations

import base64
import html
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .figures import Figure
from .plots import Plots
from .points import (
    Cond,
    Point,
    alg_order,
    as_float,
    cond_labels,
    cond_order,
    fmt_ms,
    fmt_size,
    without,
)
from .tables import Cell, Counts, Table
from .tails import HTML_LEGEND, INTRO, Tails

FIDELITY_MEANING = ("A point is flagged when the emulator could not keep up with it: the "
                    "software switch waited for a CPU core at least 75 % of the time it had "
                    "packets to move, a loaded link carried less than 70 % of what it "
                    "should have, the ranks waited for a core longer than 1.5 frame times of "
                    "their link each time they got one, or a switch port facing a host "
                    "dropped frames on arrival. The time measured then includes the "
                    "emulator's own delays, so the number is no result. What to do: fewer "
                    "hosts, a lower link rate (bw= in the topology), less background "
                    "traffic, or a quieter machine (docs/fidelity.md). The machine's busy "
                    "share is shown too; it flags nothing by itself.")

CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#222;
 max-width:1200px;margin:0 auto;padding:1.5em 2em}
h1{margin-bottom:.1em}h2{margin-top:1.8em;border-bottom:1px solid #ddd;padding-bottom:.2em}
h3{margin:1.2em 0 .3em;font-size:1.05em}
.lead{font-size:1.1em;color:#333}.meta,.note{color:#666;font-size:.9em}
.badge{display:inline-block;padding:.15em .7em;border-radius:1em;margin:.2em .3em .2em 0;
 background:#eef1f6;font-size:.9em}
.badge.ok{background:#e1f3e1}.badge.failed{background:#fbe1e1}.badge.flagged{background:#fff0d0}
table{border-collapse:collapse;margin:.4em 0 .6em;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d4d4d4;padding:3px 10px;text-align:right;vertical-align:top}
th{background:#f4f4f4;font-weight:600}td.alg,td.left{text-align:left}td.alg{font-weight:600}
td.best{background:#cfeccf;font-weight:700}td.flagged{background:#fff0d0;cursor:help}
td.failed{background:#fbe6e6;color:#a00;cursor:help}td.missing{color:#aaa}
.mark{color:#b26b00;font-weight:700}
figure{margin:1.2em 0}figure img{max-width:100%;border:1px solid #eee}
figcaption{color:#444;font-size:.92em;max-width:900px}
pre{background:#f6f6f6;padding:.7em;overflow:auto;font-size:.85em;margin:.2em 0}
td pre{background:none;padding:0;white-space:pre-wrap;text-align:left;max-width:600px}
details{margin:.4em 0}summary{cursor:pointer;font-weight:600}
.trees{display:flex;flex-wrap:wrap;gap:1em}.trees figure{flex:1 1 320px;margin:0}
"""


def _e(v: Any) -> str:
    return html.escape(str(v), quote=True)


def figure_html(fig: Figure) -> str:
    """A figure embedded in the page (a data URI: the report is one self-contained file)."""
    data = base64.b64encode(fig.path.read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_e(fig.path.stem)}">'
            f"<figcaption>{_e(fig.caption)}</figcaption></figure>")


def text_page(title: str, text: str, figure: Figure | None) -> str:
    """A report that is its summary's text and one figure (a [multinode] or an Allgather
    run's): one self-contained page, as report_html's."""
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{_e(title)}</h1><pre>{_e(text)}</pre>"
            f"{figure_html(figure) if figure else ''}</body></html>\n")


def _html_cell(c: Cell) -> str:
    classes = [n for n, on in (("best", c.best), ("flagged", c.flagged), ("failed", c.failed),
                               ("missing", c.value == "-")) if on]
    mark = '<span class="mark">&thinsp;!</span>' if c.flagged else ""
    return f'<td class="{" ".join(classes)}" title="{_e(c.tip)}">{_e(c.value)}{mark}</td>'


def _html_table(t: Table) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in t.header)
    body = "".join(f'<tr><td class="alg">{_e(alg)}</td>{"".join(map(_html_cell, cells))}</tr>'
                   for alg, cells in t.rows)
    return (f"<h3>{_e(t.title)} <span class='note'>({_e(t.what)})</span></h3>"
            f"<table><tr>{head}</tr>{body}</table><p class='note'>"
            f"{_e(t.marks.capitalize())}: {_e(t.fastest)}"
            + (f". Read the times by {_e(t.units)}." if t.units else "") + "</p>")


def _list(values: Iterable[Any]) -> str:
    return ", ".join(str(v) for v in values) or "none recorded"


def _what_was_run(points: list[Point], config: Mapping[str, Any], varying: set[str],
                  counts: Counts, unfinished: bool) -> str:
    topology = config.get("topology")
    topo = (topology.get("name") if isinstance(topology, Mapping) else topology) or _list(
        sorted({str(p.config().get("topology")) for p in points if p.config().get("topology")}))
    hosts = sorted({p.hosts for p in points if p.hosts is not None})
    algs = sorted({p.algorithm for p in points}, key=alg_order)
    sizes = [fmt_size(s) for s in sorted({p.size for p in points if p.size is not None})]
    conds = sorted({without(p.cond, "hosts") for p in points}, key=cond_order)
    labels = cond_labels(conds, varying, omit=("hosts",))
    reps = sorted({p.samples for p in points if p.ok})
    rep = "" if not reps else (f" Each point repeats the broadcast {reps[0]} times."
                               if len(reps) == 1 else
                               f" Each point repeats the broadcast {reps[0]} to {reps[-1]} "
                               "times.")
    text = (f"Broadcasts on the {topo} topology with {_list(hosts)} hosts: algorithms "
            f"{_list(algs)}; message sizes {_list(sizes)}; conditions "
            f"{_list(labels[c] for c in conds)}.{rep}")
    badges = [("", f"{counts.measured} measured" + (f" of {counts.planned} planned"
                                                     if counts.planned is not None else "")),
              ("ok", f"{counts.ok} ok"), ("failed", f"{counts.failed} failed"),
              ("flagged", f"{counts.flagged} flagged")]
    if unfinished:
        badges.append(("failed", "run did not finish"))
    return (f"<p>{_e(text)}</p><p>" +
            "".join(f'<span class="{f"badge {k}".strip()}">{_e(v)}</span>'
                    for k, v in badges) + "</p>")


def _headline(tables: list[Table]) -> str:
    legend = ("<p class='note'>Green: fastest in its column. Amber with !: flagged, the "
              "emulator could not keep up (hover for its fidelity flags). Red: failed (hover "
              "for the error). Hover any cell for p10, p90 and the model's prediction.</p>")
    return "".join(map(_html_table, tables)) + legend


def _links(links: Any) -> str:
    if not links:
        return ""
    rows = "".join(
        f"<tr><td class='left'>{_e(ln.get('link', '?'))}</td>"
        + "".join(f"<td>{_e(_fmt_num(ln.get(k)))}</td>"
                  for k in ("configured_mbit", "expected_mbit", "achieved_mbit", "ratio"))
        + "</tr>" for ln in links if isinstance(ln, Mapping))
    return ("<table><tr><th>link</th><th>configured Mbit/s</th><th>expected</th>"
            f"<th>achieved</th><th>ratio</th></tr>{rows}</table>")


def _fmt_num(v: Any) -> str:
    x = as_float(v)
    return "-" if x is None else f"{x:.3g}"


def _point_cells(p: Point, labels: Mapping[Cond, str]) -> str:
    return (f"<td>{_e(p.index if p.index is not None else '?')}</td>"
            f"<td class='left'>{_e(p.algorithm)}</td><td>{_e(fmt_size(p.size))}</td>"
            f"<td>{_e(p.hosts if p.hosts is not None else '?')}</td>"
            f"<td class='left'>{_e(labels.get(p.cond, '?'))}</td>")


POINT_HEAD = ("<th>#</th><th>algorithm</th><th>size</th><th>hosts</th><th>condition</th>")


def _fidelity(points: list[Point], labels: Mapping[Cond, str]) -> str:
    flagged = [p for p in points if p.flagged]
    intro = f"<p>{_e(FIDELITY_MEANING)}</p>"
    if not flagged:
        checked = any(p.rec.get("fidelity") for p in points)
        return intro + ("<p>No point was flagged.</p>" if checked else
                        "<p>No fidelity checks were recorded for this run.</p>")
    rows = "".join(
        f"<tr>{_point_cells(p, labels)}<td>{_e(fmt_ms(p.median_ms))}</td>"
        f"<td>{_e('-' if p.cpu_busy is None else f'{p.cpu_busy:.0%}')}</td>"
        f"<td class='left'>{_e('; '.join(p.flags) or '-')}</td>"
        f"<td>{_links((p.rec.get('fidelity') or {}).get('links'))}</td></tr>" for p in flagged)
    return (intro + f"<table><tr>{POINT_HEAD}<th>median ms</th><th>CPU busy</th><th>flags</th>"
            f"<th>links</th></tr>{rows}</table>")


def _failures(points: list[Point], labels: Mapping[Cond, str]) -> str:
    failed = [p for p in points if not p.ok]
    if not failed:
        return "<p>No point failed.</p>"
    rows = "".join(
        f"<tr>{_point_cells(p, labels)}<td><pre>{_e(json.dumps(p.config(), sort_keys=True))}"
        f"</pre></td><td><pre>{_e(p.error or 'failed')}</pre></td></tr>" for p in failed)
    return (f"<table><tr>{POINT_HEAD}<th>configuration</th><th>error</th></tr>{rows}</table>")


def _configuration(config: Mapping[str, Any]) -> str:
    def block(name: str, obj: Any) -> str:
        text = json.dumps(obj, indent=1, sort_keys=True, default=str)
        return f"<details><summary>{_e(name)}</summary><pre>{_e(text)}</pre></details>"

    parts = [block(name, config[key]) for name, key in (
        ("Experiment spec", "spec"), ("Topology", "topology"),
        ("Point-to-point parameters", "params"), ("Capabilities", "capabilities"),
        ("Versions", "versions")) if config.get(key) is not None]
    return "".join(parts) + block("Whole config.json", config)


def report_html(title: str, run_dir: Path, config: Mapping[str, Any], points: list[Point],
                tables: list[Table], plots: Plots, counts: Counts, varying: set[str],
                unfinished: bool, notes: Sequence[str] = (), findings: Sequence[str] = (),
                tails: Tails | None = None) -> str:
    spec = config.get("spec") or {}
    meta = f"run folder {run_dir.name}"
    if config.get("started"):
        meta += f", started {config['started']}"
    meta += f", finished {config['finished']}" if config.get("finished") else \
        (", not finished" if unfinished else "")
    body = [f"<h1>{_e(title)}</h1>"]
    if spec.get("description"):
        body.append(f"<p class='lead'>{_e(spec['description'])}</p>")
    body.append(f"<p class='meta'>{_e(meta)}</p>")
    labels = cond_labels({p.cond for p in points}, varying)
    if not points:
        planned = f" ({counts.planned} planned)" if counts.planned else ""
        body.append(f"<h2>What was run</h2><p>Nothing was measured: records.jsonl holds no "
                    f"points{_e(planned)}.</p>")
    else:
        body += ["<h2>What was run</h2>",
                 _what_was_run(points, config, varying, counts, unfinished),
                 *(f"<p>{_e(n)}</p>" for n in notes),
                 "<h2>Headline</h2>", _headline(tables)]
        if tails is not None and tails.tables:
            body += ["<h2>The tail</h2>", f"<p class='note'>{_e(INTRO)} {_e(HTML_LEGEND)}</p>",
                     *map(_html_table, tails.tables),
                     *(f"<p class='note'>{_e(n)}</p>" for n in tails.notes)]
        if findings:
            body += ["<h2>What this run shows</h2><p class='note'>From unflagged points only."
                     "</p><ul>", *(f"<li>{_e(f)}</li>" for f in findings), "</ul>"]
        if plots.figures or plots.problems:
            body += ["<h2>Plots</h2>", *map(figure_html, plots.figures),
                     *(f"<p class='note'>{_e(n)}</p>" for n in plots.problems)]
        body += ["<h2>Broadcast trees</h2><div class='trees'>", *map(figure_html, plots.trees),
                 "</div>", *(f"<p class='note'>{_e(n)}</p>" for n in plots.tree_notes),
                 "<h2>Fidelity</h2>", _fidelity(points, labels),
                 "<h2>Failures</h2>", _failures(points, labels)]
    body += ["<h2>Configuration and versions</h2>", _configuration(config)]
    return (f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
