"""How Siebert2006's measured claims ask for their points: every point of a take in one MPI
job a host count (Network.batch), then read back take by take (jobs.taken); and M/B, the
unit their times are also given in (a message's time on one link at the network's rate)."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, TypeVar

from .jobs import taken
from .networks import Ask

K = TypeVar("K", bound=Hashable)
# a point: (algorithm, hosts, Network.point's keyword arguments: the call's send order and
# options, warmup, ...)
Asked = tuple[str, int, dict[str, Any]]


def batched(net: Any, asks: Mapping[K, Asked], size: int, iters: int | None, n: int,
            once: Sequence[K] = (), sizes: Mapping[K, int] | None = None
            ) -> dict[K, list[dict[str, Any]]]:
    """The points of `asks` at `size` bytes (`sizes`: another for some), `n` jobs each
    (`once`: one job, the first take's), `iters` timed broadcasts a point (None: the
    networks' default); the asks of a take on the same hosts in one job, in the order
    given (a point asked once rides in the first take's job on its hosts: no job of its
    own)."""
    at = {k: (sizes or {}).get(k, size) for k in asks}
    net.batch([Ask(asks[k][0], at[k], asks[k][1], iters=iters, kwargs=asks[k][2],
                   takes=1 if k in once else None) for k in asks], n)
    return {k: taken(net, a, at[k], h, 1 if k in once else n, iters=iters, **kw)
            for k, (a, h, kw) in asks.items()}


def wire_ms(net: Any, size: int) -> float | None:
    """M/B: `size` bytes' time on one link at the network's rate (ms; None where the
    network states no rate)."""
    mbit = getattr(getattr(net, "rate", None), "mbit", None)
    return size * 8 / (mbit * 1e3) if mbit else None
