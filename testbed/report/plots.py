"""Line plots of latency against message size, communicator size and load, of its growth
with the communicator (T(N)/T(fewest), with the model's), bars of each
condition's effect, and draw_plots: every plot and tree of a run (one that cannot be drawn
costs a note, never the report)."""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..safepath import make_folder
from .figures import (
    FORMATS_ENV,
    NO_RUN_PLOTS,
    Figure,
    caption_line,
    pyplot,
    rate_text,
    run_plots_drawn,
    save_figure,
)
from .points import (
    ALGORITHM_ORDER,
    Cond,
    Point,
    alg_order,
    cond_labels,
    cond_order,
    fmt_size,
    no_traffic,
    pick,
    sortable,
    without,
)
from .trees import tree_plots

PALETTE = ("#444444", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
           "#e377c2", "#bcbd22", "#17becf", "#393b79", "#ad494a", "#637939", "#7b4173",
           "#31a354", "#6b6ecf", "#e7ba52", "#843c39", "#9c9ede", "#8ca252", "#d6616b",
           "#ce6dbd", "#de9ed6", "#a55194")  # a colour for each of the 22 broadcasts (with 16,
# nack drew in binomial's and two-stage in sequential's)
CONDITION_COLORS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
                    "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
TRAFFIC_FIELDS = ("traffic", "pattern", "load")
MAX_PANELS = 6


# ---- line plots -------------------------------------------------------------------------
def _color(alg: str) -> str:
    i = ALGORITHM_ORDER.index(alg) if alg in ALGORITHM_ORDER else \
        len(ALGORITHM_ORDER) + sum(map(ord, alg))
    return PALETTE[i % len(PALETTE)]


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
    # matplotlib takes most of a second to load: only when drawing
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
    # matplotlib takes most of a second to load: only when drawing
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
    picked = [(x, q) for x in sorted(at) if (q := pick(at[x])) is not None]
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
    # matplotlib takes most of a second to load: only when drawing
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
                  caption: str, sharey: bool, foot: str,
                  xlabels: Callable[[float], str] | None = None) -> list[Figure]:
    chunks = [panels[i:i + MAX_PANELS] for i in range(0, len(panels), MAX_PANELS)]
    figures = []
    for n, chunk in enumerate(chunks, 1):
        fig, axes = _grid(plt, len(chunk), sharey)
        drawn: set[str] = set()
        for ax, (title, pts) in zip(axes, chunk, strict=True):
            for alg in sorted({p.algorithm for p in pts}, key=alg_order):
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
        _legend(fig, sorted(drawn, key=alg_order), any(p.flagged for p in pts_all),
                any(p.predicted_ms for p in pts_all))
        path = out / (f"{name}.png" if len(chunks) == 1 else f"{name}-{n}.png")
        save_figure(plt, fig, path, foot)
        part = f" (part {n} of {len(chunks)})" if len(chunks) > 1 else ""
        figures.append(Figure(path, caption + part))
    return figures


def _size_plot(plt: Any, out: Path, points: list[Point], varying: set[str],
               foot: str) -> list[Figure]:
    ok = [p for p in points if p.ok and p.size is not None]
    if len({p.size for p in ok}) < 2:
        return []
    conds = sorted({p.cond for p in ok}, key=cond_order)
    labels = cond_labels(conds, varying)
    panels = [(labels[c], [p for p in ok if p.cond == c]) for c in conds]
    scale = {"value": "symlog", "linthresh": 1} if any(p.size == 0 for p in ok) else \
        {"value": "log", "base": 2}
    return _line_figures(
        plt, out, "latency-vs-size", panels, lambda p: p.size, "message size (bytes)", scale,
        "Median broadcast latency against message size (log-log), one panel per condition and "
        "one line per algorithm; whiskers span p10 to p90, dotted lines are the model's "
        "predictions and hollow markers flagged points.", sharey=True, foot=foot,
        xlabels=lambda v: fmt_size(round(v)) if v >= 0 else "")


def _host_panels(points: list[Point], varying: set[str]) -> list[Panel]:
    """One panel per message size and condition (hosts aside) measured on several counts."""
    ok = [p for p in points if p.ok and p.hosts is not None]
    keys = sorted({(p.size, without(p.cond, "hosts")) for p in ok},
                  key=lambda k: (sortable(k[0]), cond_order(k[1])))
    labels = cond_labels({c for _, c in keys}, varying, omit=("hosts",))
    panels = []
    for size, c in keys:
        pts = [p for p in ok if p.size == size and without(p.cond, "hosts") == c]
        if len({p.hosts for p in pts}) > 1:
            panels.append((f"{fmt_size(size)}, {labels[c]}", pts))
    return panels


def _hosts_plot(plt: Any, out: Path, points: list[Point], varying: set[str],
                foot: str) -> list[Figure]:
    panels = _host_panels(points, varying)
    if not panels:
        return []
    return _line_figures(
        plt, out, "latency-vs-hosts", panels, lambda p: p.hosts, "communicator size (ranks)",
        {"value": "log", "base": 2},
        "Median latency against communicator size, one panel per message size and condition; "
        "whiskers span p10 to p90, hollow markers are flagged points.", sharey=False, foot=foot,
        xlabels=lambda v: f"{v:g}")


def relative_growth(pts: list[Point], value: Callable[[Point], float | None]
            ) -> list[tuple[int, float]]:
    """(hosts, value / value at the fewest hosts) over unflagged points with a value."""
    by_hosts = sorted((h, q) for h in {p.hosts for p in pts if p.hosts is not None}
                      if (q := pick(p for p in pts if p.hosts == h)) is not None)
    good = [(h, v) for h, q in by_hosts if not q.flagged and (v := value(q))]
    return [(h, v / good[0][1]) for h, v in good] if len(good) > 1 else []


def _growth_plot(plt: Any, out: Path, points: list[Point], varying: set[str],
                 foot: str) -> list[Figure]:
    """T(N)/T(fewest) against N per algorithm, the model's growth dotted where the run
    predicts one (the trees' t_hold/t_end model), and the flat line y = 1 that a switch's
    replication offers a multicast broadcast (Siebert2006's 0.0134 s on 2 nodes, 0.0136 s
    on 332). Flagged points are not drawn, nor taken as the base."""
    panels = _host_panels(points, varying)
    if not panels:
        return []
    fig, axes = _grid(plt, len(panels[:MAX_PANELS]), sharey=False)
    drawn: set[str] = set()
    model = False
    for ax, (title, pts) in zip(axes, panels[:MAX_PANELS], strict=True):
        for alg in sorted({p.algorithm for p in pts}, key=alg_order):
            mine = [p for p in pts if p.algorithm == alg]
            measured = relative_growth(mine, lambda q: q.median_ms)
            if measured:
                ax.plot(*zip(*measured, strict=True), "o-", color=_color(alg), lw=1.5, ms=5)
                drawn.add(alg)
            predicted = relative_growth(mine, lambda q: q.predicted_ms)
            if predicted:
                ax.plot(*zip(*predicted, strict=True), ":", color=_color(alg), lw=1.2)
                model = True
        ax.axhline(1.0, color="grey", lw=0.8, ls="--")
        ax.set_xscale("log", base=2)
        _x_ticks(ax, sorted({float(p.hosts) for p in pts if p.hosts is not None}),
                 lambda v: f"{v:g}")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("communicator size (ranks)", fontsize=8)
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel("T(N) / T(fewest ranks)")
    if not drawn:
        plt.close(fig)
        return []
    _legend(fig, sorted(drawn, key=alg_order), False, model)
    path = out / "growth-vs-hosts.png"
    save_figure(plt, fig, path, foot)
    more = (f" (the first {MAX_PANELS} of {len(panels)} panels)"
            if len(panels) > MAX_PANELS else "")
    return [Figure(path, "How each broadcast's time grows with the communicator: the median "
                   "at N ranks over the median at the fewest, one panel per message size "
                   "and condition; dotted lines are the model's growth, the dashed line is "
                   "flat (1), flagged points are left out" + more + ".")]


def _load_plot(plt: Any, out: Path, points: list[Point], varying: set[str],
               foot: str) -> list[Figure]:
    ok = [p for p in points if p.ok and p.load_x is not None]
    loaded = [p for p in ok if not no_traffic(p.config().get("traffic"))]
    if not loaded or len({tuple(dict(p.cond).get(f) for f in TRAFFIC_FIELDS) for p in ok}) < 2:
        return []

    def rest(p: Point) -> Cond:
        return without(p.cond, *TRAFFIC_FIELDS)

    keys = sorted({(p.size, str(p.config().get("traffic")), str(p.config().get("pattern")),
                    rest(p)) for p in loaded},
                  key=lambda k: (sortable(k[0]), k[1], k[2], cond_order(k[3])))
    labels = cond_labels({k[3] for k in keys}, varying)
    panels = []
    for size, traffic, pattern, r in keys:
        pts = [p for p in ok if p.size == size and rest(p) == r and (
            no_traffic(p.config().get("traffic")) or (str(p.config().get("traffic")),
                                                        str(p.config().get("pattern")))
            == (traffic, pattern))]
        name = traffic if pattern in (traffic, "None") else f"{traffic} {pattern}"
        other = labels[r].removeprefix("quiet").removeprefix(", ")
        other = f", {other}" if other else ""
        panels.append((f"{fmt_size(size)}, traffic {name}{other}", pts))
    return _line_figures(
        plt, out, "latency-vs-load", panels, lambda p: p.load_x,
        "accepted load (fraction of link capacity)", {"value": "linear"},
        "Median latency against the accepted background load (the requested load where the "
        "generators reported none; quiet runs at 0), one panel per message size and traffic "
        "pattern; whiskers span p10 to p90, hollow markers are flagged points.", sharey=False,
        foot=foot)


# ---- condition effect -------------------------------------------------------------------
def _bars(ax: Any, pts: list[Point], conds: list[Cond]) -> None:
    """Grouped bars: one group per algorithm, one bar per condition (`conds` without hosts),
    hatched where flagged."""
    algs = sorted({p.algorithm for p in pts}, key=alg_order)
    width = 0.8 / max(1, len(conds))
    for j, c in enumerate(conds):
        color = CONDITION_COLORS[j % len(CONDITION_COLORS)]
        for i, alg in enumerate(algs):
            q = pick(p for p in pts if p.algorithm == alg and without(p.cond, "hosts") == c)
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
                  varying: set[str], foot: str) -> list[Figure]:
    """Per message size, each algorithm's median under every condition side by side (one
    panel per communicator size)."""
    # matplotlib takes most of a second to load: only when drawing
    from matplotlib.patches import Patch

    ok = [p for p in points if p.ok]
    figures = []
    for size in sorted({p.size for p in ok}, key=sortable):
        at = [p for p in ok if p.size == size]
        hosts = sorted({p.hosts for p in at}, key=sortable)
        conds = sorted({without(p.cond, "hosts") for p in at}, key=cond_order)
        labels = cond_labels(conds, varying, omit=("hosts",))
        fig, axes = _grid(plt, len(hosts), sharey=False)
        for ax, h in zip(axes, hosts, strict=True):
            _bars(ax, [p for p in at if p.hosts == h], conds)
            ax.set_title(fmt_size(size) + (f" on {h} hosts" if h is not None else ""),
                         fontsize=9)
        axes[0].set_ylabel("median t_mcast (ms)")
        handles = [Patch(color=CONDITION_COLORS[j % len(CONDITION_COLORS)], label=labels[c])
                   for j, c in enumerate(conds)]
        if any(p.flagged for p in at):
            handles.append(Patch(facecolor="white", edgecolor="grey", hatch="////",
                                 label="flagged"))
        fig.legend(handles=handles, loc="outside right upper", fontsize=8, frameon=False)
        path = out / f"condition-effect-{size}.png"
        save_figure(plt, fig, path, foot)
        figures.append(Figure(path, f"Median latency at {fmt_size(size)} for each algorithm "
                                    "under each condition (whiskers p10 to p90); hatched bars "
                                    "are flagged points, a missing bar failed or was not run."))
    return figures


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


def draw_plots(out: Path, points: list[Point], varying: set[str],
               config: Mapping[str, Any]) -> Plots:
    plots = Plots()
    if not points:
        return plots
    if not run_plots_drawn():
        plots.problems.append(f"No plots and no trees drawn: ${FORMATS_ENV} was "
                              f"{NO_RUN_PLOTS} (`mcastlab report FOLDER` without it draws them).")
        return plots
    make_folder("results folder", out)
    plt = pyplot()
    foot = run_caption(config, points)
    for what, fn in (("message size", _size_plot), ("communicator size", _hosts_plot),
                     ("growth", _growth_plot), ("load", _load_plot),
                     ("condition effect", _effect_plots)):
        _attempt(plots, plt, what, functools.partial(fn, plt, out, points, varying, foot))
    plots.trees, plots.tree_notes = tree_plots(plt, out, points, config, foot)
    return plots


def _repetitions(config: Mapping[str, Any], points: list[Point]) -> str:
    """The spec's repetitions per point, and the range measured where the budget cut some."""
    spec = config.get("spec")
    planned = spec.get("repetitions") if isinstance(spec, dict) else None
    counts = sorted(n for p in points if p.ok and isinstance(p.rec.get("t_mcast_s"), dict)
                    and isinstance(n := p.rec["t_mcast_s"].get("n"), int))
    text = f"{planned} repetitions per point" if planned else ""
    if counts and (not planned or counts[0] != planned or counts[-1] != planned):
        got = f"{counts[0]}" if counts[0] == counts[-1] else f"{counts[0]}-{counts[-1]}"
        text = f"{text} ({got} measured)" if text else f"{got} repetitions per point"
    return text


def run_caption(config: Mapping[str, Any], points: list[Point]) -> str:
    """The caption line on every figure of a run: topology, link rate and dilation,
    repetitions, when it started, the commit (testbed.report.figures.caption_line)."""
    topo = config.get("topology")
    name = topo.get("name") if isinstance(topo, dict) else None
    rate = config.get("link_rate")
    versions = config.get("versions")
    return caption_line(topology=str(name) if name else None,
                        rate=rate_text(rate if isinstance(rate, dict) else None),
                        repetitions=_repetitions(config, points),
                        date=str(config["started"]) if config.get("started") else None,
                        versions=versions if isinstance(versions, dict) else None)
