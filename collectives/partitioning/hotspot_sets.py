"""Hot-spot workloads for multi-node multicast (Tseng2001, pure).

Tseng2001 draws each destination set D_i of size k in two parts: p * k destinations common to
every D_i (the hot spot), then (1 - p) * k at random from the whole network; a larger p means
more destination contention. Tseng2001 uses as many sources as destinations per set and does
not say where the sources sit; here they are distinct nodes drawn at random.

Two points the seed leaves open, decided here: the common part is a random set (`clustered`
makes it the nodes nearest a random centre instead, a hot *area*), and a source never lists
itself, so a source inside the hot set gets one more random destination instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .grid import Grid

HOT_SPOT_FACTORS = (0.25, 0.5, 0.8, 1.0)  # Tseng2001's p


def hot_set(grid: Grid, size: int, rng: random.Random, clustered: bool = False,
            ) -> frozenset[int]:
    nodes = range(grid.size)
    if not clustered:
        return frozenset(rng.sample(nodes, size))
    centre = rng.randrange(grid.size)
    return frozenset(sorted(nodes, key=lambda n: (grid.distance(centre, n), n))[:size])


def hotspot_multicasts(grid: Grid, count: int, k: int, p: float, seed: int = 0,
                       sources: Sequence[int] | None = None, clustered: bool = False,
                       ) -> list[tuple[int, tuple[int, ...]]]:
    """`count` (source, destinations) pairs with |D_i| = k, round(p * k) of them common."""
    n = grid.size
    if not 0 <= p <= 1:
        raise ValueError(f"hot-spot factor p must be in 0..1, got {p!r}")
    if not 1 <= k < n:
        raise ValueError(f"destinations per source must be in 1..{n - 1}, got {k!r}")
    rng = random.Random(seed)
    if sources is None:
        if not 0 <= count <= n:
            raise ValueError(f"sources must be in 0..{n}, got {count!r}")
        sources = rng.sample(range(n), count)
    elif len(sources) != count:
        raise ValueError(f"{count} sources asked for, {len(sources)} given")
    hot = hot_set(grid, round(p * k), rng, clustered)
    cold = sorted(set(range(n)) - hot)
    out = []
    for s in sources:
        common = hot - {grid.check(s)}
        rest = rng.sample([c for c in cold if c != s], k - len(common))
        out.append((s, tuple(sorted(common | set(rest)))))
    return out
