"""The tail a loss costs, in a report: p50, p90, p99 and p99.9 of the points that ran under
loss or asked for enough repetitions to state p99 (`shows`), each as the sample states it
(collectives.stats.tails: a percentile a sample of n cannot state is marked "n/s", and why
is said once under the tables, never left a silent blank).

A broadcast run's tails are one table per message size, communicator size and condition,
a row per algorithm, the lowest unflagged value of each column marked * (a flagged point
is no result: never marked, nor what others lose to); an Allgather run's are rows of its
own tables' (testbed.report.allgather)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from collectives.stats import TAIL_LEVELS, level_name, needed, tails

from ..results import text_table
from .points import (
    Cond,
    Point,
    alg_order,
    as_float,
    as_int,
    cond_labels,
    cond_order,
    fmt_ms,
    fmt_size,
    pick,
    plural,
    sortable,
    without,
)
from .tables import Cell, Table

LEVELS = tuple(level_name(q) for q in TAIL_LEVELS)
UNSTATED = "n/s"
# a spec asking this many repetitions asks for a tail (enough for p99), loss or none
ASKED = needed(0.99)
HEADER = ["algorithm", "samples", *LEVELS]
INTRO = (f"p50, p90, p99 and p99.9 of every point under loss or asked {ASKED}+ repetitions, "
         f"in ms; {UNSTATED}: not stated, too few samples (why: below the tables).")
LEGEND = "* lowest of its column (where every unflagged row states it), ! flagged (no result)."
HTML_LEGEND = ("Green: lowest of its column (where every unflagged row states it). Amber "
               "with !: flagged, no result, never marked. Hover a cell for its samples.")


def shows(config: Mapping[str, Any]) -> bool:
    """Whether a point's tail is reported: it ran under loss, or its spec asked for at least
    ASKED repetitions."""
    return bool(as_float(config.get("loss"))) or (as_int(config.get("repetitions")) or 0) >= ASKED


def of(rec: Mapping[str, Any]) -> dict[str, Any] | None:
    """A record's tails (`tails_s`; computed from its samples where it was written before
    records carried them), None without samples."""
    t = rec.get("tails_s")
    if isinstance(t, dict):
        return t
    samples = [x for x in rec.get("samples_s") or () if as_float(x) is not None]
    return tails(samples) if samples else None


def lacks(t: Mapping[str, Any], level: str) -> str:
    """"p99.9: needs 1000 samples, has 20"."""
    return f"{level}: needs {t['needs'][level]} samples, has {t['n']}"


def why_unstated(recs: Iterable[Mapping[str, Any]]) -> list[str]:
    """The reason unstated percentiles are, said once: the rule, and the points that
    measured fewer broadcasts than their spec asked (a budget that ran out)."""
    recs = list(recs)
    short = [t["n"] for r in recs if (t := of(r)) and t.get("needs")]
    if not short:
        return []
    rule = ", ".join(f"{name} {needed(q)}" for name, q in zip(LEVELS, TAIL_LEVELS, strict=True))
    lines = [f"{UNSTATED}: not stated. A sample of n states the q-quantile only where "
             "n(1-q) >= 1, one sample expected at or beyond it (with fewer, the largest "
             f"samples would stand for the tail); samples needed: {rule}. "
             f"{plural(len(short), 'point')} had too few for some ({_span(short)} samples)."]
    stopped = defaultdict(list)
    for r in recs:
        cfg, t = r.get("config") or {}, of(r)
        asked = (as_int(cfg.get("repetitions")) or 0) * (as_int(cfg.get("groups")) or 1)
        if t and t["n"] < asked and r.get("timing") != "flow":
            stopped[as_float(cfg.get("budget_s"))].append((t["n"], asked))
    for budget, got in sorted(stopped.items(), key=lambda kv: sortable(kv[0])):
        why = f"their budget of {budget:g} s ran out" if budget else "they stopped early"
        lines.append(f"{plural(len(got), 'point')} measured fewer broadcasts than asked "
                     f"({_span([n for n, _ in got])} of {_span([a for _, a in got])}): "
                     f"{why}.")
    return lines


def values(t: Mapping[str, Any] | None) -> list[float | None]:
    """Each level's value in ms (None: not stated, or no tails)."""
    return [None if t is None or t.get(k) is None else float(t[k]) * 1e3 for k in LEVELS]


def text_row(t: Mapping[str, Any] | None, best: Sequence[float | None] = (),
             flagged: bool = False) -> list[str]:
    """Samples and the four levels as a text table writes them ("1.23*", "4.5!", "n/s"):
    * where a value is its column's lowest of `best` (a flagged row never)."""
    if t is None:
        return ["-", *("-" for _ in LEVELS)]
    cells = [str(t["n"])]
    for i, v in enumerate(values(t)):
        if v is None:
            cells.append(UNSTATED)
            continue
        low = not flagged and i < len(best) and v == best[i]
        cells.append(fmt_ms(v) + ("*" if low else "") + ("!" if flagged else ""))
    return cells


def lowest(rows: Iterable[tuple[list[float | None], bool]]) -> list[float | None]:
    """Per level, the lowest value among the unflagged rows ((values, flagged) pairs); None
    where one of them does not state it (the lowest of some is no comparison)."""
    cols: list[list[float | None]] = [[] for _ in LEVELS]
    for vals, flagged in rows:
        if not flagged:
            for col, v in zip(cols, vals, strict=True):
                col.append(v)
    out: list[float | None] = []
    for col in cols:
        stated = [v for v in col if v is not None]
        out.append(min(stated) if stated and len(stated) == len(col) else None)
    return out


def _span(xs: Sequence[int]) -> str:
    return f"{min(xs)}-{max(xs)}" if min(xs) != max(xs) else str(xs[0])


@dataclass(frozen=True)
class Tails:
    """A broadcast run's tail tables and the notes under them."""

    tables: list[Table]
    notes: list[str]

    def text(self) -> list[str]:
        """summary.txt's lines (none when no point shows a tail)."""
        if not self.tables:
            return []
        lines = ["", f"The tail: {INTRO} {LEGEND}"]
        for t in self.tables:
            lines += ["", f"{t.title} ({t.what})",
                      text_table(t.header, [[a, *(c.text for c in cells)] for a, cells in t.rows]),
                      f"{t.marks}: {t.fastest}"]
        return lines + [f"  {n}" for n in self.notes]


def _cell(p: Point, v: float | None, best: float | None, level: str) -> Cell:
    t = of(p.rec) or {}
    if v is None:
        tip = lacks(t, level) if level in (t.get("needs") or {}) else "not stated"
        return Cell(UNSTATED, UNSTATED, False, False, False, tip)
    marked = v == best and not p.flagged
    tip = f"{level} {fmt_ms(v)} ms of {plural(t.get('n', p.samples), 'sample')}"
    if p.flagged:
        tip += "; flagged: " + ("; ".join(p.flags) or "fidelity check failed")
    return Cell(fmt_ms(v) + ("*" if marked else "") + ("!" if p.flagged else ""), fmt_ms(v),
                marked, p.flagged, False, tip)


def _table(title: str, group: list[Point]) -> Table:
    by: dict[str, list[Point]] = defaultdict(list)
    for q in group:
        by[q.algorithm].append(q)
    algs = sorted(by, key=alg_order)
    picked = {a: pick(by[a]) for a in algs}
    vals = {a: values(of(p.rec) if p else None) for a, p in picked.items()}
    ok = [a for a in algs if (p := picked[a]) is not None and not p.flagged]
    best = lowest((vals[a], False) for a in ok)
    rows = []
    for a in algs:
        p = picked[a]
        if p is None:
            error = "failed: " + "; ".join(sorted({q.error or "failed" for q in by[a]}))
            rows.append((a, [Cell("failed", "failed", False, False, True, error)
                             for _ in HEADER[1:]]))
            continue
        n = Cell(str(p.samples), str(p.samples), False, False, False, "samples measured")
        rows.append((a, [n, *(_cell(p, v, b, lv) for v, b, lv in
                                zip(vals[a], best, LEVELS, strict=True))]))
    top = next((i for i in reversed(range(len(LEVELS))) if best[i] is not None), None)
    if top is None:
        fastest = "none (no unflagged point states one)"
    else:
        names = " = ".join(a for a in ok if vals[a][top] == best[top])
        fastest = f"{LEVELS[top]} {names} {fmt_ms(best[top])} ms"
    return Table(title, HEADER, rows, fastest, what="ms", marks="lowest")


def tail_tables(points: list[Point], varying: set[str]) -> Tails:
    """One table per message size, communicator size and condition whose points show a
    tail (`shows`), in the headline's order."""
    shown = [p for p in points if shows(p.config())]
    conds = sorted({without(p.cond, "hosts") for p in shown}, key=cond_order)
    labels = cond_labels(conds, varying, omit=("hosts",))
    groups: dict[tuple[Any, Any, Cond], list[Point]] = defaultdict(list)
    for p in shown:
        groups[(p.size, p.hosts, without(p.cond, "hosts"))].append(p)
    tables = []
    for (size, hosts, cond), group in sorted(
            groups.items(), key=lambda kv: (sortable(kv[0][0]), sortable(kv[0][1]),
                                            cond_order(kv[0][2]))):
        where = f" on {hosts} hosts" if hosts is not None else ""
        tables.append(_table(f"{fmt_size(size)}{where}, {labels[cond]}", group))
    return Tails(tables, why_unstated(p.rec for p in shown if p.ok))
