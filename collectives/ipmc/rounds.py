"""Siebert2006's repair rounds (section 3.2.2): how many reliable chain hops a fragment of a
two-stage broadcast took to reach a rank the multicast missed.

In the chain a rank forwards a fragment as soon as it owns it. A rank the multicast reached
first owns the fragment at once (X = 0); one it missed waits for its predecessor, who had it
after X' hops, so X = X' + 1; the root has every fragment (X = 0). With each multicast
failing independently with probability q, a rank d hops behind the root has
E(X) = q + q^2 + ... + q^d, below q / (1 - q): at most 1 for q <= 1/2, whatever the number
of ranks (the thesis: E(X) = sum over i of (i - 1) / 2^i, tending to 1.0).

What a rank records per broadcast is the bitmap of the fragments the multicast brought
before the chain did (`Channel.arrivals`); the rounds are worked out from every rank's
bitmap afterwards, outside the timed broadcasts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

KEPT = 1024  # broadcasts whose bitmaps a channel keeps (the latest)


def rounds(bitmaps: Sequence[bytes], root: int) -> list[list[int]]:
    """X per rank (rank order) and fragment, from every rank's bitmap of the fragments the
    multicast brought first (the root's is ignored: it owns them all)."""
    k = len(bitmaps)
    count = len(bitmaps[root])
    out = [[0] * count for _ in range(k)]
    for hop in range(1, k):
        rank, pred = (root + hop) % k, (root + hop - 1) % k
        mine = bitmaps[rank]
        if len(mine) != count:
            raise ValueError(f"rank {rank} has {len(mine)} fragments, the root {count}")
        out[rank] = [0 if mine[i] else out[pred][i] + 1 for i in range(count)]
    return out


def expected(loss: float, hops: int) -> float:
    """E(X) of a rank `hops` behind the root when each multicast fails with `loss`."""
    return sum(loss ** j for j in range(1, hops + 1))


def expected_mean(loss: float, ranks: int) -> float:
    """E(X) averaged over the ranks behind the root of a chain of `ranks`."""
    return sum(expected(loss, d) for d in range(1, ranks)) / max(ranks - 1, 1)


def thesis_sum(n: int) -> float:
    """The thesis's E(X) = sum_{i=1}^{n} (i - 1) / 2^i (the bound at loss 1/2)."""
    return sum((i - 1) / 2 ** i for i in range(1, n + 1))


def summary(broadcasts: Sequence[Sequence[bytes]], root: int) -> dict[str, Any]:
    """The receivers' rounds over many broadcasts (each the ranks' bitmaps): their mean,
    the histogram, the share the multicast brought first, and the mean by hops behind the
    root."""
    hist: Counter[int] = Counter()
    first = total = 0
    k = len(broadcasts[0]) if broadcasts else 0
    by_hops = [0] * k
    for bitmaps in broadcasts:
        xs = rounds(bitmaps, root)
        for hop in range(1, k):
            rank = (root + hop) % k
            hist.update(xs[rank])
            by_hops[hop] += sum(xs[rank])
            first += sum(1 for b in bitmaps[rank] if b)
            total += len(xs[rank])
    per_rank = total / max(k - 1, 1)
    return {"mean": sum(x * n for x, n in hist.items()) / total if total else None,
            "max": max(hist) if hist else None, "samples": total,
            "hist": {str(x): n for x, n in sorted(hist.items())},
            "multicast_first": first / total if total else None,
            "mean_by_hops": [round(s / per_rank, 4) for s in by_hops[1:]] if total else []}
