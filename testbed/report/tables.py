"""summary.csv, the headline tables (one per message size, best and flagged marked) and the
text of summary.txt."""

from __future__ import annotations

import csv
import json
import re
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..fidelity.wire_units import frame_time_s, wire_time_s
from ..results import text_table
from ..specs.loss_scope import WHAT
from .points import (
    Cond,
    Point,
    alg_order,
    as_int,
    cond_labels,
    cond_order,
    fmt_ms,
    fmt_size,
    lost_scope,
    pick,
    plural,
    sortable,
    varying_fields,
    without,
)

CONFIG_FIELDS = ("algorithm", "size", "hosts", "traffic", "pattern", "load", "loss",
                 "loss_scope", "fault", "groups", "interval_s", "topology", "mode")


# ---- summary.csv ------------------------------------------------------------------------
def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return f"{v:.9g}"
    return json.dumps(v, sort_keys=True) if isinstance(v, list | dict) else v


def write_csv(path: Path, points: list[Point]) -> None:
    """One row per point: its condition as the report names it ("loss 5% of every
    packet"), its configuration, and its figures."""
    keys = {k for p in points for k in p.config()}
    fields = [*CONFIG_FIELDS, *sorted(keys - set(CONFIG_FIELDS))]
    conds = {p.cond for p in points}
    labels = cond_labels(conds, varying_fields(conds))
    header = ["index", "status", "flagged", "condition", *fields, "median_ms", "p10_ms",
              "p90_ms", "p99_ms", "p99.9_ms",  # the tail, empty where the samples cannot state it
              "median_per_wire_time", "median_per_frame_time",
              "predicted_ms", "accepted_load", "cpu_busy", "samples", "flags", "error"]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for p in points:
            cfg = p.config()
            units = p.rec.get("t_mcast_units") or {}
            tail = p.rec.get("tails_s") or {}
            row = [p.index, p.status, p.flagged, labels[p.cond], *(cfg.get(k) for k in fields),
                   p.median_ms, p.p10_ms, p.p90_ms,
                   *(None if tail.get(k) is None else tail[k] * 1e3 for k in ("p99", "p99.9")),
                   units.get("per_wire_time"),
                   units.get("per_frame_time"), p.predicted_ms, p.accepted, p.cpu_busy,
                   p.samples, "; ".join(p.flags), p.error]
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
    units: str = ""  # M/B and the frame time at the run's rate, to read the times by
    what: str = "median ms"  # what the cells are (testbed.report.tails': every level, ms)
    marks: str = "fastest"  # what `fastest` names (the tails': the lowest of a column)


def units_note(group: list[Point]) -> str:
    """"M/B = 17.5 ms, a frame 0.41 ms at 30 Mbit/s" for one message size's points."""
    rates = {p.config().get("link_mbit") for p in group}
    sizes = {p.size for p in group}
    if len(rates) != 1 or len(sizes) != 1:
        return ""
    (mbit,), (size,) = rates, sizes
    wire, frame = wire_time_s(size or 0, mbit), frame_time_s(mbit)
    if frame is None:
        return ""
    return ((f"M/B = {fmt_ms(wire * 1e3)} ms, " if wire else "")
            + f"a full frame {fmt_ms(frame * 1e3)} ms at {mbit:g} Mbit/s")


def _cell(points: list[Point], best_ms: float | None) -> Cell:
    p = pick(points)
    if p is None:
        if not points:
            return Cell("-", "-", False, False, False, "not run")
        errors = "; ".join(sorted({q.error or "failed" for q in points}))
        return Cell("failed", "failed", False, False, True, f"failed: {errors}")
    best = best_ms is not None and p.median_ms == best_ms and not p.flagged
    tip = (f"median {fmt_ms(p.median_ms)} ms, p10 {fmt_ms(p.p10_ms)}, "
           f"p90 {fmt_ms(p.p90_ms)} ms, {plural(p.samples, 'sample')}")
    if p.predicted_ms is not None:
        tip += f"; model {fmt_ms(p.predicted_ms)} ms"
    units = p.rec.get("t_mcast_units") or {}
    if units.get("per_wire_time") is not None:
        tip += f"; {units['per_wire_time']:.2f} x M/B"
    if units.get("per_frame_time") is not None:
        tip += f", {units['per_frame_time']:.1f} frame times"
    if p.flagged:
        tip += "; flagged: " + ("; ".join(p.flags) or "fidelity check failed")
    value = fmt_ms(p.median_ms)
    text = value + ("*" if best else "") + ("!" if p.flagged else "")
    return Cell(text, value, best, p.flagged, False, tip)


def _table(title: str, group: list[Point], varying: set[str], scope: str | None) -> Table:
    """Algorithms against the conditions; `scope`: the one its losses share, which the
    title names (the columns then say "loss 5%")."""
    conds = sorted({without(p.cond, "hosts") for p in group}, key=cond_order)
    labels = cond_labels(conds, varying, omit=("hosts", "loss_scope") if scope else ("hosts",))
    algs = sorted({p.algorithm for p in group}, key=alg_order)
    by: dict[tuple[str, Cond], list[Point]] = defaultdict(list)
    for p in group:
        by[(p.algorithm, without(p.cond, "hosts"))].append(p)
    best: dict[Cond, float | None] = {}
    fastest = []
    for c in conds:
        # a flagged point is no result: it is never the fastest, nor what others lose to
        picks = [(q.median_ms, a) for a in algs if (q := pick(by[(a, c)])) and q.median_ms
                 is not None and not q.flagged]
        best[c] = min(picks)[0] if picks else None
        if picks:
            tied = " = ".join(a for ms, a in picks if ms == best[c])
            fastest.append(f"{labels[c]}: {tied} {fmt_ms(best[c])} ms")
        elif any(pick(by[(a, c)]) for a in algs):
            fastest.append(f"{labels[c]}: none (every point flagged)")
    rows = [(a, [_cell(by[(a, c)], best[c]) for c in conds]) for a in algs]
    return Table(title, ["algorithm", *(labels[c] for c in conds)], rows,
                 "; ".join(fastest) or "no point succeeded", units_note(group))


def _scaling_table(title: str, group: list[Point]) -> Table:
    """Algorithms against communicator sizes, and how much the time grew from the fewest
    hosts to the most (unflagged points only)."""
    hosts = sorted({p.hosts for p in group if p.hosts is not None})
    algs = sorted({p.algorithm for p in group}, key=alg_order)
    by: dict[tuple[str, int | None], list[Point]] = defaultdict(list)
    for p in group:
        by[(p.algorithm, p.hosts)].append(p)
    best: dict[int, float | None] = {}
    fastest = []
    for h in hosts:
        picks = [(q.median_ms, a) for a in algs if (q := pick(by[(a, h)])) and
                 q.median_ms is not None and not q.flagged]
        best[h] = min(picks)[0] if picks else None
        if picks:
            fastest.append(f"{h} hosts: {' = '.join(a for ms, a in picks if ms == best[h])} "
                           f"{fmt_ms(best[h])} ms")
    lo, hi = hosts[0], hosts[-1]
    rows = []
    for a in algs:
        cells = [_cell(by[(a, h)], best[h]) for h in hosts]
        first, last = pick(by[(a, lo)]), pick(by[(a, hi)])
        if (first and last and not (first.flagged or last.flagged) and first.median_ms
                and last.median_ms is not None):
            ratio = last.median_ms / first.median_ms
            cells.append(Cell(f"{ratio:.2f}", f"{ratio:.2f}", False, False, False,
                              f"T({hi})/T({lo}): how much longer on {hi} hosts than on {lo}"))
        else:
            cells.append(Cell("-", "-", False, False, False, "needs both ends unflagged"))
        rows.append((a, cells))
    return Table(title, ["algorithm", *(f"{h} hosts" for h in hosts), f"T({hi})/T({lo})"],
                 rows, "; ".join(fastest) or "no point succeeded", units_note(group))


def by_scope(group: list[Point]) -> list[tuple[str | None, list[Point]]]:
    """A table's points by which packets their loss drops: one part per scope the run lost
    packets in, each with the points that lose none (the reference every part shares); the
    group whole, None, where no point loses any. Trees and multicast under the same loss
    then stand in one table, the scopes in tables alike one under the other."""
    scopes = sorted({s for p in group if (s := lost_scope(p.cond))})
    if not scopes:
        return [(None, group)]
    return [(s, [p for p in group if lost_scope(p.cond) == s or (
        lost_scope(p.cond) is None and dict(p.cond).get("loss_scope") in (None, s))])
        for s in scopes]


def _scope_title(scope: str | None) -> str:
    return f", loss of {WHAT.get(scope, scope)}" if scope else ""


def headline_tables(points: list[Point], varying: set[str]) -> list[Table]:
    """One table per message size (and per communicator size when the run varied it; when
    only the communicator size varied, one table per message size with a column each), and
    per loss scope where the run lost packets (by_scope: its title names the scope)."""
    hosts_all = sorted({p.hosts for p in points}, key=sortable)
    split = len(hosts_all) > 1
    if split and not varying - {"hosts"} and None not in hosts_all:
        return [_scaling_table(fmt_size(size) + _scope_title(scope), part)
                for size in sorted({p.size for p in points}, key=sortable)
                for scope, part in by_scope([p for p in points if p.size == size])]
    out = []
    for size in sorted({p.size for p in points}, key=sortable):
        for hosts in hosts_all:
            group = [p for p in points if p.size == size and (not split or p.hosts == hosts)]
            where = f" on {hosts} hosts" if hosts is not None else ""
            out += [_table(f"{fmt_size(size)}{where}{_scope_title(scope)}", part, varying,
                           scope) for scope, part in (by_scope(group) if group else [])]
            if not split:
                break
    return out


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
        return (f"{plural(self.measured, 'point')} measured{planned}: {self.ok} ok, "
                f"{self.failed} failed, {self.flagged} flagged.")


def count_points(points: list[Point], config: Mapping[str, Any]) -> Counts:
    return Counts(as_int(config.get("points")), len(points), sum(p.ok for p in points),
                  sum(not p.ok for p in points), sum(p.flagged for p in points))


def run_title(config: Mapping[str, Any], run_dir: Path) -> str:
    spec = config.get("spec") or {}
    return str(config.get("spec_name") or spec.get("name") or run_dir.name)


FLAGGED_ADVICE = ("Flagged points are not results: the emulator did not keep up with them, "
                  "so they are never marked fastest nor used in a finding. Run with fewer hosts "
                  "or a lower link rate: a shape given without bw= runs at the highest rate this "
                  "machine keeps up with (see mcastlab calibrate).")


def summary_text(title: str, run_dir: Path, points: list[Point], tables: list[Table],
                 counts: Counts, report: Path, unfinished: bool,
                 notes: list[str] | None = None, findings: list[str] | None = None,
                 tails: Sequence[str] = ()) -> str:
    """`notes`: lines under the title (the link rate); `findings`: the papers' claims as
    this run shows them (testbed.report.findings); `tails`: the tail tables' lines
    (testbed.report.tails), after the headline's."""
    lines = [f"{title} ({run_dir.name})", *(notes or [])]
    if not points:
        planned = f" ({counts.planned} planned)" if counts.planned else ""
        lines += ["Nothing was measured: records.jsonl holds no points" + planned + ".",
                  f"report: {report}"]
        return "\n".join(lines) + "\n"
    lines.append(counts.sentence() + (" The run did not finish." if unfinished else ""))
    if counts.flagged:
        lines.append(FLAGGED_ADVICE)
    for t in tables:
        lines += ["", f"{t.title} ({t.what})",
                  text_table(t.header, [[alg, *(c.text for c in cells)] for alg, cells in t.rows]),
                  f"fastest: {t.fastest}", *([f"({t.units})"] if t.units else [])]
    lines += tails
    if findings:
        lines += ["", "What this run shows (unflagged points only):", *(f"  {f}" for f in findings)]
    lines += ["", "* fastest in its column, ! flagged (the emulator could not keep up, the "
                  "number is no result), failed = no result."]
    reasons = flag_kinds(points)
    lines += [f"flag: {reason}: {plural(n, 'point')}" for reason, n in reasons]
    if counts.failed:
        lines.append(f"failed: {plural(counts.failed, 'point')} (errors in the report)")
    lines.append(f"report: {report}")
    return "\n".join(lines) + "\n"


_PERCENT = re.compile(r"\d+(?:\.\d+)?(?=%)")
_SHORT_LINK = re.compile(r"^(\S+ carried [\d.]+ of [\d.]+ Mbit/s expected|\d+ of \d+ loaded links)")


def flag_kinds(points: list[Point]) -> list[tuple[str, int]]:
    """Flag reasons, most frequent first; those that differ only in their first percentage
    merged into one with the range ("switch waited for a core 76-82% of its time"), and short
    links counted as one reason (the report lists each point's links)."""
    kinds: dict[str, list[float]] = {}
    count: Counter[str] = Counter()
    for p in points:
        if not p.flagged:
            continue
        for f in p.flags or ("(no reason given)",):
            if _SHORT_LINK.match(f):
                f = "loaded links carried less than 70% of their expected rate"
            m = _PERCENT.search(f)
            key = _PERCENT.sub("#", f, count=1) if m else f
            count[key] += 1
            if m:
                kinds.setdefault(key, []).append(float(m.group()))
    out = []
    for key, n in count.most_common():
        nums = kinds.get(key)
        if nums:
            lo, hi = min(nums), max(nums)
            key = key.replace("#", f"{lo:g}" if lo == hi else f"{lo:g}-{hi:g}", 1)
        out.append((key, n))
    return out
