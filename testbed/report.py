"""One experiment run folder -> summary.csv, plots/*.png, summary.txt and report.html.

A run is a few hundred JSON lines; what a person wants from it is who is fastest under which
condition, the shape behind that (plots, and the trees themselves) and which numbers to
distrust (flagged: the emulator could not keep up; failed: no number at all). So the report
leads with one table per message size, and everything lands in ONE self-contained HTML file
(PNG data URIs, inline CSS) that can be mailed or archived without its folder.

    from testbed.report import write_report
    print(write_report(Path("results/20260101-120000-loadsweep")))
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collectives.model import MeasuredPointToPoint
from collectives.schedules import ALGORITHMS, DEFAULT_FRAGMENT, Schedule, Send, build

from .results import read_jsonl, size_text, text_table

__all__ = ["write_report"]

# every algorithm the testbed runs, in the order tables and legends list them
ALGORITHM_ORDER = ("mpich", "sequential", "binomial", "binary", "chain", "fragmented-chain",
                   "scatter-allgather", "opt-tree", "dyn-tree", "two-stage", "nack",
                   "scout-linear", "scout-binary")
PALETTE = ("#444444", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#7b4173",
           "#31a354", "#6b6ecf")
CONDITION_COLORS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
CONFIG_FIELDS = ("algorithm", "size", "hosts", "traffic", "pattern", "load", "loss",
                 "loss_scope", "fault", "groups", "interval_s", "topology", "mode")
ENV_FIELDS = ("traffic", "pattern", "load", "loss", "loss_scope", "fault")
TRAFFIC_FIELDS = ("traffic", "pattern", "load")
MULTICAST_NOTES = {  # what the drawing of root -> all leaves out
    "two-stage": "fragments go out without synchronising, then a fragmented chain over "
                 "point-to-point completes whatever the multicast lost.",
    "nack": "ranks then report missing fragments up a binomial tree and the root repairs "
            "them (re-multicast, the last round point-to-point).",
    "scout-linear": "before it every rank sends a zero-byte scout straight to the root; lost "
                    "fragments are repaired as in nack.",
    "scout-binary": "before it zero-byte scouts are gathered up a binary tree; lost fragments "
                    "are repaired as in nack.",
}
TREE_NOTES = {
    "sequential": "the root sends the whole message to every rank in turn.",
    "binomial": "a rank that has the message sends it to the root of the largest remaining "
                "subtree first.",
    "chain": "each rank forwards the whole message to the next.",
    "binary": "each rank forwards the whole message to two children.",
    "scatter-allgather": "the binomial scatter of one chunk per rank is drawn; a ring "
                         "allgather in k-1 steps (not drawn) then completes the message.",
}
FIDELITY_MEANING = ("A point is flagged when the emulator could not keep up with it: the "
                    "software switch waited for a CPU core at least 75 % of the time it had "
                    "packets to move, or a loaded link carried less than 70 % of what it "
                    "should have. The time measured then includes the emulator's own delays, "
                    "so the number is suspect. The machine's busy share is shown too; polling "
                    "MPI ranks keep it near 100 % either way.")
TREE_DEFAULT_TIMES = (1.0, 3.0)  # t_hold, t_end when the run measured no parameters
MAX_PANELS = 6

Cond = tuple[tuple[str, Any], ...]  # every config field but algorithm and size


# ---- points -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """One record, reduced to what tables and plots need (milliseconds, None if absent)."""

    index: int | None
    status: str
    algorithm: str
    size: int | None
    hosts: int | None
    cond: Cond
    ok: bool
    median_ms: float | None
    p10_ms: float | None
    p90_ms: float | None
    predicted_ms: float | None
    load_x: float | None  # accepted load, else requested load; 0 without traffic
    accepted: float | None
    cpu_busy: float | None
    flagged: bool
    flags: tuple[str, ...]
    error: str | None
    samples: int
    rec: dict[str, Any] = field(compare=False, repr=False)

    def config(self) -> dict[str, Any]:
        return self.rec.get("config") or {}


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return None
    return float(v)


def _ms(v: Any) -> float | None:
    x = _num(v)
    return None if x is None else x * 1e3


def _int(v: Any) -> int | None:
    x = _num(v)
    return None if x is None else int(x)


def _frozen(v: Any) -> Any:
    return json.dumps(v, sort_keys=True, default=str) if isinstance(v, list | dict) else v


def _no_traffic(name: Any) -> bool:
    return name in (None, "none", "")


def _point(rec: dict[str, Any]) -> Point:
    cfg = rec.get("config") or {}
    t = rec.get("t_mcast_s") or {}
    fid = rec.get("fidelity") or {}
    traffic = rec.get("traffic") or {}
    median = _ms(t.get("median"))
    status = str(rec.get("status") or "unknown")
    ok = status == "ok" and median is not None
    accepted = _num(traffic.get("accepted"))
    load_x = accepted if accepted is not None else _num(cfg.get("load"))
    if load_x is None and _no_traffic(cfg.get("traffic")):
        load_x = 0.0
    error = rec.get("error")
    if not ok and not error:
        error = "status ok but no latency recorded" if status == "ok" else f"status {status}"
    return Point(
        index=_int(rec.get("index")), status=status, algorithm=str(cfg.get("algorithm", "?")),
        size=_int(cfg.get("size")), hosts=_int(cfg.get("hosts")),
        cond=tuple(sorted((k, _frozen(v)) for k, v in cfg.items()
                          if k not in ("algorithm", "size"))),
        ok=ok, median_ms=median, p10_ms=_ms(t.get("p10")), p90_ms=_ms(t.get("p90")),
        predicted_ms=_ms(rec.get("predicted_s")), load_x=load_x, accepted=accepted,
        cpu_busy=_num(fid.get("cpu_busy")), flagged=fid.get("ok") is False,
        flags=tuple(str(f) for f in fid.get("flags") or ()), error=error and str(error),
        samples=len(rec.get("samples_s") or ()), rec=rec)


def _pick(points: Iterable[Point]) -> Point | None:
    """The representative of repeated points: the ok one with the median latency."""
    good = sorted((p for p in points if p.ok), key=lambda p: p.median_ms or 0.0)
    return good[(len(good) - 1) // 2] if good else None


# ---- ordering and labels ----------------------------------------------------------------
def _sortable(v: Any) -> tuple[int, float, str]:
    if v is None:
        return (0, 0.0, "")
    x = _num(v)
    return (1, x, "") if x is not None else (2, 0.0, str(v))


def _alg_order(alg: str) -> tuple[int, str]:
    return (ALGORITHM_ORDER.index(alg) if alg in ALGORITHM_ORDER else len(ALGORITHM_ORDER), alg)


def _color(alg: str) -> str:
    i = ALGORITHM_ORDER.index(alg) if alg in ALGORITHM_ORDER else \
        len(ALGORITHM_ORDER) + sum(map(ord, alg))
    return PALETTE[i % len(PALETTE)]


def _without(cond: Cond, *fields: str) -> Cond:
    return tuple((k, v) for k, v in cond if k not in fields)


def _env_parts(c: Mapping[str, Any]) -> list[str]:
    parts = []
    if not _no_traffic(c.get("traffic")):
        words = ["traffic", str(c["traffic"])]
        if c.get("pattern") and c.get("pattern") != c.get("traffic"):
            words.append(str(c["pattern"]))
        if _num(c.get("load")) is not None:
            words.append(f"{c['load']:g}")
        parts.append(" ".join(words))
    loss = _num(c.get("loss"))
    if loss:
        scope = " multicast" if c.get("loss_scope") == "multicast" else ""
        parts.append(f"loss {loss * 100:g}%{scope}")
    if c.get("fault") not in (None, "none", ""):
        parts.append(f"fault {c['fault']}")
    return parts


def _shape_label(name: str, v: Any) -> str:
    if name == "hosts":
        return f"{v} hosts"
    if name == "interval_s":
        x = _num(v)
        return "root waits" if not x else f"every {x * 1e3:g} ms"
    if name == "groups":
        return f"{v} group{'s' if v != 1 else ''}"
    if name in ("mode", "topology"):
        return str(v)
    return f"{name} {v}"


def _cond_order(cond: Cond) -> tuple[Any, ...]:
    c = dict(cond)
    fields = (*ENV_FIELDS, "hosts", "interval_s", "groups", "mode", "topology")
    return (len(_env_parts(c)), tuple(_sortable(c.get(f)) for f in fields),
            tuple((k, _sortable(v)) for k, v in cond if k not in fields))


def _varying(conds: Iterable[Cond]) -> set[str]:
    values: dict[str, set[Any]] = defaultdict(set)
    conds = list(conds)
    for cond in conds:
        for k, v in cond:
            values[k].add(v)
    keys = {k for cond in conds for k, _ in cond}
    return {k for k in keys if len(values[k]) > 1 or any(k not in dict(c) for c in conds)}


def _labels(conds: Iterable[Cond], varying: Collection[str],
            omit: Collection[str] = ()) -> dict[Cond, str]:
    """Short condition names ("quiet", "traffic uniform 0.2 + loss 5%", "..., 16 hosts"):
    the environment always, the shape of the run only where it varies; names that would
    collide get the differing fields appended."""
    out: dict[Cond, str] = {}
    for cond in conds:
        c = dict(cond)
        shape = [_shape_label(k, c.get(k)) for k, _ in cond
                 if k in varying and k not in ENV_FIELDS and k not in omit]
        out[cond] = ", ".join([" + ".join(_env_parts(c)) or "quiet", *shape])
    same: dict[str, list[Cond]] = defaultdict(list)
    for cond, label in out.items():
        same[label].append(cond)
    for label, group in same.items():
        if len(group) < 2:
            continue
        keys = sorted({k for cond in group for k, _ in cond} - set(omit))
        differ = [k for k in keys if len({dict(c).get(k) for c in group}) > 1]
        for cond in group:
            out[cond] = f"{label} ({', '.join(f'{k}={dict(cond).get(k)}' for k in differ)})"
    return out


# ---- formatting ------------------------------------------------------------------------
def _fmt_ms(v: float | None) -> str:
    """Two to three significant digits: a headline, not a measurement log."""
    if v is None:
        return "-"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def _fmt_size(n: int | None) -> str:
    return "? B" if n is None else size_text(n)


def _fmt_time(s: float) -> str:
    return f"{s * 1e3:.3g} ms" if s >= 1e-3 else f"{s * 1e6:.3g} µs"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.9g}"
    return json.dumps(v, sort_keys=True) if isinstance(v, list | dict) else v


# ---- summary.csv ------------------------------------------------------------------------
def _write_csv(path: Path, points: list[Point]) -> None:
    keys = {k for p in points for k in p.config()}
    fields = [*CONFIG_FIELDS, *sorted(keys - set(CONFIG_FIELDS))]
    header = ["index", "status", "flagged", *fields, "median_ms", "p10_ms", "p90_ms",
              "predicted_ms", "accepted_load", "cpu_busy", "samples", "flags", "error"]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for p in points:
            cfg = p.config()
            row = [p.index, p.status, p.flagged, *(cfg.get(k) for k in fields), p.median_ms,
                   p.p10_ms, p.p90_ms, p.predicted_ms, p.accepted, p.cpu_busy, p.samples,
                   "; ".join(p.flags), p.error]
            w.writerow([_csv_value(v) for v in row])


# ---- headline tables --------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    text: str  # as in summary.txt: "1.23", "1.23*", "4.5!", "failed", "-"
    value: str  # the number alone
    best: bool
    flagged: bool
    failed: bool
    tip: str


@dataclass(frozen=True)
class Table:
    title: str
    header: list[str]
    rows: list[tuple[str, list[Cell]]]
    fastest: str


def _cell(points: list[Point], best_ms: float | None) -> Cell:
    p = _pick(points)
    if p is None:
        if not points:
            return Cell("-", "-", False, False, False, "not run")
        errors = "; ".join(sorted({q.error or "failed" for q in points}))
        return Cell("failed", "failed", False, False, True, f"failed: {errors}")
    best = best_ms is not None and p.median_ms == best_ms
    tip = (f"median {_fmt_ms(p.median_ms)} ms, p10 {_fmt_ms(p.p10_ms)}, "
           f"p90 {_fmt_ms(p.p90_ms)} ms, {_plural(p.samples, 'sample')}")
    if p.predicted_ms is not None:
        tip += f"; model {_fmt_ms(p.predicted_ms)} ms"
    if p.flagged:
        tip += "; flagged: " + ("; ".join(p.flags) or "fidelity check failed")
    value = _fmt_ms(p.median_ms)
    text = value + ("*" if best else "") + ("!" if p.flagged else "")
    return Cell(text, value, best, p.flagged, False, tip)


def _table(title: str, group: list[Point], varying: set[str]) -> Table:
    conds = sorted({_without(p.cond, "hosts") for p in group}, key=_cond_order)
    labels = _labels(conds, varying, omit=("hosts",))
    algs = sorted({p.algorithm for p in group}, key=_alg_order)
    by: dict[tuple[str, Cond], list[Point]] = defaultdict(list)
    for p in group:
        by[(p.algorithm, _without(p.cond, "hosts"))].append(p)
    best: dict[Cond, float | None] = {}
    fastest = []
    for c in conds:
        picks = [(q.median_ms, a) for a in algs if (q := _pick(by[(a, c)])) and q.median_ms
                 is not None]
        best[c] = min(picks)[0] if picks else None
        if picks:
            tied = " = ".join(a for ms, a in picks if ms == best[c])
            fastest.append(f"{labels[c]}: {tied} {_fmt_ms(best[c])} ms")
    rows = [(a, [_cell(by[(a, c)], best[c]) for c in conds]) for a in algs]
    return Table(title, ["algorithm", *(labels[c] for c in conds)], rows,
                 "; ".join(fastest) or "no point succeeded")


def _tables(points: list[Point], varying: set[str]) -> list[Table]:
    """One table per message size (and per communicator size when the run varied it)."""
    hosts_all = sorted({p.hosts for p in points}, key=_sortable)
    split = len(hosts_all) > 1
    out = []
    for size in sorted({p.size for p in points}, key=_sortable):
        for hosts in hosts_all:
            group = [p for p in points if p.size == size and (not split or p.hosts == hosts)]
            if group:
                where = f" on {hosts} hosts" if hosts is not None else ""
                out.append(_table(f"{_fmt_size(size)}{where}", group, varying))
            if not split:
                break
    return out


# ---- plots ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Figure:
    path: Path
    caption: str


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(plt: Any, fig: Any, path: Path) -> None:
    """PNG in 256 colours: a quarter of the bytes, which matters once every plot is embedded
    in the HTML. No Software tag: it carries a URL, and the report references nothing."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    buf.seek(0)
    with Image.open(buf) as img:
        img.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(
            path, format="png", optimize=True)


def _grid(plt: Any, n: int, sharey: bool) -> tuple[Any, list[Any]]:
    cols = min(n, 3)
    rows = math.ceil(n / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.3 * cols + 1.6, 3.4 * rows),
                             sharey=sharey, squeeze=False, layout="constrained")
    flat = [ax for row in axes for ax in row]
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def _log_y(ax: Any) -> None:
    """Log y with plain numbers (0.2, 5, 300), labelling 2, 3 and 5 between the powers of
    ten when the axis spans too little to show more than one of them."""
    from matplotlib.ticker import FuncFormatter

    def minor(v: float, _: Any) -> str:
        lo, hi = ax.get_ylim()
        if v <= 0 or lo <= 0 or hi / lo > 30:
            return ""
        mantissa = round(v / 10 ** math.floor(math.log10(v)), 6)
        return f"{v:g}" if mantissa in (2, 3, 5) else ""

    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(FuncFormatter(minor))


def _x_ticks(ax: Any, values: list[float], label: Callable[[float], str]) -> None:
    """Ticks at the values measured (when few), labelled as people say them (64 KiB)."""
    from matplotlib.ticker import FuncFormatter, NullLocator

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: label(v)))
    if 1 < len(values) <= 8:
        ax.set_xticks(values)
        ax.xaxis.set_minor_locator(NullLocator())


def _series(ax: Any, points: list[Point], x_of: Callable[[Point], float | None],
            alg: str) -> bool:
    """One algorithm's line: medians with p10-p90 whiskers, hollow markers where flagged,
    the model's prediction dotted. False if nothing could be drawn."""
    at: dict[float, list[Point]] = defaultdict(list)
    for p in points:
        x = x_of(p)
        if p.ok and x is not None and p.median_ms and p.median_ms > 0:
            at[x].append(p)
    picked = [(x, q) for x in sorted(at) if (q := _pick(at[x])) is not None]
    if not picked:
        return False
    xs = [x for x, _ in picked]
    ys = [q.median_ms or 0.0 for _, q in picked]
    lo = [max(0.0, y - (q.p10_ms if q.p10_ms is not None else y)) for y, (_, q) in
          zip(ys, picked, strict=True)]
    hi = [max(0.0, (q.p90_ms if q.p90_ms is not None else y) - y) for y, (_, q) in
          zip(ys, picked, strict=True)]
    color = _color(alg)
    ax.errorbar(xs, ys, yerr=[lo, hi], color=color, lw=1.5, elinewidth=0.8, capsize=2)
    for flagged in (False, True):
        sel = [(x, y) for x, y, (_, q) in zip(xs, ys, picked, strict=True)
               if q.flagged == flagged]
        if sel:
            ax.plot(*zip(*sel, strict=True), "o", ls="none", ms=5.5, mec=color, mew=1.5,
                    mfc="white" if flagged else color, zorder=3)
    model = [(x, q.predicted_ms) for x, (_, q) in zip(xs, picked, strict=True)
             if q.predicted_ms]
    if model:
        ax.plot(*zip(*model, strict=True), ":", color=color, lw=1.2, alpha=0.8)
    return True


def _legend(fig: Any, algs: list[str], flagged: bool, model: bool) -> None:
    from matplotlib.lines import Line2D

    handles = [Line2D([], [], color=_color(a), marker="o", label=a) for a in algs]
    if flagged:
        handles.append(Line2D([], [], color="grey", marker="o", mfc="white", ls="none",
                              label="flagged"))
    if model:
        handles.append(Line2D([], [], color="grey", ls=":", label="model"))
    fig.legend(handles=handles, loc="outside right upper", fontsize=8, frameon=False)


Panel = tuple[str, list[Point]]


def _line_figures(plt: Any, out: Path, name: str, panels: list[Panel],
                  x_of: Callable[[Point], float | None], xlabel: str, xscale: dict[str, Any],
                  caption: str, sharey: bool,
                  xlabels: Callable[[float], str] | None = None) -> list[Figure]:
    chunks = [panels[i:i + MAX_PANELS] for i in range(0, len(panels), MAX_PANELS)]
    figures = []
    for n, chunk in enumerate(chunks, 1):
        fig, axes = _grid(plt, len(chunk), sharey)
        drawn: set[str] = set()
        for ax, (title, pts) in zip(axes, chunk, strict=True):
            for alg in sorted({p.algorithm for p in pts}, key=_alg_order):
                if _series(ax, [p for p in pts if p.algorithm == alg], x_of, alg):
                    drawn.add(alg)
            ax.set_xscale(**xscale)
            if xlabels is not None:
                _x_ticks(ax, sorted({x for p in pts if p.ok and (x := x_of(p)) is not None}),
                         xlabels)
            _log_y(ax)
            ax.set_title(title, fontsize=9)
            ax.set_xlabel(xlabel, fontsize=8)
            ax.grid(True, which="major", alpha=0.3)
        axes[0].set_ylabel("median t_mcast (ms)")
        pts_all = [p for _, pts in chunk for p in pts if p.ok]
        _legend(fig, sorted(drawn, key=_alg_order), any(p.flagged for p in pts_all),
                any(p.predicted_ms for p in pts_all))
        path = out / (f"{name}.png" if len(chunks) == 1 else f"{name}-{n}.png")
        _save(plt, fig, path)
        part = f" (part {n} of {len(chunks)})" if len(chunks) > 1 else ""
        figures.append(Figure(path, caption + part))
    return figures


def _size_plot(plt: Any, out: Path, points: list[Point], varying: set[str]) -> list[Figure]:
    ok = [p for p in points if p.ok and p.size is not None]
    if len({p.size for p in ok}) < 2:
        return []
    conds = sorted({p.cond for p in ok}, key=_cond_order)
    labels = _labels(conds, varying)
    panels = [(labels[c], [p for p in ok if p.cond == c]) for c in conds]
    scale = {"value": "symlog", "linthresh": 1} if any(p.size == 0 for p in ok) else \
        {"value": "log", "base": 2}
    return _line_figures(
        plt, out, "latency-vs-size", panels, lambda p: p.size, "message size (bytes)", scale,
        "Median broadcast latency against message size (log-log), one panel per condition and "
        "one line per algorithm; whiskers span p10 to p90, dotted lines are the model's "
        "predictions and hollow markers flagged points.", sharey=True,
        xlabels=lambda v: _fmt_size(round(v)) if v >= 0 else "")


def _hosts_plot(plt: Any, out: Path, points: list[Point], varying: set[str]) -> list[Figure]:
    ok = [p for p in points if p.ok and p.hosts is not None]
    if len({p.hosts for p in ok}) < 2:
        return []
    keys = sorted({(p.size, _without(p.cond, "hosts")) for p in ok},
                  key=lambda k: (_sortable(k[0]), _cond_order(k[1])))
    labels = _labels({c for _, c in keys}, varying, omit=("hosts",))
    panels = []
    for size, c in keys:
        pts = [p for p in ok if p.size == size and _without(p.cond, "hosts") == c]
        if len({p.hosts for p in pts}) > 1:
            panels.append((f"{_fmt_size(size)}, {labels[c]}", pts))
    if not panels:
        return []
    return _line_figures(
        plt, out, "latency-vs-hosts", panels, lambda p: p.hosts, "communicator size (ranks)",
        {"value": "log", "base": 2},
        "Median latency against communicator size, one panel per message size and condition; "
        "whiskers span p10 to p90, hollow markers are flagged points.", sharey=False,
        xlabels=lambda v: f"{v:g}")


def _load_plot(plt: Any, out: Path, points: list[Point], varying: set[str]) -> list[Figure]:
    ok = [p for p in points if p.ok and p.load_x is not None]
    loaded = [p for p in ok if not _no_traffic(p.config().get("traffic"))]
    if not loaded or len({tuple(dict(p.cond).get(f) for f in TRAFFIC_FIELDS) for p in ok}) < 2:
        return []

    def rest(p: Point) -> Cond:
        return _without(p.cond, *TRAFFIC_FIELDS)

    keys = sorted({(p.size, str(p.config().get("traffic")), str(p.config().get("pattern")),
                    rest(p)) for p in loaded},
                  key=lambda k: (_sortable(k[0]), k[1], k[2], _cond_order(k[3])))
    labels = _labels({k[3] for k in keys}, varying)
    panels = []
    for size, traffic, pattern, r in keys:
        pts = [p for p in ok if p.size == size and rest(p) == r and (
            _no_traffic(p.config().get("traffic")) or (str(p.config().get("traffic")),
                                                        str(p.config().get("pattern")))
            == (traffic, pattern))]
        name = traffic if pattern in (traffic, "None") else f"{traffic} {pattern}"
        other = labels[r].removeprefix("quiet").removeprefix(", ")
        other = f", {other}" if other else ""
        panels.append((f"{_fmt_size(size)}, traffic {name}{other}", pts))
    return _line_figures(
        plt, out, "latency-vs-load", panels, lambda p: p.load_x,
        "accepted load (fraction of link capacity)", {"value": "linear"},
        "Median latency against the accepted background load (the requested load where the "
        "generators reported none; quiet runs at 0), one panel per message size and traffic "
        "pattern; hollow markers are flagged points.", sharey=False)


def _bars(ax: Any, pts: list[Point], conds: list[Cond]) -> None:
    """Grouped bars: one group per algorithm, one bar per condition (`conds` without hosts),
    hatched where flagged."""
    algs = sorted({p.algorithm for p in pts}, key=_alg_order)
    width = 0.8 / max(1, len(conds))
    for j, c in enumerate(conds):
        color = CONDITION_COLORS[j % len(CONDITION_COLORS)]
        for i, alg in enumerate(algs):
            q = _pick(p for p in pts if p.algorithm == alg and _without(p.cond, "hosts") == c)
            if q is None or q.median_ms is None:
                continue
            y = q.median_ms
            err = [[max(0.0, y - (q.p10_ms if q.p10_ms is not None else y))],
                   [max(0.0, (q.p90_ms if q.p90_ms is not None else y) - y)]]
            ax.bar(i - 0.4 + width * (j + 0.5), y, width, yerr=err, capsize=2, lw=1,
                   color="white" if q.flagged else color, edgecolor=color,
                   hatch="////" if q.flagged else None,
                   error_kw={"elinewidth": 0.8, "ecolor": "#333"})
    ax.set_xticks(range(len(algs)), algs, rotation=30, ha="right", fontsize=8)
    ax.grid(True, axis="y", alpha=0.3)


def _effect_plots(plt: Any, out: Path, points: list[Point],
                  varying: set[str]) -> list[Figure]:
    """Per message size, each algorithm's median under every condition side by side (one
    panel per communicator size)."""
    from matplotlib.patches import Patch

    ok = [p for p in points if p.ok]
    figures = []
    for size in sorted({p.size for p in ok}, key=_sortable):
        at = [p for p in ok if p.size == size]
        hosts = sorted({p.hosts for p in at}, key=_sortable)
        conds = sorted({_without(p.cond, "hosts") for p in at}, key=_cond_order)
        labels = _labels(conds, varying, omit=("hosts",))
        fig, axes = _grid(plt, len(hosts), sharey=False)
        for ax, h in zip(axes, hosts, strict=True):
            _bars(ax, [p for p in at if p.hosts == h], conds)
            ax.set_title(_fmt_size(size) + (f" on {h} hosts" if h is not None else ""),
                         fontsize=9)
        axes[0].set_ylabel("median t_mcast (ms)")
        handles = [Patch(color=CONDITION_COLORS[j % len(CONDITION_COLORS)], label=labels[c])
                   for j, c in enumerate(conds)]
        if any(p.flagged for p in at):
            handles.append(Patch(facecolor="white", edgecolor="grey", hatch="////",
                                 label="flagged"))
        fig.legend(handles=handles, loc="outside right upper", fontsize=8, frameon=False)
        path = out / f"condition-effect-{size}.png"
        _save(plt, fig, path)
        figures.append(Figure(path, f"Median latency at {_fmt_size(size)} for each algorithm "
                                    "under each condition (whiskers p10 to p90); hatched bars "
                                    "are flagged points, a missing bar failed or was not run."))
    return figures


# ---- trees ------------------------------------------------------------------------------
def _measured(params: Any) -> MeasuredPointToPoint | None:
    try:
        order = sorted(range(len(params["sizes"])), key=lambda i: params["sizes"][i])
        return MeasuredPointToPoint(tuple(params["sizes"][i] for i in order),
                                    tuple(params["t_hold_s"][i] for i in order),
                                    tuple(params["t_end_s"][i] for i in order))
    except (KeyError, TypeError, IndexError, ValueError):
        return None


def _opt_params(nbytes: int, config: Mapping[str, Any]) -> tuple[dict[str, float], str]:
    p2p = _measured(config.get("params"))
    if p2p is not None:
        hold, end = p2p.t_hold(nbytes), p2p.t_end(nbytes)
        if hold > 0 and end > 0:
            return {"t_hold": hold, "t_end": end}, (
                f"t_hold = {_fmt_time(hold)} and t_end = {_fmt_time(end)}, interpolated "
                f"from the run's measured point-to-point parameters at {_fmt_size(nbytes)}")
    hold, end = TREE_DEFAULT_TIMES
    return {"t_hold": hold, "t_end": end}, (
        f"t_hold = {hold:g} and t_end = {end:g} (the run has no measured point-to-point "
        "parameters, so the shape is illustrative)")


def _tree_edges(schedule: Schedule) -> list[tuple[int, int, str]]:
    """(parent, child, send order) from each rank's plain sends: the tree of a schedule (a
    fragmented chain's fragments collapse into one edge, scatter-allgather's ring is left
    out)."""
    edges = []
    for rank, prog in enumerate(schedule.programs):
        peers: list[int] = []
        for op in prog:
            if isinstance(op, Send) and op.peer not in peers:
                peers.append(op.peer)
                edges.append((rank, op.peer, str(len(peers))))
    return edges


def _tree(alg: str, k: int, nbytes: int,
          config: Mapping[str, Any]) -> tuple[list[tuple[int, int, str]], bool, str] | None:
    """(edges, multicast?, note) of `alg` on k ranks, or None if it has no known shape."""
    if alg in MULTICAST_NOTES:
        return [(0, r, "") for r in range(1, k)], True, \
            f"the root multicasts the message to all {k} ranks at once; {MULTICAST_NOTES[alg]}"
    if alg != "dyn-tree" and alg not in ALGORITHMS:
        return None
    params: dict[str, Any] = {}
    note = TREE_NOTES.get(alg, "")
    if alg in ("opt-tree", "dyn-tree"):
        params, why = _opt_params(nbytes, config)
        note = (f"OPT-Tree for {why}." if alg == "opt-tree" else
                "DYN-Tree adapts at run time (under load each forwarding rank re-splits its "
                f"range from its own send cost); at zero load it is this OPT-Tree, for {why}.")
    elif alg == "fragmented-chain":
        spec = config.get("spec") or {}
        frag = _int(spec.get("fragment")) or DEFAULT_FRAGMENT
        params = {"fragment": frag}
        note = (f"each rank forwards to the next, pipelined in "
                f"{_plural(max(1, math.ceil(nbytes / frag)), 'fragment')} of {frag} B"
                f"{'' if spec.get('fragment') else ' (the schedule default)'}.")
    schedule = build("opt-tree" if alg == "dyn-tree" else alg, k, 0, nbytes, **params)
    return _tree_edges(schedule), False, note


def _tree_layout(k: int, edges: list[tuple[int, int, str]]) -> dict[int, tuple[float, float]]:
    """Root on top, one row per depth, leaves left to right in send order, a parent centred
    over its children (iterative: a chain of many ranks is deep)."""
    children: dict[int, list[int]] = defaultdict(list)
    for s, r, _ in edges:
        children[s].append(r)
    pos: dict[int, tuple[float, float]] = {}
    x = 0.0
    seen = {0}
    stack: list[tuple[int, int, bool]] = [(0, 0, False)]
    while stack:
        node, depth, done = stack.pop()
        kids = [c for c in children.get(node, []) if c in pos] if done else \
            [c for c in children.get(node, []) if c not in seen]
        if done:
            pos[node] = ((pos[kids[0]][0] + pos[kids[-1]][0]) / 2, -depth)
        elif not kids:
            pos[node], x = (x, -depth), x + 1
        else:
            seen.update(kids)
            stack.append((node, depth, True))
            stack.extend((c, depth + 1, False) for c in reversed(kids))
    bottom = min((y for _, y in pos.values()), default=0.0) - 1
    for n in range(k):
        if n not in pos:
            pos[n], x = (x, bottom), x + 1
    return pos


def _draw_tree(plt: Any, path: Path, title: str, k: int, edges: list[tuple[int, int, str]],
               multicast: bool) -> None:
    import networkx as nx

    pos = _tree_layout(k, edges)
    width = len({x for x, _ in pos.values()})
    depth = -min(y for _, y in pos.values())
    fig, ax = plt.subplots(figsize=(min(14.0, max(3.5, 0.5 * width + 1)),
                                    min(12.0, max(2.5, 0.8 * (depth + 1) + 0.8))))
    g = nx.DiGraph()
    g.add_nodes_from(range(k))
    g.add_edges_from((s, r) for s, r, _ in edges)
    size = 420 if k <= 16 else 260 if k <= 40 else 140
    nx.draw_networkx_nodes(g, pos, ax=ax, node_size=size, edgecolors="#1f4e79",
                           node_color=["#f2a541" if n == 0 else "#d6e6f5" for n in g])
    nx.draw_networkx_labels(g, pos, ax=ax, font_size=8 if k <= 40 else 6)
    nx.draw_networkx_edges(g, pos, ax=ax, node_size=size, arrows=True, arrowsize=10,
                           edge_color="#555", style="dashed" if multicast else "solid")
    if not multicast:
        nx.draw_networkx_edge_labels(g, pos, ax=ax, font_size=7, rotate=False,
                                     edge_labels={(s, r): o for s, r, o in edges})
    ax.set_title(title, fontsize=10)
    ax.axis("off")
    fig.tight_layout()
    _save(plt, fig, path)


def _tree_plots(plt: Any, out: Path, points: list[Point],
                config: Mapping[str, Any]) -> tuple[list[Figure], list[str]]:
    """The tree of every algorithm run at the largest communicator size, at the largest
    message size it ran there; notes for those without a shape to draw."""
    hosts = [p.hosts for p in points if p.hosts]
    if not hosts:
        return [], ["No communicator size was recorded, so no tree is drawn."]
    k = max(hosts)
    figures, notes = [], []
    for alg in sorted({p.algorithm for p in points if p.hosts == k}, key=_alg_order):
        nbytes = max((p.size or 0 for p in points if p.hosts == k and p.algorithm == alg),
                     default=0)
        try:
            figure = _one_tree(plt, out, alg, k, nbytes, config)
        except Exception as exc:
            plt.close("all")
            notes.append(f"{alg}: the tree could not be drawn: {exc!r}")
            continue
        if figure is None:
            why = ("MPICH's own MPI_Bcast chooses its algorithm inside the library"
                   if alg == "mpich" else "no schedule is known for it")
            notes.append(f"{alg}: not drawn, {why}.")
        else:
            figures.append(figure)
    return figures, notes


def _one_tree(plt: Any, out: Path, alg: str, k: int, nbytes: int,
              config: Mapping[str, Any]) -> Figure | None:
    tree = _tree(alg, k, nbytes, config)
    if tree is None:
        return None
    edges, multicast, note = tree
    path = out / f"tree-{alg}.png"
    title = f"{alg}: {k} ranks, {_fmt_size(nbytes)}" + \
        (", IP multicast (repair not drawn)" if multicast else "") + \
        (" (the scatter; the ring allgather is not drawn)" if alg == "scatter-allgather" else "")
    _draw_tree(plt, path, title, k, edges, multicast)
    how = ("dashed edges are one multicast" if multicast else
           "edge numbers give the order in which a parent sends to its children")
    return Figure(path, f"{alg} on {k} ranks (rank 0 the root, on top; {how}): {note}")


# ---- all plots --------------------------------------------------------------------------
@dataclass
class Plots:
    figures: list[Figure] = field(default_factory=list)
    trees: list[Figure] = field(default_factory=list)
    tree_notes: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _attempt(plots: Plots, plt: Any, what: str, draw: Callable[[], list[Figure]]) -> None:
    """A plot that cannot be drawn costs a note in the report, never the report."""
    try:
        plots.figures += draw()
    except Exception as exc:
        plt.close("all")
        plots.problems.append(f"The {what} plot could not be drawn: {exc!r}")


def _plots(out: Path, points: list[Point], varying: set[str],
           config: Mapping[str, Any]) -> Plots:
    plots = Plots()
    if not points:
        return plots
    out.mkdir(exist_ok=True)
    plt = _pyplot()
    for what, fn in (("message size", _size_plot), ("communicator size", _hosts_plot),
                     ("load", _load_plot), ("condition effect", _effect_plots)):
        _attempt(plots, plt, what, lambda fn=fn: fn(plt, out, points, varying))
    plots.trees, plots.tree_notes = _tree_plots(plt, out, points, config)
    return plots


# ---- summary.txt ------------------------------------------------------------------------
@dataclass(frozen=True)
class Counts:
    planned: int | None
    measured: int
    ok: int
    failed: int
    flagged: int

    def sentence(self) -> str:
        planned = f" of {self.planned} planned" if self.planned is not None else ""
        return (f"{_plural(self.measured, 'point')} measured{planned}: {self.ok} ok, "
                f"{self.failed} failed, {self.flagged} flagged.")


def _counts(points: list[Point], config: Mapping[str, Any]) -> Counts:
    return Counts(_int(config.get("points")), len(points), sum(p.ok for p in points),
                  sum(not p.ok for p in points), sum(p.flagged for p in points))


def _title(config: Mapping[str, Any], run_dir: Path) -> str:
    spec = config.get("spec") or {}
    return str(config.get("spec_name") or spec.get("name") or run_dir.name)


def _summary_text(title: str, run_dir: Path, points: list[Point], tables: list[Table],
                  counts: Counts, report: Path, unfinished: bool) -> str:
    lines = [f"{title} ({run_dir.name})"]
    if not points:
        planned = f" ({counts.planned} planned)" if counts.planned else ""
        lines += ["Nothing was measured: records.jsonl holds no points" + planned + ".",
                  f"report: {report}"]
        return "\n".join(lines) + "\n"
    lines.append(counts.sentence() + (" The run did not finish." if unfinished else ""))
    for t in tables:
        lines += ["", f"{t.title} (median ms)",
                  text_table(t.header, [[alg, *(c.text for c in cells)] for alg, cells in t.rows]),
                  f"fastest: {t.fastest}"]
    lines += ["", "* fastest in its column, ! flagged (the emulator could not keep up, the "
                  "number is suspect), failed = no result."]
    reasons = Counter(f for p in points if p.flagged for f in (p.flags or ("(no reason given)",)))
    lines += [f"flag: {reason}: {_plural(n, 'point')}" for reason, n in reasons.most_common()]
    if counts.failed:
        lines.append(f"failed: {_plural(counts.failed, 'point')} (errors in the report)")
    lines.append(f"report: {report}")
    return "\n".join(lines) + "\n"


# ---- report.html ------------------------------------------------------------------------
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
td.best.flagged{background:linear-gradient(90deg,#cfeccf 50%,#fff0d0 50%)}
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


def _img(fig: Figure) -> str:
    data = base64.b64encode(fig.path.read_bytes()).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_e(fig.path.stem)}">'
            f"<figcaption>{_e(fig.caption)}</figcaption></figure>")


def _html_cell(c: Cell) -> str:
    classes = [n for n, on in (("best", c.best), ("flagged", c.flagged), ("failed", c.failed),
                               ("missing", c.value == "-")) if on]
    mark = '<span class="mark">&thinsp;!</span>' if c.flagged else ""
    return f'<td class="{" ".join(classes)}" title="{_e(c.tip)}">{_e(c.value)}{mark}</td>'


def _html_table(t: Table) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in t.header)
    body = "".join(f'<tr><td class="alg">{_e(alg)}</td>{"".join(map(_html_cell, cells))}</tr>'
                   for alg, cells in t.rows)
    return (f"<h3>{_e(t.title)} <span class='note'>(median ms)</span></h3>"
            f"<table><tr>{head}</tr>{body}</table><p class='note'>Fastest: {_e(t.fastest)}</p>")


def _list(values: Iterable[Any]) -> str:
    return ", ".join(str(v) for v in values) or "none recorded"


def _what_was_run(points: list[Point], config: Mapping[str, Any], varying: set[str],
                  counts: Counts, unfinished: bool) -> str:
    topology = config.get("topology")
    topo = (topology.get("name") if isinstance(topology, Mapping) else topology) or _list(
        sorted({str(p.config().get("topology")) for p in points if p.config().get("topology")}))
    hosts = sorted({p.hosts for p in points if p.hosts is not None})
    algs = sorted({p.algorithm for p in points}, key=_alg_order)
    sizes = [_fmt_size(s) for s in sorted({p.size for p in points if p.size is not None})]
    conds = sorted({_without(p.cond, "hosts") for p in points}, key=_cond_order)
    labels = _labels(conds, varying, omit=("hosts",))
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
    x = _num(v)
    return "-" if x is None else f"{x:.3g}"


def _point_cells(p: Point, labels: Mapping[Cond, str]) -> str:
    return (f"<td>{_e(p.index if p.index is not None else '?')}</td>"
            f"<td class='left'>{_e(p.algorithm)}</td><td>{_e(_fmt_size(p.size))}</td>"
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
        f"<tr>{_point_cells(p, labels)}<td>{_e(_fmt_ms(p.median_ms))}</td>"
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


def _html(title: str, run_dir: Path, config: Mapping[str, Any], points: list[Point],
          tables: list[Table], plots: Plots, counts: Counts, varying: set[str],
          unfinished: bool) -> str:
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
    labels = _labels({p.cond for p in points}, varying)
    if not points:
        planned = f" ({counts.planned} planned)" if counts.planned else ""
        body.append(f"<h2>What was run</h2><p>Nothing was measured: records.jsonl holds no "
                    f"points{_e(planned)}.</p>")
    else:
        body += ["<h2>What was run</h2>",
                 _what_was_run(points, config, varying, counts, unfinished),
                 "<h2>Headline</h2>", _headline(tables)]
        if plots.figures or plots.problems:
            body += ["<h2>Plots</h2>", *map(_img, plots.figures),
                     *(f"<p class='note'>{_e(n)}</p>" for n in plots.problems)]
        body += ["<h2>Broadcast trees</h2><div class='trees'>", *map(_img, plots.trees),
                 "</div>", *(f"<p class='note'>{_e(n)}</p>" for n in plots.tree_notes),
                 "<h2>Fidelity</h2>", _fidelity(points, labels),
                 "<h2>Failures</h2>", _failures(points, labels)]
    body += ["<h2>Configuration and versions</h2>", _configuration(config)]
    return (f"<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{_e(title)}</title><style>{CSS}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


# ---- entry point ------------------------------------------------------------------------
def _read_config(run_dir: Path) -> dict[str, Any]:
    path = run_dir / "config.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text() or "{}")
    return data if isinstance(data, dict) else {}


def write_report(run_dir: Path) -> str:
    """Write summary.csv, plots/*.png, summary.txt and report.html into `run_dir` from its
    config.json and records.jsonl; return the text of summary.txt (the headline)."""
    run_dir = Path(run_dir)
    config = _read_config(run_dir)
    points = [_point(r) for r in read_jsonl(run_dir / "records.jsonl") if isinstance(r, dict)]
    report = run_dir / "report.html"
    title = _title(config, run_dir)
    counts = _counts(points, config)
    # no finish time and points missing: the run stopped early (or is still going)
    unfinished = bool(config.get("started")) and not config.get("finished") and \
        (counts.planned is None or counts.measured < counts.planned)
    varying = _varying(p.cond for p in points)
    tables = _tables(points, varying)
    _write_csv(run_dir / "summary.csv", points)
    plots = _plots(run_dir / "plots", points, varying, config)
    text = _summary_text(title, run_dir, points, tables, counts, report, unfinished)
    (run_dir / "summary.txt").write_text(text)
    report.write_text(_html(title, run_dir, config, points, tables, plots, counts, varying,
                            unfinished))
    return text
