"""What every suite's run writes besides NAME.json and NAME.md: NAME.csv (its tabular rows,
flattened) and the caption on NAME.png/.svg/.pdf (topology, link rate, repetitions, date,
commit), both read off the suite's result dict whatever its shape."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..report.figures import caption_line, rate_text

SKIP = ("versions",)  # the machine, not rows
REPETITION_KEYS = ("iterations", "iters", "reps", "repeats", "repetitions")


def tables(res: Any, path: str = "") -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Every list of dicts in `res` (at any depth, `path` its keys joined by "."): the
    suite's tabular rows."""
    if isinstance(res, dict):
        for k, v in res.items():
            if k not in SKIP:
                yield from tables(v, f"{path}.{k}" if path else str(k))
    elif isinstance(res, list) and res and all(isinstance(r, dict) for r in res):
        yield path, res


def flatten(row: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A row with nested dicts as dotted columns (t_mcast_s.median), lists as JSON."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        name = f"{prefix}.{k}" if prefix else str(k)
        if isinstance(v, dict):
            out.update(flatten(v, name))
        else:
            out[name] = json.dumps(v) if isinstance(v, list) else "" if v is None else v
    return out


def write_csv(res: dict[str, Any], path: Path) -> bool:
    """NAME.csv: every table of `res`, one row per entry, a `table` column naming where in
    NAME.json it came from, the union of their columns in the order first met. False (and
    nothing written) when the suite has no rows."""
    rows = [{"table": name, **flatten(r)} for name, rs in tables(res) for r in rs]
    if not rows:
        return False
    fields = list(dict.fromkeys(k for r in rows for k in r))
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    return True


def _topology(res: dict[str, Any]) -> str | None:
    for key in ("topology", "spec"):
        if isinstance(res.get(key), str):
            return str(res[key])
    tops = sorted({str(r["topology"]) for _, rs in tables(res) for r in rs
                   if isinstance(r.get("topology"), str)})
    return ", ".join(tops) or None


def _rate(res: dict[str, Any]) -> str | None:
    if isinstance(res.get("link_rate"), dict):
        return rate_text(res["link_rate"])
    for key in ("mbit", "bw_mbit"):
        if isinstance(res.get(key), (int, float)):
            return f"{res[key]:g} Mbit/s"
    bw = re.search(r"\bbw=([0-9.]+)", _topology(res) or "")
    return f"{float(bw.group(1)):g} Mbit/s" if bw else None


def _repetitions(res: dict[str, Any]) -> str | None:
    counts = sorted({int(r[k]) for _, rs in tables(res) for r in rs for k in REPETITION_KEYS
                     if isinstance(r.get(k), int) and not isinstance(r.get(k), bool)})
    if not counts:
        return None
    span = str(counts[0]) if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    return f"{span} repetitions per point"


def caption(res: dict[str, Any]) -> str:
    """The caption line on a suite's figure."""
    return caption_line(topology=_topology(res), rate=_rate(res),
                        repetitions=_repetitions(res), date=res.get("date"),
                        versions=res.get("versions"))
