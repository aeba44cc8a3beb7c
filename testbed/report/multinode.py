"""The report of a [multinode] run (Tseng2001's multi-node multicast): summary.csv,
plots/multinode.{png,svg,pdf}, summary.txt and report.html, as a broadcast run has them.

Its quantity is not a broadcast's t_mcast but the time of all sources' multicasts at once,
from the first rank's start to the last rank's end (collectives.programs.multinode_bench),
so it gets tables of its own: per sources count and hot-spot factor, the sets drawn (when the
records carry them), every scheme's median with its p10-p90 spread, the plan's steps and worst
link sharing, delivery and fidelity, and the direct scheme (U-torus, or U-mesh on a mesh) over
the best partitioned scheme (> 1: partitioning faster) from unflagged rows only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from collectives.partitioning import DIRECT, DIRECT_MESH, SCHEME_NAMES, TITLES, sets_text

from ..results import size_text, text_table
from .figures import Figure, pyplot, rate_text
from .points import yes_no
from .text_report import Rec, TableReport, fidelity_text, flagged, save_run_figure, topology_name
from .text_report import rec_config as _cfg

DIRECTS = TITLES  # the direct scheme on a torus, on a mesh
ORDER = (DIRECT, DIRECT_MESH, *(v for k, v in SCHEME_NAMES.items() if k != "direct"))
CSV_FIELDS = ("index", "scheme", "size", "sources", "factor", "dests", "dilation", "status",
              "median_ms", "p10_ms", "p90_ms", "min_ms", "max_ms", "n", "steps",
              "max_contention", "correct")
TORUS = "a torus or mesh"  # the topology's words where the config has none


def _ms(r: Rec, key: str) -> float | None:
    value = (r.get("t_s") or {}).get(key)
    return None if value is None else value * 1e3


def _conditions(recs: Sequence[Rec]) -> list[tuple[int, float]]:
    return sorted({(_cfg(r)["sources"], _cfg(r)["factor"]) for r in recs})


def _scheme_key(name: str) -> int:
    return ORDER.index(name) if name in ORDER else len(ORDER)


def gains(recs: Sequence[Rec]) -> list[str]:
    """The direct scheme over the best partitioned one, per condition and size, unflagged
    rows."""
    out = []
    good = [r for r in recs if r.get("status") == "ok" and not flagged(r)]
    for n, p in _conditions(good):
        for size in sorted({_cfg(r)["size"] for r in good}):
            t = {_cfg(r)["algorithm"]: r["t_s"]["median"] for r in good
                 if (_cfg(r)["sources"], _cfg(r)["factor"], _cfg(r)["size"]) == (n, p, size)}
            parts = {k: v for k, v in t.items() if k not in DIRECTS}
            direct = next((k for k in DIRECTS if k in t), None)
            if direct and parts:
                best = min(parts, key=lambda k: parts[k])
                out.append(f"{n} sources, p {p:g}, {size_text(size)}: {DIRECTS[direct]} / "
                           f"{best} {t[direct] / parts[best]:.2f} (> 1: partitioning faster)")
    return out


def _table(recs: Sequence[Rec], n: int, p: float) -> str:
    rows = sorted((r for r in recs if (_cfg(r)["sources"], _cfg(r)["factor"]) == (n, p)),
                  key=lambda r: (_cfg(r)["size"], _scheme_key(_cfg(r)["algorithm"])))
    body = []
    for r in rows:
        c, plan = _cfg(r), r.get("plan") or {}
        ok = r.get("status") == "ok"
        spread = f"{_ms(r, 'p10'):.2f}-{_ms(r, 'p90'):.2f}" if ok and _ms(r, "p10") is not None \
            else "-"
        fid = fidelity_text(r)
        body.append([c["algorithm"], size_text(c["size"]),
                     f"{_ms(r, 'median'):.2f}" if ok else "failed", spread,
                     plan.get("steps", "-"), plan.get("max_contention", "-"),
                     yes_no(r.get("correct")), fid])
    return text_table(["scheme", "bytes", "median ms", "p10-p90 ms", "steps",
                       "max contention", "correct", "fidelity"], body)


def _sets(recs: Sequence[Rec], n: int, p: float) -> list[str]:
    """The condition's sets as its records carry them (one draw per condition; records
    written before they carried sets have none)."""
    drawn = next((r["sets"] for r in recs if r.get("sets")
                  and (_cfg(r)["sources"], _cfg(r)["factor"]) == (n, p)), None)
    return [f"sets (source:destinations): {sets_text(drawn)}"] if drawn else []


def head(config: Mapping[str, Any], recs: Sequence[Rec]) -> list[str]:
    """What the run measured."""
    spec = config.get("spec") or {}
    table = spec.get("multinode") or {}
    return [f"Tseng2001's multi-node multicast on {topology_name(config, TORUS)}, one rank "
            f"per node, {table.get('dests', 6)} destinations per source; the time of all "
            "sources' multicasts at once (first rank's start to last rank's end), medians of "
            f"{spec.get('repetitions', 10)} runs. Links at {rate_text(config.get('link_rate'))}."]


def body(recs: Sequence[Rec]) -> list[str]:
    """A table per sources count and hot-spot factor (with its sets), then the gains."""
    lines = []
    for n, p in _conditions(recs):
        lines += ["", f"{n} sources, hot-spot factor p {p:g}", *_sets(recs, n, p),
                  _table(recs, n, p)]
    found = gains(recs)
    if found:
        lines += ["", *found]
    return lines


def csv_row(r: Rec) -> list[Any]:
    c, plan, t = _cfg(r), r.get("plan") or {}, r.get("t_s") or {}
    return [r.get("index"), c.get("algorithm"), c.get("size"), c.get("sources"),
            c.get("factor"), c.get("dests"), c.get("dilation"), r.get("status"),
            *(_ms(r, k) for k in ("median", "p10", "p90", "min", "max")), t.get("n"),
            plan.get("steps"), plan.get("max_contention"), r.get("correct")]


def plot(out: Path, config: Mapping[str, Any], recs: Sequence[Rec]) -> Figure | None:
    """Grouped bars, one panel per message size: a group per (sources, p), a bar per
    scheme, whiskers p10-p90; a flagged bar is hatched, a failed one absent."""
    ok = [r for r in recs if r.get("status") == "ok" and r.get("t_s")]
    if not ok:
        return None
    plt = pyplot()
    sizes = sorted({_cfg(r)["size"] for r in ok})
    conds = _conditions(ok)
    schemes = sorted({_cfg(r)["algorithm"] for r in ok}, key=_scheme_key)
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.2 * len(sizes) + 1, 3.6), squeeze=False)
    width = 0.8 / len(schemes)
    for ax, size in zip(axes[0], sizes, strict=True):
        for j, scheme in enumerate(schemes):
            for i, (n, p) in enumerate(conds):
                r = next((r for r in ok if (_cfg(r)["size"], _cfg(r)["algorithm"],
                                            _cfg(r)["sources"], _cfg(r)["factor"])
                          == (size, scheme, n, p)), None)
                if r is None:
                    continue
                med, lo, hi = _ms(r, "median") or 0.0, _ms(r, "p10"), _ms(r, "p90")
                err = [[med - lo], [hi - med]] if lo is not None and hi is not None else None
                ax.bar(i + (j - (len(schemes) - 1) / 2) * width, med, width, yerr=err,
                       capsize=2, color=f"C{j}", hatch="//" if flagged(r) else None,
                       edgecolor="black", linewidth=0.4)
        ax.set_xticks(range(len(conds)), [f"{n} src\np {p:g}" for n, p in conds])
        ax.set_title(size_text(size), fontsize=10)
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel("median time, all multicasts (ms)")
    patch = plt.matplotlib.patches.Patch
    handles = [patch(facecolor=f"C{j}", edgecolor="black", label=s)
               for j, s in enumerate(schemes)]
    if any(flagged(r) for r in ok):
        handles.append(patch(facecolor="white", edgecolor="black", hatch="//",
                             label="flagged: not a result"))
    axes[0][0].legend(handles=handles, fontsize=8)
    return save_run_figure(plt, fig, out / "multinode.png", config,
                           "Median time of all sources' multicasts at once, per scheme; "
                           "whiskers p10-p90, hatched bars flagged (not a result).", TORUS)


REPORT = TableReport(CSV_FIELDS, csv_row, plot, head, body)
