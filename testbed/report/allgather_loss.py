"""An Allgather run's loss side by side (testbed.report.allgather): per block size, ranks
and loss scope, a table with a row per algorithm and a column per loss (the lossless one
first, shared by every scope), as a broadcast run's headline tables have them. Three of
them: the medians (the fastest unflagged of each column marked *), the p99 (the tail a
loss costs, "n/s" where the samples cannot state it: collectives.stats.tails), and each
algorithm's median over its own without loss. A flagged point is no result: marked !,
never fastest, never in a ratio."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from collectives.algorithms import ALLGATHERS

from ..results import size_text, text_table
from ..specs.loss_scope import WHAT, loss_text
from .points import fmt_ms
from .tails import UNSTATED, of
from .text_report import flagged, rec_config

Rec = dict[str, Any]
QUIET = "quiet"


def ok(r: Rec) -> bool:
    """The point completed with a time."""
    return r.get("status") == "ok" and bool(r.get("t_s"))


def scope_of(r: Rec) -> str:
    """Which packets a record's loss drops: "all" for a run before the scope was recorded
    (loss of every packet was all it had); "" without loss."""
    cfg = rec_config(r)
    return (cfg.get("loss_scope") or "all") if cfg.get("loss") else ""


def order(name: str) -> int:
    """An algorithm's place in tables: the registry's order."""
    return list(ALLGATHERS).index(name) if name in ALLGATHERS else len(ALLGATHERS)


def _median_ms(r: Rec) -> float | None:
    return r["t_s"]["median"] * 1e3 if ok(r) else None


def _p99_ms(r: Rec) -> float | None:
    t = of(r) if ok(r) else None
    return None if t is None or t.get("p99") is None else float(t["p99"]) * 1e3


def _cell(r: Rec | None, value: float | None, best: float | None) -> str:
    if r is None:
        return "-"
    if not ok(r):
        return "failed"
    if value is None:
        return UNSTATED
    mark = "!" if flagged(r) else "*" if value == best else ""
    return fmt_ms(value) + mark


def _ratio(r: Rec | None, quiet: Rec | None) -> str:
    a = _median_ms(r) if r is not None and not flagged(r) else None
    b = _median_ms(quiet) if quiet is not None and not flagged(quiet) else None
    return f"x{a / b:.2f}" if a is not None and b else "-"


def _best(rows: Sequence[Rec | None], value: Any) -> float | None:
    """The lowest unflagged value of a column, None where an unflagged row lacks one."""
    vals = [value(r) for r in rows if r is not None and ok(r) and not flagged(r)]
    return min(vals) if vals and None not in vals else None


def scope_tables(recs: Sequence[Rec]) -> list[str]:
    """summary.txt's lines: for every block size, ranks and scope a run lost packets of, its
    three tables (none for a run without loss)."""
    lines: list[str] = []
    lossy = [r for r in recs if rec_config(r).get("loss")]
    shapes = sorted({(rec_config(r)["size"], rec_config(r)["hosts"]) for r in lossy})
    for size, hosts in shapes:
        at = [r for r in recs if (rec_config(r)["size"], rec_config(r)["hosts"]) == (size, hosts)]
        for scope in sorted({scope_of(r) for r in at} - {""}):
            lines += ["", *_tables(size, hosts, scope, at)]
    return lines


def _tables(size: int, hosts: int, scope: str, at: Sequence[Rec]) -> list[str]:
    losses = sorted({rec_config(r)["loss"] for r in at if scope_of(r) == scope})
    cols: list[tuple[str, float]] = [(QUIET, 0.0), *((loss_text(x, None), x) for x in losses)]
    algs = sorted({rec_config(r)["algorithm"] for r in at}, key=order)

    def point(alg: str, loss: float) -> Rec | None:
        want = scope if loss else ""
        return next((r for r in at if rec_config(r)["algorithm"] == alg
                     and rec_config(r)["loss"] == loss and scope_of(r) == want), None)

    grid: Mapping[str, list[Rec | None]] = {a: [point(a, x) for _, x in cols] for a in algs}
    header = ["algorithm", *(name for name, _ in cols)]
    title = f"{size_text(size)} blocks on {hosts} ranks, loss of {WHAT[scope]}"
    out = []
    for what, value in (("median ms", _median_ms), ("p99 ms", _p99_ms)):
        best = [_best([grid[a][i] for a in algs], value) for i in range(len(cols))]
        rows = [[a, *(_cell(r, value(r) if r is not None and ok(r) else None, b)
                      for r, b in zip(grid[a], best, strict=True))] for a in algs]
        out += [f"{title} ({what})", text_table(header, rows)]
    rows = [[a, *(_ratio(r, grid[a][0]) for r in grid[a])] for a in algs]
    out += [f"{title} (median over its own without loss)", text_table(header, rows)]
    return out
