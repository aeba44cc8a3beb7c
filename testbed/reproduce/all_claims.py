"""Every claim `mcastlab reproduce` runs, in report order (paper by paper), and the choice of
which to run: of these, or (--scale) of the scale tier's variants (testbed.reproduce
.scale_tier)."""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import UsageError
from . import (
    benchmarking,
    chen,
    coll,
    nupairoj,
    nupairoj_bmin,
    nupairoj_local,
    pure,
    pure_coll,
    pure_siebert,
    pure_tseng,
    scale_tier,
    siebert,
    siebert_basic,
    source_contention,
    tseng,
)
from .claims import Claim

PAPERS = ("Nupairoj1998", "Coll2003", "Siebert2006", "Tseng2001", "Chen2000")
# paper by paper, each paper's pure claims before its measured ones
CLAIMS: tuple[Claim, ...] = tuple(sorted((*pure.CLAIMS, *pure_coll.CLAIMS,
                                                 *pure_siebert.CLAIMS, *pure_tseng.CLAIMS,
                                                 *nupairoj.CLAIMS, *nupairoj_bmin.CLAIMS,
                                                 *nupairoj_local.CLAIMS,
                                                 *benchmarking.CLAIMS,
                                                 *source_contention.CLAIMS, *coll.CLAIMS,
                                                 *tseng.CLAIMS, *siebert.CLAIMS,
                                                 *siebert_basic.CLAIMS,
                                                 *chen.CLAIMS),
                                         key=lambda c: PAPERS.index(c.paper)))
BY_KEY = {c.key: c for c in CLAIMS}


def tier(scale: bool) -> tuple[Claim, ...]:
    """Every claim of a run, chosen or not: the ordinary ones, or the scale tier's."""
    return scale_tier.CLAIMS if scale else CLAIMS


def select(only: Sequence[str] | None, quick: bool, scale: bool = False) -> list[Claim]:
    """The claims to run: those named (`only`: keys, or a paper's key prefix such as
    `nupairoj`), else all; with `quick`, only those marked for --quick (a named one runs
    in any case); with `scale`, of the scale tier (scale_tier.select). An unknown name is
    a UsageError naming the known ones."""
    if scale:
        return scale_tier.select(only, quick, BY_KEY)
    if not only:
        return [c for c in CLAIMS if c.in_quick or not quick]
    chosen: dict[str, Claim] = {}
    for name in only:
        hits = [c for c in CLAIMS if c.key == name or c.key.startswith(name.rstrip(".") + ".")]
        if not hits:
            raise UsageError(f"reproduce: no claim '{name}' (known: "
                             f"{', '.join(BY_KEY)}; or a paper: "
                             f"{', '.join(dict.fromkeys(k.split('.')[0] for k in BY_KEY))})")
        chosen |= {c.key: c for c in hits}
    return [c for c in CLAIMS if c.key in chosen]
