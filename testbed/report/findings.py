"""What a run shows of the papers' claims, in a sentence each, from unflagged points only:
how a broadcast's time grows with the number of hosts (Siebert2006: IP multicast stays flat),
from how many hosts a multicast broadcast beats every point-to-point one (Chen2000's
crossover), and what a loss costs each algorithm under each scope the run lost packets in.
A flagged point is no result: a finding that would need one is not made."""

from __future__ import annotations

from collections import defaultdict

from collectives.algorithms import names

from ..specs.loss_scope import WHAT, loss_text
from .points import (
    Cond,
    Point,
    alg_order,
    as_float,
    cond_labels,
    cond_order,
    fmt_ms,
    fmt_size,
    lost_scope,
    pick,
    varying_fields,
    without,
)

MULTICAST = names("multicast")
FLAT = 1.25  # T(most hosts) / T(fewest) at most this: "flat"


def _by_hosts(points: list[Point]) -> dict[tuple, dict[int, float]]:
    """(algorithm, size, condition without hosts) -> hosts -> the representative point's
    median ms, only where it is ok (so has a median) and not flagged."""
    groups: dict[tuple, dict[int, list[Point]]] = defaultdict(lambda: defaultdict(list))
    for p in points:
        if p.hosts is not None:
            groups[(p.algorithm, p.size, without(p.cond, "hosts"))][p.hosts].append(p)
    out: dict[tuple, dict[int, float]] = {}
    for key, per in groups.items():
        good = {h: q.median_ms for h, ps in per.items()
                if (q := pick(ps)) is not None and not q.flagged and q.median_ms is not None}
        if good:
            out[key] = good
    return out


def growth(points: list[Point]) -> list[str]:
    """T(max hosts)/T(min hosts) per algorithm and size (and condition, named where the
    run had several), multicast ones first."""
    table = _by_hosts(points)
    conds = {cond for _a, _s, cond in table}
    labels = cond_labels(conds, varying_fields(conds), omit=("hosts",)) if len(conds) > 1 \
        else {}
    lines = []
    for (alg, size, cond), per in sorted(table.items(),
                                          key=lambda kv: (kv[0][1] or 0,
                                                          kv[0][0] not in MULTICAST,
                                                          kv[0][0])):
        if len(per) < 2:
            continue
        lo, hi = min(per), max(per)
        ratio = per[hi] / per[lo]
        shape = "flat" if ratio <= FLAT else f"x{ratio:.1f}"
        where = f" ({labels[cond]})" if labels else ""
        lines.append(f"{alg} {fmt_size(size)}{where}: {fmt_ms(per[lo])} ms on {lo} hosts, "
                     f"{fmt_ms(per[hi])} ms on {hi} ({shape}, T({hi})/T({lo}) = "
                     f"{ratio:.2f})")
    return lines


def crossover(points: list[Point]) -> list[str]:
    """Per size (and condition): the fewest hosts from which the best multicast broadcast
    beats every point-to-point broadcast measured at that many hosts (all unflagged)."""
    table = _by_hosts(points)
    cases: dict[tuple, dict[str, dict[int, float]]] = defaultdict(dict)
    for (alg, size, cond), per in table.items():
        cases[(size, cond)][alg] = per
    conds = {cond for _s, cond in cases}
    several = len(conds) > 1
    labels = cond_labels(conds, varying_fields(conds), omit=("hosts",))
    lines = []
    for (size, cond), algs in sorted(cases.items(),
                                     key=lambda kv: (kv[0][0] or 0, cond_order(kv[0][1]))):
        hosts = sorted({h for per in algs.values() for h in per})
        wins = []
        for h in hosts:
            m = min(((per[h], a) for a, per in algs.items()
                     if a in MULTICAST and h in per), default=None)
            p = min(((per[h], a) for a, per in algs.items()
                     if a not in MULTICAST and h in per), default=None)
            if m and p:
                wins.append((h, m, p))
        if not wins:
            continue
        where = f" ({labels[cond]})" if several else ""
        first = next((w for w in wins if w[1][0] < w[2][0]), None)
        if first is None:
            h, m, p = wins[-1]
            lines.append(f"{fmt_size(size)}{where}: no multicast broadcast beat the "
                         f"point-to-point ones up to {h} hosts ({m[1]} {fmt_ms(m[0])} ms, "
                         f"{p[1]} {fmt_ms(p[0])} ms)")
            continue
        h, m, p = first
        after = all(w[1][0] < w[2][0] for w in wins if w[0] >= h)
        lines.append(f"{fmt_size(size)}{where}: {m[1]} beats every point-to-point broadcast "
                     f"from {h} hosts ({fmt_ms(m[0])} ms against {p[1]} {fmt_ms(p[0])} ms)"
                     + ("" if after else ", but not at every larger count"))
    return lines


def loss_cost(points: list[Point]) -> list[str]:
    """Per size and loss, what the loss costs each algorithm (its median over its own
    without loss) under each scope the run lost packets in: trees and multicast side by
    side under the same loss ("64 KiB, loss 5%: of every packet binomial x2.10, nack x1.40;
    of multicast datagrams binomial x1.00, nack x1.50")."""
    groups: dict[tuple[str, int | None, Cond], list[Point]] = defaultdict(list)
    for p in points:
        groups[(p.algorithm, p.size, p.cond)].append(p)
    quiet: dict[tuple[str, int | None, Cond], float] = {}
    lossy = []
    for (alg, size, cond), ps in groups.items():
        q = pick(ps)
        if q is None or q.flagged or not q.median_ms:
            continue
        rest = without(cond, "loss", "loss_scope")
        if (scope := lost_scope(cond)) is None:
            quiet[(alg, size, rest)] = q.median_ms
        else:
            lossy.append((alg, size, rest, as_float(dict(cond)["loss"]) or 0.0, scope,
                          q.median_ms))
    cases: dict[tuple[int | None, Cond, float], dict[str, list[tuple[str, float]]]] = \
        defaultdict(lambda: defaultdict(list))
    for alg, size, rest, loss, scope, ms in lossy:
        if (base := quiet.get((alg, size, rest))) is not None:
            cases[(size, rest, loss)][scope].append((alg, ms / base))
    rests = {rest for _s, rest, _l in cases}
    labels = cond_labels(rests, varying_fields(rests)) if len(rests) > 1 else {}
    lines = []
    for (size, rest, loss), by in sorted(cases.items(), key=lambda kv: (
            kv[0][0] or 0, cond_order(kv[0][1]), kv[0][2])):
        where = f" ({labels[rest]})" if labels else ""
        parts = [f"of {WHAT.get(scope, scope)} " + ", ".join(
            f"{a} x{r:.2f}" for a, r in sorted(algs, key=lambda ar: alg_order(ar[0])))
            for scope, algs in sorted(by.items())]
        lines.append(f"{fmt_size(size)}{where}, {loss_text(loss, None)}: {'; '.join(parts)} "
                     "(each algorithm's median over its own without loss)")
    return lines
