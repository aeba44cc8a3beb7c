"""The multi-node multicast's schemes (Tseng2001): their words, what each is called on a
grid, and each one's plan. The one table the rank program
(collectives.programs.multinode_bench), the testbed's spec, command, benchmark, claims and
report read.

- direct: U-torus trees (U-mesh on a mesh), no partition (plans.direct_plan);
- random, balanced: the three partitioned phases, DDNs chosen at random or balanced
  (plans.partitioned_plan).
"""

from __future__ import annotations

from .grid import Grid, Partition
from .plans import CHOICES, DIRECT_MESH, MultinodePlan, direct_name, direct_plan, partitioned_plan

SCHEMES = ("direct", *CHOICES)  # direct: U-torus (U-mesh on a mesh); random / balanced: partitioned
# what each scheme is called in the rows, the command line and specs, on a torus
SCHEME_NAMES: dict[str, str] = {"direct": "u-torus",
                                **{c: f"partitioned-{c}" for c in CHOICES}}
# the scheme of every name a row or point has, the direct one on either grid
BY_NAME: dict[str, str] = {v: k for k, v in SCHEME_NAMES.items()} | {DIRECT_MESH: "direct"}


def scheme_name(scheme: str, grid: Grid) -> str:
    """What `scheme` is called on `grid`: SCHEME_NAMES, but the direct one is u-mesh on a mesh."""
    return direct_name(grid) if scheme == "direct" else SCHEME_NAMES[scheme]


def scheme_names(grid: Grid) -> dict[str, str]:
    """Every scheme's name on `grid`, in SCHEMES order."""
    return {s: scheme_name(s, grid) for s in SCHEMES}


def plan_for(scheme: str, grid: Grid, dilation: int, pairs: list, seed: int) -> MultinodePlan:
    """`scheme`'s plan of `pairs`; the direct one needs no partition (any dilation will do)."""
    if scheme == "direct":
        return direct_plan(grid, pairs)
    if scheme not in CHOICES:
        raise ValueError(f"unknown scheme {scheme!r}; choose from {', '.join(SCHEMES)}")
    return partitioned_plan(Partition(grid, dilation), pairs, scheme, seed)
