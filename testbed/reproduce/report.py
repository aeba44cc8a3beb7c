"""What `mcastlab reproduce` writes: reproduce.json (everything), reproduce.md (the claims
table, for the README and a reader on GitHub), reproduce.csv (every measured point, one a
row), plots/CLAIM.png, .svg and .pdf (the testbed's series with p10-p90 whiskers, the judged
figures' intervals, the paper's figure beside them; a caption line with the network, link
rate, jobs, date and commit) and report.html (one self-contained page: the table, then per
claim the paper's figure beside the testbed's, the plot, and every measured point with its
fidelity flags)."""

from __future__ import annotations

import csv
import functools
import html
import json
import multiprocessing
import os
import re
import statistics
import textwrap
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..report.figures import (
    Figure,
    caption_line,
    commit_text,
    pyplot,
    rate_text,
    save_figure,
)
from ..report.html import CSS, figure_html
from ..safepath import make_folder
from .verdict import KINDS, SKIPPED

TAKE = re.compile(r", take \d+")
MAX_LISTED = 24
CSV_FIELDS = ("claim", "verdict", "network", "role", "label", "algorithm", "scheme", "size",
              "hosts", "traffic", "failed", "iterations", "ms", "p10_ms", "p90_ms", "min_ms",
              "max_ms", "predicted_ms", "verified", "flags", "error", "tries", "commit")
BADGE = {"reproduced": "ok", "differs": "failed", "undecided": "flagged",
         "no result": "flagged", "not applicable": "", "skipped": ""}


PLOT_WORKERS = min(2, os.cpu_count() or 1)  # the plots drawn at a time, a process each
PLOTS_APART = 8  # from this many claims on (a process costs its start and matplotlib's)


def write(out_dir: Path, doc: dict[str, Any]) -> None:
    make_folder("results folder", out_dir)
    write_json(out_dir, doc)
    (out_dir / "reproduce.md").write_text(markdown(doc))
    write_csv(out_dir / "reproduce.csv", doc)
    plots = out_dir / "plots"
    asked = [(c, plots, claim_caption(doc, c)) for c in doc["claims"]]
    if PLOT_WORKERS > 1 and sum(c["verdict"] != SKIPPED for c, _, _ in asked) >= PLOTS_APART:
        # after the networks are down the cores are the plots' (a minute of PNG, SVG and PDF
        # for 57 claims on one core, 2026-12-06)
        with ProcessPoolExecutor(PLOT_WORKERS,
                                 mp_context=multiprocessing.get_context("fork")) as pool:
            drawn = list(pool.map(_plot_args, asked))
    else:
        drawn = [_plot(*a) for a in asked]
    figures = {c["key"]: fig for (c, _, _), fig in zip(asked, drawn, strict=True)
               if fig is not None}
    (out_dir / "report.html").write_text(page(doc, figures))


def write_json(out_dir: Path, doc: dict[str, Any]) -> None:
    (out_dir / "reproduce.json").write_text(json.dumps(doc, indent=1) + "\n")


def _plot_args(args: tuple[dict[str, Any], Path, str]) -> Figure | None:
    return _plot(*args)


def write_csv(path: Path, doc: dict[str, Any]) -> None:
    """reproduce.csv: one row per measured point of every claim (`role` judged: it decides
    the verdict; context: shown beside it), in CSV_FIELDS' columns (flags joined by "; "),
    each with the commit of the code that measured it."""
    commit = commit_text(doc.get("machine"))
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for c in doc["claims"]:
            for role, pts in (("judged", c.get("points") or []),
                              ("context", c.get("context") or [])):
                for p in pts:
                    w.writerow({**{k: _csv_value(p.get(k)) for k in CSV_FIELDS},
                                "claim": c["key"], "verdict": c["verdict"],
                                "network": c.get("network") or "", "role": role,
                                "flags": "; ".join(p.get("flags") or []),
                                "commit": commit})


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, (list, dict)):
        return json.dumps(v)
    return v


def claim_caption(doc: dict[str, Any], claim: dict[str, Any]) -> str:
    """The caption on a claim's figure: its network's topology and link rate (or "computed,
    no network"), its jobs per point and iterations per job, the run's date and commit."""
    net = doc.get("networks", {}).get(claim.get("network") or "", {})
    pts = claim.get("points") or []
    jobs: dict[str, int] = {}
    for p in pts:
        key = _take_free(str(p.get("label", "")))
        jobs[key] = jobs.get(key, 0) + 1
    iters = sorted({p["iterations"] for p in pts if isinstance(p.get("iterations"), int)})
    reps = [f"{_span(sorted(set(jobs.values())))} job(s) per point" if jobs else "",
            f"{_span(iters)} iterations per job" if iters else ""]
    if claim.get("network") is None:
        topology, rate = "none (computed)", None
    else:
        topology = net.get("topology") or str(claim.get("network"))
        rate = rate_text(net.get("link_rate"))
    return caption_line(topology=topology, rate=rate,
                        repetitions=", ".join(r for r in reps if r) or None,
                        date=doc.get("started"), versions=doc.get("machine"))


def cost(claim: dict[str, Any]) -> str:
    """What a claim's run cost: its seconds, and for a measured one its points and jobs a
    point ('' for a claim not run)."""
    if claim.get("verdict") == "skipped" or claim.get("seconds") is None:
        return ""
    jobs: dict[str, int] = {}
    for p in claim.get("points") or []:
        key = _take_free(str(p.get("label", "")))
        jobs[key] = jobs.get(key, 0) + 1
    if not jobs:
        return f"{claim['seconds']:g} s"
    return (f"{claim['seconds']:g} s: {len(jobs)} point(s), "
            f"{_span(sorted(set(jobs.values())))} job(s) each")


def _span(values: list[int]) -> str:
    return "" if not values else f"{values[0]}" if len(values) == 1 else \
        f"{values[0]}-{values[-1]}"


def _machine(doc: dict[str, Any]) -> str:
    m = doc["machine"]
    return f"{m.get('machine')}, {m.get('cpus')} x {m.get('cpu_model')}, kernel {m.get('kernel')}"


def operating_point(doc: dict[str, Any], claim: dict[str, Any]) -> str:
    """Where a measured claim ran and why there: its network, the link rate, the reason
    that network runs at it ('' for a computed claim)."""
    name = claim.get("network")
    net = doc.get("networks", {}).get(name or "", {})
    if not name or not net:
        return ""
    return f"{name} ({net.get('topology')}) at {net.get('rate')}" + (
        f": {net['why']}" if net.get("why") else "")


def _rates(doc: dict[str, Any]) -> list[str]:
    return [f"{name}: {n.get('rate', '')}" for name, n in doc["networks"].items()]


def title(doc: dict[str, Any]) -> str:
    """The report's title: the ordinary claims, or (--scale) the growth claims past 16
    hosts."""
    return ("The papers' growth claims at 32 and 64 hosts on this testbed"
            if doc.get("scale") else "The papers' claims on this testbed")


def markdown(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    out = [f"# {title(doc)} ({doc['started']})", "",
           f"`{doc['command']}` on {_machine(doc)}, {doc['seconds']:g} s"
           f"{' (--quick)' if doc['quick'] else ''}. "
           + ", ".join(f"{n} {v}" for v, n in s.items() if n) + ".", ""]
    out += [f"- network {r}" for r in _rates(doc)]
    out += [f"- code: {commit_text(doc.get('machine'))}"]
    out += ["", "| claim | paper | where | paper's figure | testbed's figure | verdict | cost |",
            "|---|---|---|---|---|---|---|"]
    for c in doc["claims"]:
        verdict = _verdict(c) + (f": {c['why']}" if c["why"] and c["verdict"] != "skipped"
                                 else "")
        out.append(f"| {c['key']} | {c['paper']} | {c['where']} | {_cell(c['paper_figure'])} "
                   f"| {_cell(c['testbed_figure'])} | {_md(verdict)} | {cost(c)} |")
    out += ["", "Verdicts: reproduced (within the claim's margin, on results only), differs, "
            "undecided (the interval over jobs straddles the margin), not applicable (an "
            "emulator cannot show it, or the model predicts no effect here); a difference "
            "says its kind: the emulator cannot show it (a mechanism is missing) or the "
            "claim does not transfer (to the instance run here); no result (a point failed or the "
            "emulator did not keep up: flagged), skipped. Details: report.html.", ""]
    return "\n".join(out)


def _verdict(c: dict[str, Any]) -> str:
    """The verdict with the kind of a difference, if it has one."""
    kind = c.get("why_kind")
    return c["verdict"] + (f" ({KINDS[kind]})" if kind in KINDS else "")


def _cell(fig: dict[str, Any]) -> str:
    marker = " (inferred)" if fig.get("marker") == "I" else ""
    return _md(fig["text"] + marker)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _plot(claim: dict[str, Any], folder: Path, foot: str = "") -> Figure | None:
    """The claim's series (values["plot"], whiskers p10-p90 where measured), each judged
    figure with its interval over the jobs and its margin (values["intervals"]), and the
    paper's figure beside them (_paper_panel); None when the claim has nothing to plot."""
    values = claim["testbed_figure"]["values"]
    spreads = _spreads([*claim.get("points", []), *(claim.get("context") or [])])
    panels: list[tuple[Callable[[Any], None], str]] = []
    if values.get("plot"):
        panels.append((functools.partial(_series, spec=values["plot"], spreads=spreads),
                       "the testbed"))
    if values.get("intervals"):
        panels.append((functools.partial(_intervals, judged=values["intervals"]),
                       "the testbed's judged figures"))
    paper = _paper_panel(claim, text_only=bool(panels))
    if paper is None and not panels:
        return None
    if paper is not None:
        panels.append(paper)
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.2), squeeze=False)
    for ax, (draw, title) in zip(axes[0], panels, strict=True):
        draw(ax)
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    make_folder("results folder", folder)
    path = folder / f"{claim['key']}.png"
    save_figure(plt, fig, path, foot)
    return Figure(path, f"{claim['key']}: {claim['statement']} Whiskers: p10 to p90 of the "
                        "repetitions (lowest p10 to highest p90 over a point's jobs) where a "
                        "line is measured here; bootstrap intervals over the jobs for the judged "
                        "figures; the paper's figure as the claim holds it.")


def _take_free(label: str) -> str:
    return TAKE.sub("", label)


def _spreads(points: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Per measured point (its jobs taken together, told apart by ", take N"), the median of
    the jobs' medians -> (lowest p10, highest p90) in ms, keyed by _key(median): a series
    value that is such a median finds its spread. Also keyed in us (x 1000), for plots in
    microseconds."""
    jobs: dict[str, list[dict[str, Any]]] = {}
    for p in points:
        if p.get("ms") is not None:
            jobs.setdefault(_take_free(str(p.get("label", ""))), []).append(p)
    out: dict[str, tuple[float, float]] = {}
    for takes in jobs.values():
        lo = [q.get("p10_ms", q.get("min_ms")) for q in takes]
        hi = [q.get("p90_ms", q.get("max_ms")) for q in takes]
        if any(v is None for v in lo + hi):
            continue
        med = statistics.median(q["ms"] for q in takes)
        spread = (min(v for v in lo if v is not None), max(v for v in hi if v is not None))
        out.setdefault(_key(med), spread)
        out.setdefault(_key(med * 1e3), (spread[0] * 1e3, spread[1] * 1e3))
    return out


def _key(v: float) -> str:
    return f"{v:.6g}"


def categories(spec: dict[str, Any]) -> list[str] | None:
    """A plot's categorical x axis: spec["categories"] (x the index into it), or the x
    values themselves where they are names; None for a numeric axis."""
    if spec.get("categories"):
        return [str(c) for c in spec["categories"]]
    xs = [p[0] for pts in spec["series"].values() for p in pts]
    if any(isinstance(x, str) for x in xs):
        return list(dict.fromkeys(str(x) for x in xs))
    return None


def _series(ax: Any, spec: dict[str, Any], spreads: dict[str, tuple[float, float]]) -> None:
    """Each series' points (x, y), or (x, y, lo, hi) with the spread over the jobs; a
    measured y without its own spread takes the p10-p90 of the points it is the median of
    (`spreads`). A categorical axis (categories()) is labelled with its conditions."""
    names = categories(spec)
    for label, pts in spec["series"].items():
        if not pts:
            continue
        xs = [names.index(str(p[0])) if names and isinstance(p[0], str) else p[0]
              for p in pts]
        ys = [p[1] for p in pts]
        paper = "paper" in label or "model" in label  # dashed: not measured here
        style = {"label": label, "alpha": 0.6 if paper else 1.0}
        bars = [(p[2], p[3]) if len(p) == 4 else
                None if paper else spreads.get(_key(p[1])) for p in pts]
        if any(b is not None for b in bars):
            err = [[max(0.0, y - b[0]) if b else 0.0 for y, b in zip(ys, bars, strict=True)],
                   [max(0.0, b[1] - y) if b else 0.0 for y, b in zip(ys, bars, strict=True)]]
            ax.errorbar(xs, ys, yerr=err, fmt="o--" if paper else "o-", capsize=3, **style)
        else:
            ax.plot(xs, ys, "o--" if paper else "o-", **style)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel(spec["ylabel"])
    if names:
        ax.set_xticks(range(len(names)), names, rotation=20 if len(names) > 3 else 0,
                      ha="right" if len(names) > 3 else "center", fontsize=8)
        ax.set_xlim(-0.5, len(names) - 0.5)
    elif spec.get("logx"):
        ax.set_xscale("log", base=2)
        xs = sorted({p[0] for pts in spec["series"].values() for p in pts})
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
    if spec.get("logy"):
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _intervals(ax: Any, judged: dict[str, dict[str, Any]]) -> None:
    """One row per judged figure, named: its value, its interval over the jobs as an error bar,
    and its margin's edges as ticks (green: reproduced, red: differs, orange: undecided)."""
    colour = {"reproduced": "tab:green", "differs": "tab:red"}
    for y, j in enumerate(judged.values()):
        lo, hi = j["interval"]
        # a figure of several medians (a fit, a ratio to a maximum) may lie just outside
        # its bootstrap interval: the bar then stops at the figure
        ax.errorbar([j["figure"]], [y], xerr=[[max(0.0, j["figure"] - lo)],
                                              [max(0.0, hi - j["figure"])]],
                    fmt="o", capsize=4, color=colour.get(j["verdict"], "tab:orange"))
        for edge in j["margin"]:
            if edge is not None:
                ax.plot([edge, edge], [y - 0.3, y + 0.3], color="grey", lw=2)
    ax.set_yticks(range(len(judged)), list(judged))
    ax.set_ylim(-0.5, len(judged) - 0.5)
    jobs = sorted({int(j["jobs"]) for j in judged.values() if j.get("jobs")})
    over = f" over {_span(jobs)} jobs" if jobs else ""
    ax.set_xlabel(f"judged figure: median of the jobs, bootstrap interval{over}; grey: the "
                  "margin")
    ax.grid(alpha=0.3, axis="x")


def numbers(values: Any, prefix: str = "") -> dict[str, float]:
    """A claim's values flattened to named numbers ("S1 sequential": 19631, "t[2]": 75);
    lists of more than MAX_LISTED numbers and every non-number left out."""
    out: dict[str, float] = {}
    if isinstance(values, dict):
        for k, v in values.items():
            out.update(numbers(v, f"{prefix} {k}".strip()))
    elif isinstance(values, list):
        if len(values) <= MAX_LISTED and all(_is_number(v) for v in values):
            out.update({f"{prefix}[{i}]": float(v) for i, v in enumerate(values)})
    elif _is_number(values):
        out[prefix] = float(values)
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _norm(name: str) -> str:
    return re.sub(r"[\s_.]+", " ", name).strip().lower()


def paper_beside(claim: dict[str, Any]) -> list[tuple[str, float, float]]:
    """(name, paper's value, testbed's value) for every number of the paper's figure the
    testbed's values hold under the same name (or ending in it: "us S1 sequential" for
    "S1 sequential"), in the paper's order."""
    paper = numbers(claim["paper_figure"]["values"])
    testbed = {_norm(k): v for k, v in numbers(
        {k: v for k, v in claim["testbed_figure"]["values"].items()
         if k not in ("plot", "intervals")}).items()}
    out = []
    for name, value in paper.items():
        n = _norm(name)
        got = testbed.get(n)
        if got is None:
            ends = [v for k, v in testbed.items() if k.endswith(" " + n)]
            got = ends[0] if len(ends) == 1 else None
        if got is not None:
            out.append((name, value, got))
    return out


def _paper_panel(claim: dict[str, Any],
                 text_only: bool) -> tuple[Callable[[Any], None], str] | None:
    """The paper's figure beside the testbed's: the numbers both hold, paired in one axes;
    else, where the testbed has a plot for it to stand beside (`text_only`), its text and
    numbers as the claim holds them (they measure something the testbed's plot does not
    share an axis with); else None (a figure of the paper's text alone says nothing the
    table does not)."""
    where = claim["paper_figure"].get("where") or claim.get("where") or ""
    pairs = paper_beside(claim)
    if pairs:
        return (functools.partial(_paired, pairs=pairs),
                f"the paper ({claim.get('paper')}, {where}) beside the testbed")
    if not text_only:
        return None
    values = numbers(claim["paper_figure"]["values"])
    return (functools.partial(_paper_text, text=claim["paper_figure"]["text"], values=values),
            f"the paper's figure ({claim.get('paper')}, {where})")


def _paired(ax: Any, pairs: list[tuple[str, float, float]]) -> None:
    """Paired horizontal bars: the paper's value (hollow) over the testbed's (filled)."""
    ys = range(len(pairs))
    ax.barh([y + 0.2 for y in ys], [p for _, p, _ in pairs], 0.4, label="paper",
            color="white", edgecolor="tab:grey", hatch="//")
    ax.barh([y - 0.2 for y in ys], [t for _, _, t in pairs], 0.4, label="testbed",
            color="tab:blue")
    ax.set_yticks(list(ys), [n for n, _, _ in pairs], fontsize=8)
    ax.invert_yaxis()
    ax.grid(alpha=0.3, axis="x")
    ax.legend(fontsize=8)


def _paper_text(ax: Any, text: str, values: dict[str, float]) -> None:
    lines = textwrap.wrap(text, 60)[:8] + ([""] if values else []) + [
        f"{k} = {v:g}" for k, v in list(values.items())[:MAX_LISTED]]
    ax.text(0.02, 0.98, "\n".join(lines), va="top", ha="left", fontsize=8,
            transform=ax.transAxes, family="monospace")
    ax.axis("off")


def page(doc: dict[str, Any], figures: dict[str, Figure]) -> str:
    e = html.escape
    s = doc["summary"]
    body = [f"<h1>{e(title(doc))}</h1><p class='meta'>{e(doc['started'])}, "
            f"<code>{e(doc['command'])}</code>, {doc['seconds']:g} s, {e(_machine(doc))}</p>",
            "<p>" + "".join(f"<span class='badge {BADGE[v]}'>{n} {e(v)}</span>"
                            for v, n in s.items() if n) + "</p>"]
    body += [f"<p class='meta'>network {e(r)}</p>" for r in _rates(doc)]
    body.append(f"<p class='meta'>code: {e(commit_text(doc.get('machine')))}</p>")
    body += ["<table><tr><th>claim</th><th>paper</th><th>where</th><th>paper's figure</th>"
             "<th>testbed's figure</th><th>verdict</th><th>cost</th></tr>"]
    for c in doc["claims"]:
        body.append(f"<tr><td class='left'><a href='#{e(c['key'])}'>{e(c['key'])}</a></td>"
                    f"<td class='left'>{e(c['paper'])}</td><td class='left'>{e(c['where'])}</td>"
                    f"<td class='left'>{e(_cell(c['paper_figure']))}</td>"
                    f"<td class='left'>{e(c['testbed_figure']['text'])}</td>"
                    f"<td class='left'><span class='badge {BADGE[c['verdict']]}'>"
                    f"{e(c['verdict'])}</span></td><td class='left'>{e(cost(c))}</td></tr>")
    body.append("</table>")
    for c in doc["claims"]:
        body += [f"<h2 id='{e(c['key'])}'>{e(c['key'])}: {e(c['statement'])}</h2>",
                 f"<p><b>Paper</b> ({e(c['paper'])}, {e(c['where'])}): "
                 f"{e(_cell(c['paper_figure']))}</p>",
                 f"<p><b>Testbed</b>: {e(c['testbed_figure']['text'])}</p>",
                 f"<p><b>Verdict</b>: <span class='badge {BADGE[c['verdict']]}'>"
                 f"{e(c['verdict'])}</span> "
                 + (f"<i>{e(KINDS[c['why_kind']])}</i>: " if c.get("why_kind") in KINDS
                    else "")
                 + f"{e(c['why'])}</p>",
                 f"<p class='note'>Margin: {e(c['margin'])}</p>"]
        if (point := operating_point(doc, c)):
            body.append(f"<p class='note'>Operating point: {e(point)}</p>")
        if c["key"] in figures:
            body.append(figure_html(figures[c["key"]]))
        if c["points"]:
            body.append(_points(c["points"]))
        if c.get("context"):
            body += ["<p class='note'>Shown beside them, not judged:</p>",
                     _points(c["context"])]
    return ("<!doctype html><html><head><meta charset='utf-8'><title>mcastlab reproduce"
            f"</title><style>{CSS}</style></head><body>{''.join(body)}</body></html>\n")


def _points(points: list[dict[str, Any]]) -> str:
    e = html.escape
    rows = ["<table><tr><th>point</th><th>median ms</th><th>p10-p90 ms</th><th>verified</th>"
            "<th>fidelity</th></tr>"]
    for p in points:
        flags = "; ".join(p.get("flags") or [])
        cls = " class='flagged'" if flags else (" class='failed'" if p.get("error") else "")
        ms = "-" if p.get("ms") is None else f"{p['ms']:.2f}"
        spread = ("-" if p.get("p10_ms") is None else f"{p['p10_ms']:.2f}-{p['p90_ms']:.2f}")
        rows.append(f"<tr><td class='left'>{e(p['label'])}</td><td{cls} title='{e(flags)}'>"
                    f"{ms}{'!' if flags else ''}</td><td>{spread}</td>"
                    f"<td>{'yes' if p.get('verified', True) else 'NO'}</td>"
                    f"<td class='left'>{e(flags or p.get('error') or 'kept up')}</td></tr>")
    rows.append("</table>")
    return "".join(rows)
