"""What one loss costs a broadcast with completion reports (nack, the report scouts), from
the repair accounts a point's record carries beside its samples (`repairs`:
collectives.ipmc.accounting, testbed.experiments.repairs): the median of the broadcasts
repaired in exactly one round minus the median of those that needed none, against what the
root measured of that round: how long after the end of its sending the first gap report
came (detection) and the group round trip its end markers were timed by. One line per
algorithm, size and condition whose broadcasts had repair rounds; flagged points are no
result, so none is stated for them."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .points import Point, alg_order, cond_labels, cond_order, fmt_ms, fmt_size, varying_fields


@dataclass(frozen=True)
class OneLoss:
    """A point's broadcasts by repair rounds, and the cost of one (ms; None where it
    cannot be stated)."""

    none: int  # broadcasts repaired in no round
    one: int  # in exactly one
    more: int  # in two or more
    extra_ms: float | None  # median of those with one round minus median of those with none
    detect_ms: float | None  # the median detection of those with one round
    grtt_ms: float | None  # the median group round trip of those with one round


def _median_ms(xs: Sequence[float]) -> float | None:
    return statistics.median(xs) * 1e3 if xs else None


def one_loss(samples: Sequence[float], repairs: dict[str, list[Any]] | None
             ) -> OneLoss | None:
    """The cost of one repair round over a point's broadcasts (`samples`, seconds, and
    their `repairs` accounts, aligned); None where no broadcast was repaired (or the
    accounts do not line up with the samples)."""
    rounds = (repairs or {}).get("rounds")
    if not rounds or len(rounds) != len(samples) or not any(rounds):
        return None
    assert repairs is not None  # rounds came from it
    rows = list(zip(samples, rounds, repairs["detect_s"], repairs["grtt_s"], strict=True))
    none = [s for s, r, _d, _g in rows if r == 0]
    one = [(s, d, g) for s, r, d, g in rows if r == 1]
    more = sum(1 for _s, r, _d, _g in rows if r is not None and r > 1)
    mid_none, mid_one = _median_ms(none), _median_ms([s for s, _d, _g in one])
    return OneLoss(len(none), len(one), more,
                   None if mid_none is None or mid_one is None else mid_one - mid_none,
                   _median_ms([d for _s, d, _g in one if d is not None]),
                   _median_ms([g for _s, _d, g in one if g is not None]))


def one_loss_text(c: OneLoss) -> str:
    """"one repair round: +X ms over the broadcasts with none (...), detection Y ms + group
    round trip Z ms", or what could not be stated."""
    more = f", {c.more} with more" if c.more else ""
    if not c.one:
        return (f"no broadcast with exactly one repair round ({c.more} with more, {c.none} "
                "with none): the cost of one loss cannot be stated")
    measured = f"detection {fmt_ms(c.detect_ms)} ms + group round trip {fmt_ms(c.grtt_ms)} ms"
    if c.extra_ms is None:
        return (f"every broadcast was repaired ({c.one} in one round{more}): no broadcast "
                f"without a repair to compare with; one round's {measured}")
    sign = "+" if c.extra_ms >= 0 else "-"
    return (f"one repair round: {sign}{fmt_ms(abs(c.extra_ms))} ms over the broadcasts with "
            f"none (median of those with exactly one round minus median of those with "
            f"none, n={c.one} and {c.none}{more}), {measured}")


def repair_costs(points: list[Point]) -> list[str]:
    """One line per algorithm, size and condition whose broadcasts had repair rounds."""
    varying = varying_fields(p.cond for p in points)
    labels = cond_labels({p.cond for p in points}, varying, omit=("hosts",))
    lines = []
    for p in sorted(points, key=lambda p: (p.size or 0, alg_order(p.algorithm),
                                           cond_order(p.cond))):
        if not p.ok:
            continue
        cost = one_loss(p.rec.get("samples_s") or [], p.rec.get("repairs"))
        if cost is None:
            continue
        where = f"{p.algorithm} {fmt_size(p.size)}, {labels[p.cond]}"
        lines.append(f"{where}: flagged, the cost of one loss not stated" if p.flagged
                     else f"{where}: {one_loss_text(cost)}")
    return lines
