"""Points (one record each, reduced to what tables and plots need) and how they are ordered,
labelled and their numbers written: what every other part of the report reads."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from collectives.algorithms import BCASTS

from ..results import size_text
from ..specs.loss_scope import loss_text

# every algorithm the testbed runs, in the order tables and legends list them
ALGORITHM_ORDER = tuple(BCASTS)
ENV_FIELDS = ("traffic", "pattern", "load", "loss", "loss_scope", "fault")

Cond = tuple[tuple[str, Any], ...]  # every config field but algorithm, size, members, send_order
# members follow from hosts, groups and exclude; send_order and completion from the algorithm
# (None where it has no sends, or no scouts, of its own) and the spec's one top-level choice
# each: none of them is a condition
DERIVED = ("algorithm", "size", "members", "send_order", "completion")


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


def as_float(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return None
    return float(v)


def _ms(v: Any) -> float | None:
    x = as_float(v)
    return None if x is None else x * 1e3


def as_int(v: Any) -> int | None:
    x = as_float(v)
    return None if x is None else int(x)


def _frozen(v: Any) -> Any:
    return json.dumps(v, sort_keys=True, default=str) if isinstance(v, list | dict) else v


def yes_no(value: Any) -> str:
    """A check's outcome in a table: yes, NO, or - where it was not made."""
    return "-" if value is None else "yes" if value else "NO"


def no_traffic(name: Any) -> bool:
    return name in (None, "none", "")


def point_of(rec: dict[str, Any]) -> Point:
    cfg = rec.get("config") or {}
    t = rec.get("t_mcast_s") or {}
    fid = rec.get("fidelity") or {}
    traffic = rec.get("traffic") or {}
    median = _ms(t.get("median"))
    status = str(rec.get("status") or "unknown")
    ok = status == "ok" and median is not None
    accepted = as_float(traffic.get("accepted"))
    load_x = accepted if accepted is not None else as_float(cfg.get("load"))
    if load_x is None and no_traffic(cfg.get("traffic")):
        load_x = 0.0
    error = rec.get("error")
    if not ok and not error:
        error = "status ok but no latency recorded" if status == "ok" else f"status {status}"
    return Point(
        index=as_int(rec.get("index")), status=status, algorithm=str(cfg.get("algorithm", "?")),
        size=as_int(cfg.get("size")), hosts=as_int(cfg.get("hosts")),
        cond=tuple(sorted((k, _frozen(v)) for k, v in cfg.items()
                          if k not in DERIVED)),
        ok=ok, median_ms=median, p10_ms=_ms(t.get("p10")), p90_ms=_ms(t.get("p90")),
        predicted_ms=_ms(rec.get("predicted_s")), load_x=load_x, accepted=accepted,
        cpu_busy=as_float(fid.get("cpu_busy")), flagged=fid.get("ok") is False,
        flags=tuple(str(f) for f in fid.get("flags") or ()), error=error and str(error),
        samples=len(rec.get("samples_s") or ()), rec=rec)


def pick(points: Iterable[Point]) -> Point | None:
    """The representative of repeated points: the ok one with the median latency."""
    good = sorted((p for p in points if p.ok), key=lambda p: p.median_ms or 0.0)
    return good[(len(good) - 1) // 2] if good else None


# ---- ordering and labels ----------------------------------------------------------------
def sortable(v: Any) -> tuple[int, float, str]:
    if v is None:
        return (0, 0.0, "")
    x = as_float(v)
    return (1, x, "") if x is not None else (2, 0.0, str(v))


def alg_order(alg: str) -> tuple[int, str]:
    return (ALGORITHM_ORDER.index(alg) if alg in ALGORITHM_ORDER else len(ALGORITHM_ORDER), alg)


def without(cond: Cond, *fields: str) -> Cond:
    return tuple((k, v) for k, v in cond if k not in fields)


def lost_scope(cond: Cond) -> str | None:
    """Which packets a condition's loss drops ("all" where a record of a lossy point names
    none); None: it has no loss."""
    c = dict(cond)
    return (c.get("loss_scope") or "all") if as_float(c.get("loss")) else None


def _env_parts(c: Mapping[str, Any], scoped: bool = True) -> list[str]:
    """The environment's words; `scoped`: a loss says which packets it drops ("loss 5% of
    every packet"), else where a title says it ("loss 5%")."""
    parts = []
    if not no_traffic(c.get("traffic")):
        name = str(c["traffic"])  # "uniform-02 (load 0.02)", "hot-1 (hotspot, load 0.1)"
        detail = [str(c["pattern"])] if c.get("pattern") and c["pattern"] not in name else []
        if as_float(c.get("load")) is not None:
            detail.append(f"load {c['load']:g}")
        parts.append(f"{name} ({', '.join(detail)})" if detail else f"traffic {name}")
    loss = as_float(c.get("loss"))
    if loss:
        parts.append(loss_text(loss, (c.get("loss_scope") or "all") if scoped else None))
    if c.get("fault") not in (None, "none", ""):
        parts.append(f"fault {c['fault']}")
    return parts


def _shape_label(name: str, v: Any) -> str:
    if name == "hosts":
        return f"{v} hosts"
    if name == "interval_s":
        x = as_float(v)
        return "root waits" if not x else f"every {x * 1e3:g} ms"
    if name == "groups":
        return f"{v} group{'s' if v != 1 else ''}"
    if name in ("mode", "topology"):
        return str(v)
    return f"{name} {v}"


def cond_order(cond: Cond) -> tuple[Any, ...]:
    c = dict(cond)
    fields = (*ENV_FIELDS, "hosts", "interval_s", "groups", "mode", "topology")
    return (len(_env_parts(c)), tuple(sortable(c.get(f)) for f in fields),
            tuple((k, sortable(v)) for k, v in cond if k not in fields))


def varying_fields(conds: Iterable[Cond]) -> set[str]:
    values: dict[str, set[Any]] = defaultdict(set)
    conds = list(conds)
    for cond in conds:
        for k, v in cond:
            values[k].add(v)
    keys = {k for cond in conds for k, _ in cond}
    return {k for k in keys if len(values[k]) > 1 or any(k not in dict(c) for c in conds)}


def cond_labels(conds: Iterable[Cond], varying: Collection[str],
                omit: Collection[str] = ()) -> dict[Cond, str]:
    """Short condition names ("quiet", "bg (uniform, load 0.2) + loss 5% of every packet",
    "..., 16 hosts"): the environment always (a loss's scope unless `omit` names
    loss_scope), the shape of the run only where it varies; names that would collide get
    the differing fields appended."""
    out: dict[Cond, str] = {}
    for cond in conds:
        c = dict(cond)
        shape = [_shape_label(k, c.get(k)) for k, _ in cond
                 if k in varying and k not in ENV_FIELDS and k not in omit]
        env = _env_parts(c, scoped="loss_scope" not in omit)
        out[cond] = ", ".join([" + ".join(env) or "quiet", *shape])
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


# ---- formatting -------------------------------------------------------------------------
def fmt_ms(v: float | None) -> str:
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


def fmt_size(n: int | None) -> str:
    return "? B" if n is None else size_text(n)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
