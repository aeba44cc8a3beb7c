"""What `mcastlab reproduce` writes: reproduce.json (everything), reproduce.md (the claims
table, for the README and a reader on GitHub) and report.html (one self-contained page:
the table, then per claim the paper's figure beside the testbed's, a plot where the claim
has one, and every measured point with its fidelity flags)."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from ..report.figures import Figure, pyplot, save_png
from ..report.html import CSS, figure_html
from .verdict import KINDS

BADGE = {"reproduced": "ok", "differs": "failed", "undecided": "flagged",
         "no result": "flagged", "not applicable": "", "skipped": ""}


def write(out_dir: Path, doc: dict[str, Any]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "reproduce.json").write_text(json.dumps(doc, indent=1) + "\n")
    (out_dir / "reproduce.md").write_text(markdown(doc))
    plots = out_dir / "plots"
    figures = {c["key"]: fig for c in doc["claims"]
               if (fig := _plot(c, plots)) is not None}
    (out_dir / "report.html").write_text(page(doc, figures))


def _machine(doc: dict[str, Any]) -> str:
    m = doc["machine"]
    return f"{m.get('machine')}, {m.get('cpus')} x {m.get('cpu_model')}, kernel {m.get('kernel')}"


def _rates(doc: dict[str, Any]) -> list[str]:
    return [f"{name}: {n.get('rate', '')}" for name, n in doc["networks"].items()]


def markdown(doc: dict[str, Any]) -> str:
    s = doc["summary"]
    out = [f"# The papers' claims on this testbed ({doc['started']})", "",
           f"`{doc['command']}` on {_machine(doc)}, {doc['seconds']:g} s"
           f"{' (--quick)' if doc['quick'] else ''}. "
           + ", ".join(f"{n} {v}" for v, n in s.items() if n) + ".", ""]
    out += [f"- network {r}" for r in _rates(doc)]
    out += ["", "| claim | paper | where | paper's figure | testbed's figure | verdict |",
            "|---|---|---|---|---|---|"]
    for c in doc["claims"]:
        verdict = _verdict(c) + (f": {c['why']}" if c["why"] and c["verdict"] != "skipped"
                                 else "")
        out.append(f"| {c['key']} | {c['paper']} | {c['where']} | {_cell(c['paper_figure'])} "
                   f"| {_cell(c['testbed_figure'])} | {_md(verdict)} |")
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


def _plot(claim: dict[str, Any], folder: Path) -> Figure | None:
    """The claim's series (values["plot"]) and, beside them, each judged figure with its
    interval over the jobs and its margin (values["intervals"])."""
    values = claim["testbed_figure"]["values"]
    panels = [(draw, x) for draw, x in ((_series, values.get("plot")),
                                        (_intervals, values.get("intervals"))) if x]
    if not panels:
        return None
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 4), squeeze=False)
    for ax, (draw, spec) in zip(axes[0], panels, strict=True):
        draw(ax, spec)
    fig.tight_layout()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{claim['key']}.png"
    save_png(plt, fig, path)
    return Figure(path, f"{claim['key']}: {claim['statement']}")


def _series(ax: Any, spec: dict[str, Any]) -> None:
    """Each series' points (x, y), or (x, y, lo, hi) with the spread over the jobs drawn
    as error bars."""
    for label, pts in spec["series"].items():
        if not pts:
            continue
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        paper = "paper" in label or "model" in label  # dashed: not measured here
        style = {"label": label, "alpha": 0.6 if paper else 1.0}
        if all(len(p) == 4 for p in pts):
            ax.errorbar(xs, ys, yerr=[[y - p[2] for y, p in zip(ys, pts, strict=True)],
                                      [p[3] - y for y, p in zip(ys, pts, strict=True)]],
                        fmt="o--" if paper else "o-", capsize=3, **style)
        else:
            ax.plot(xs, ys, "o--" if paper else "o-", **style)
    ax.set_xlabel(spec["xlabel"])
    ax.set_ylabel(spec["ylabel"])
    if spec.get("logx"):
        ax.set_xscale("log", base=2)
        xs = sorted({p[0] for pts in spec["series"].values() for p in pts})
        ax.set_xticks(xs, [f"{x:g}" for x in xs])
    if spec.get("logy"):
        ax.set_yscale("log")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)


def _intervals(ax: Any, judged: dict[str, dict[str, Any]]) -> None:
    """One row per judged figure, named: its value, its 95 % interval as an error bar,
    and its margin's edges as ticks (green: reproduced, red: differs, orange: undecided)."""
    colour = {"reproduced": "tab:green", "differs": "tab:red"}
    for y, j in enumerate(judged.values()):
        lo, hi = j["interval"]
        ax.errorbar([j["figure"]], [y], xerr=[[j["figure"] - lo], [hi - j["figure"]]],
                    fmt="o", capsize=4, color=colour.get(j["verdict"], "tab:orange"))
        for edge in j["margin"]:
            if edge is not None:
                ax.plot([edge, edge], [y - 0.3, y + 0.3], color="grey", lw=2)
    ax.set_yticks(range(len(judged)), list(judged))
    ax.set_ylim(-0.5, len(judged) - 0.5)
    ax.set_xlabel("judged figure: median of the jobs, 95 % interval; grey: the margin")
    ax.grid(alpha=0.3, axis="x")


def page(doc: dict[str, Any], figures: dict[str, Figure]) -> str:
    e = html.escape
    s = doc["summary"]
    body = [f"<h1>The papers' claims on this testbed</h1><p class='meta'>{e(doc['started'])}, "
            f"<code>{e(doc['command'])}</code>, {doc['seconds']:g} s, {e(_machine(doc))}</p>",
            "<p>" + "".join(f"<span class='badge {BADGE[v]}'>{n} {e(v)}</span>"
                            for v, n in s.items() if n) + "</p>"]
    body += [f"<p class='meta'>network {e(r)}</p>" for r in _rates(doc)]
    body += ["<table><tr><th>claim</th><th>paper</th><th>where</th><th>paper's figure</th>"
             "<th>testbed's figure</th><th>verdict</th></tr>"]
    for c in doc["claims"]:
        body.append(f"<tr><td class='left'><a href='#{e(c['key'])}'>{e(c['key'])}</a></td>"
                    f"<td class='left'>{e(c['paper'])}</td><td class='left'>{e(c['where'])}</td>"
                    f"<td class='left'>{e(_cell(c['paper_figure']))}</td>"
                    f"<td class='left'>{e(c['testbed_figure']['text'])}</td>"
                    f"<td class='left'><span class='badge {BADGE[c['verdict']]}'>"
                    f"{e(c['verdict'])}</span></td></tr>")
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
