"""What Chen2000's measured claims share (testbed.reproduce.chen and its chen_* modules): the
scout broadcasts as the paper ran them, asking a network for a claim's points in one batch a
take, and reading counts and ratios off them."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .jobs import taken
from .networks import Ask

SCOUTS = ("scout-linear", "scout-binary")
# the scouts as Chen2000 ran them: no positive completion (collectives.ipmc.gaps); the
# repaired ones (completion "report") are chen.frames's context
AS_CHEN: dict[str, dict[str, Any]] = {a: {"completion": "none"} for a in SCOUTS}
Spec = tuple[str, int, int]  # algorithm, hosts, size
GROWS = 1.1  # a ratio "grows" (figures 11, 13): at least this much from one end to the other


def options(algorithm: str) -> dict[str, Any]:
    """The call options a claim asks for `algorithm` by (Chen's scouts: no completion)."""
    return dict(AS_CHEN.get(algorithm, {}))


def measured(net: Any, specs: Iterable[Spec], n: int, frames: int = 0,
             ask: type[Ask] = Ask, iters: Callable[[int], int | None] = lambda _s: None
             ) -> dict[Spec, list[dict[str, Any]]]:
    """`n` jobs of every (algorithm, hosts, size) of `specs`, measured together (Network.
    batch: one MPI job a take for all those on the same hosts), by spec: its points, take 0
    to n - 1. `frames` > 0: each counted over that many broadcasts; `ask`: the Ask (or a
    subclass keeping more of each result) the batch measures them by; `iters(size)`: the
    broadcasts a point times (None: Network.point's default)."""
    todo = list(dict.fromkeys(specs))
    net.batch([ask(a, s, h, frames=frames, iters=iters(s), kwargs=options(a))
               for a, h, s in todo], n)
    return {(a, h, s): taken(net, a, s, h, n, frames=frames, iters=iters(s), **options(a))
            for a, h, s in todo}


def flat(by: Mapping[Any, Sequence[dict[str, Any]]]) -> list[dict[str, Any]]:
    return [p for ps in by.values() for p in ps]


def counted(jobs: Sequence[dict[str, Any]], key: str) -> float | None:
    """The median over the jobs of a count (None if a job did not read it)."""
    got = [p.get(key) for p in jobs]
    read = [g for g in got if g is not None]
    return None if not got or len(read) < len(got) else statistics.median(read)


def ratio(a: Any, b: Any) -> Callable[[Mapping[Any, float]], float]:
    """The figure m[a] / m[b]."""
    return lambda m: m[a] / m[b]


def fmt(x: float | None, f: str = ".1f") -> str:
    return "-" if x is None else f"{x:{f}}"
