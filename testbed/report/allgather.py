"""The report of an Allgather run (a spec with collective = "allgather"): summary.csv,
plots/allgather.{png,svg,pdf}, summary.txt and report.html, as a broadcast run has them.

Its quantity is an Allgather's time, from the start (every rank, idle until then, going at
one instant) to the last rank's return (collectives.programs.allgather_bench), best read
in multiples of the floor (p - 1) m / B that no Allgather beats where host links are the
bottleneck (collectives.exchanges.model).
Per condition (ranks, loss and which packets it drops) and block size: every algorithm's
median, p10-p90, multiple of the floor, the model, verification and fidelity, the fastest
unflagged one marked.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ..fidelity.link_rate import operating_point_text
from ..results import size_text, text_table
from ..specs.loss_scope import loss_text
from .allgather_loss import ok, order, scope_of, scope_tables
from .figures import Figure, pyplot, rate_text
from .points import yes_no
from .tails import HEADER as TAIL_HEADER
from .tails import INTRO as TAIL_INTRO
from .tails import LEGEND as TAIL_LEGEND
from .tails import lowest, of, shows, text_row, values, why_unstated
from .text_report import (
    Rec,
    TableReport,
    fidelity_text,
    flagged,
    save_run_figure,
    topology_name,
)
from .text_report import rec_config as _cfg

CSV_FIELDS = ("index", "algorithm", "size", "hosts", "loss", "loss_scope", "status",
              "median_ms", "p10_ms", "p90_ms", "p99_ms", "p99.9_ms", "floor_ms", "per_floor",
              "predicted_ms", "verified")


def _ms(v: Any) -> float | None:
    return None if v is None else v * 1e3


Cond = tuple[int, float, str]  # ranks, loss, its scope ("" without loss)


def _cond(r: Rec) -> Cond:
    return _cfg(r)["hosts"], _cfg(r)["loss"], scope_of(r)


def _conditions(recs: Sequence[Rec]) -> list[Cond]:
    return sorted({_cond(r) for r in recs})


def _cond_text(cond: Cond) -> str:
    """"8 ranks, loss 5% of every packet"."""
    hosts, loss, scope = cond
    return f"{hosts} ranks" + (f", {loss_text(loss, scope)}" if loss else "")


def _table(rows: Sequence[Rec]) -> str:
    good = [r for r in rows if ok(r) and not flagged(r)]
    best = min((r["t_s"]["median"] for r in good), default=None)
    body = []
    for r in sorted(rows, key=lambda r: order(_cfg(r)["algorithm"])):
        t = r.get("t_s") or {}
        mark = " *" if ok(r) and not flagged(r) and t["median"] == best else ""
        fid = fidelity_text(r)
        body.append([_cfg(r)["algorithm"] + mark,
                     f"{_ms(t['median']):.2f}" if ok(r) else "failed",
                     f"{_ms(t['p10']):.2f}-{_ms(t['p90']):.2f}" if ok(r) else "-",
                     f"{r['per_floor']:.2f}" if ok(r) and r.get("per_floor") else "-",
                     f"{_ms(r['predicted_s']):.2f}" if r.get("predicted_s") else "-",
                     yes_no(r.get("verified")), fid])
    return text_table(["algorithm", "median ms", "p10-p90 ms", "x floor", "model ms",
                       "verified", "fidelity"], body)


def _tails(rows: Sequence[Rec]) -> list[str]:
    """The tail of the rows that show one (testbed.report.tails), the lowest unflagged
    value of each level marked."""
    shown = sorted((r for r in rows if ok(r) and shows(_cfg(r))),
                   key=lambda r: order(_cfg(r)["algorithm"]))
    if not shown:
        return []
    best = lowest((values(of(r)), flagged(r)) for r in shown)
    return ["", "its tail (ms; n/s: below)", text_table(TAIL_HEADER, [
        [_cfg(r)["algorithm"], *text_row(of(r), best, flagged(r))] for r in shown])]


def head(config: Mapping[str, Any], recs: Sequence[Rec]) -> list[str]:
    """What the run measured, and the operating point it ran at."""
    spec = config.get("spec") or {}
    return [f"Allgather on {topology_name(config)}: the time from the start "
            "(every rank going at one instant) to the last rank's return, medians of "
            f"{spec.get('repetitions', 10)} runs, and in multiples of the floor (p-1)m/B "
            "(every rank takes in the other blocks through its own link). "
            f"Links at {rate_text(config.get('link_rate'))}.",
            *([f"The whole sweep ran at the {operating_point_text(op)}."]
              if isinstance(op := config.get("operating_point"), dict) else [])]


def body(recs: Sequence[Rec]) -> list[str]:
    """The loss side by side, then a table (and its tail) per condition and block size."""
    lines = scope_tables(recs)
    for cond in _conditions(recs):
        at = [r for r in recs if _cond(r) == cond]
        for size in sorted({_cfg(r)["size"] for r in at}):
            floor = next((r.get("floor_s") for r in at if _cfg(r)["size"] == size
                          and r.get("floor_s")), None)
            lines += ["", f"{size_text(size)} blocks, {_cond_text(cond)}"
                      + (f" (floor {floor * 1e3:.2f} ms)" if floor else ""),
                      _table([r for r in at if _cfg(r)["size"] == size])]
            lines += _tails([r for r in at if _cfg(r)["size"] == size])
    tailed = [r for r in recs if ok(r) and shows(_cfg(r))]
    if tailed:
        lines += ["", f"The tail: {TAIL_INTRO} {TAIL_LEGEND}", *why_unstated(tailed)]
    return lines


def csv_row(r: Rec) -> list[Any]:
    c, t, tail = _cfg(r), r.get("t_s") or {}, of(r) or {}
    return [r.get("index"), c.get("algorithm"), c.get("size"), c.get("hosts"), c.get("loss"),
            scope_of(r) or None, r.get("status"), _ms(t.get("median")), _ms(t.get("p10")),
            _ms(t.get("p90")), *(_ms(tail.get(k)) for k in ("p99", "p99.9")),
            _ms(r.get("floor_s")), r.get("per_floor"), _ms(r.get("predicted_s")),
            r.get("verified")]


def plot(out: Path, config: Mapping[str, Any], recs: Sequence[Rec]) -> Figure | None:
    """Multiples of the floor against the block size, a line per algorithm, a panel per
    condition; whiskers p10-p90; flagged points hollow (not a result)."""
    done = [r for r in recs if ok(r) and r.get("floor_s")]
    if not done:
        return None
    plt = pyplot()
    conds = _conditions(done)
    fig, axes = plt.subplots(1, len(conds), figsize=(4.4 * len(conds) + 0.6, 3.6),
                             squeeze=False)
    algos = sorted({_cfg(r)["algorithm"] for r in done}, key=order)
    for ax, cond in zip(axes[0], conds, strict=True):
        for j, alg in enumerate(algos):
            pts = sorted((r for r in done if _cond(r) == cond and _cfg(r)["algorithm"] == alg),
                         key=lambda r: _cfg(r)["size"])
            if not pts:
                continue
            xs = [_cfg(r)["size"] for r in pts]
            ys = [r["t_s"]["median"] / r["floor_s"] for r in pts]
            err = [[y - r["t_s"]["p10"] / r["floor_s"] for y, r in zip(ys, pts, strict=True)],
                   [r["t_s"]["p90"] / r["floor_s"] - y for y, r in zip(ys, pts, strict=True)]]
            ax.errorbar(xs, ys, yerr=err, color=f"C{j}", marker="o", capsize=2, label=alg,
                        mfc="none" if any(flagged(r) for r in pts) else f"C{j}")
        ax.axhline(1.0, color="black", linewidth=0.8, linestyle="--")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")  # a loss's retransmission tail would flatten the rest
        sizes = sorted({_cfg(r)["size"] for r in done})
        ax.set_xticks(sizes, [size_text(x) for x in sizes])
        ax.minorticks_off()
        ax.set_xlabel("block bytes per rank")
        ax.set_title(_cond_text(cond), fontsize=10)
    axes[0][0].set_ylabel("median / floor (p-1)m/B, log")
    axes[0][0].legend(fontsize=8)
    return save_run_figure(plt, fig, out / "allgather.png", config,
                           "Allgather time in multiples of the floor (p-1)m/B (dashed), per "
                           "algorithm; whiskers p10-p90, hollow marks flagged.")


REPORT = TableReport(CSV_FIELDS, csv_row, plot, head, body, ok, " * fastest unflagged.")
