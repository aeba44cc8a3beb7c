"""What a run shows of the papers' claims, in a sentence each, from unflagged points only:
how a broadcast's time grows with the number of hosts (Siebert2006: IP multicast stays flat)
and from how many hosts a multicast broadcast beats every point-to-point one (Chen2000's
crossover). A flagged point is no result: a finding that would need one is not made."""

from __future__ import annotations

from collections import defaultdict

from collectives.algorithms import names

from .points import Point, cond_labels, cond_order, fmt_ms, fmt_size, pick, varying_fields, without

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
    """T(max hosts)/T(min hosts) per algorithm and size, multicast ones first."""
    lines = []
    for (alg, size, _cond), per in sorted(_by_hosts(points).items(),
                                          key=lambda kv: (kv[0][1] or 0,
                                                          kv[0][0] not in MULTICAST,
                                                          kv[0][0])):
        if len(per) < 2:
            continue
        lo, hi = min(per), max(per)
        ratio = per[hi] / per[lo]
        shape = "flat" if ratio <= FLAT else f"x{ratio:.1f}"
        lines.append(f"{alg} {fmt_size(size)}: {fmt_ms(per[lo])} ms on {lo} hosts, "
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
