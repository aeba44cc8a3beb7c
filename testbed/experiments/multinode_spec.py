"""The [multinode] table of an experiment spec: Tseng2001's multi-node multicast measured as
a sweep, in place of a [sweep] of broadcasts.

    name = "tseng2001-hot-spots"
    repetitions = 8
    seed = 0                                  # the draw of the sources and destination sets
    [network]
    topology = "torus:rows=4,cols=4,bw=10"    # a torus or mesh shape: one rank per node
    [multinode]
    schemes = ["u-torus", "partitioned-random", "partitioned-balanced"]
    sources = [4, 8]                          # sources multicasting at once
    dests = 6                                 # destinations of each source
    factors = [0.25, 1.0]                     # hot-spot factors p
    sizes = [4096, 65536]
    dilation = 2

On a mesh (mesh:rows=R,cols=C) the direct scheme is "u-mesh". A point is (scheme, size,
sources, factor); the points of one sources count run in one MPI job. A separate table, not
algorithms of [sweep]: a multi-node multicast has many roots at once and is defined by what a
broadcast's point lacks (sources, destination sets, hot-spot factor, dilation), with the ranks
fixed one per grid node (docs/multinode.md). Sets given by hand are `mcastlab multinode
--sets`'s alone: a spec sweeps the hot-spot model's sources counts and factors, which given
sets replace.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from collectives.partitioning import (
    GRIDS,
    SCHEMES,
    Grid,
    Pairs,
    hotspot_multicasts,
    plan_for,
    scheme_names,
)
from topologies import TopologyError, split_spec
from topologies.spec_file import is_topology_file

from ..errors import UsageError
from . import spec_values as sv
from .spec_values import MAX_SIZE, SpecError

EXAMPLE_TORUS = "torus:rows=4,cols=4"
EXAMPLES = "torus:rows=4,cols=4 or mesh:rows=4,cols=4"
TORUS_DEFAULTS = {"rows": 4, "cols": 4}  # topologies.grid.torus's and mesh's
KEYS = {"schemes", "sources", "dests", "factors", "sizes", "dilation"}
# what a [multinode] spec reads besides its table; the rest is a broadcast sweep's
TOP_KEYS = {"name", "description", "seed", "repetitions", "timeout", "wait", "network",
            "multinode"}
NETWORK_KEYS = {"topology", "switching"}
JOB_TIMEOUT_S = 600.0  # a whole job (one sources count), unless the spec's timeout says


@dataclass(frozen=True)
class MultinodeSweep:
    """What a [multinode] table asks for, checked: every plan can be built."""

    grid: Grid  # a Torus or a Mesh
    schemes: tuple[str, ...]  # multinode_bench's words: direct, random, balanced
    sources: tuple[int, ...]
    dests: int
    factors: tuple[float, ...]
    sizes: tuple[int, ...]
    dilation: int

    def combos(self) -> Iterable[tuple[int, float, int, str]]:
        """(sources, factor, size, scheme), a job's (one sources count) points together, in
        the order multinode_bench measures them."""
        for n in self.sources:
            for p in self.factors:
                for size in self.sizes:
                    for scheme in self.schemes:
                        yield n, p, size, scheme


def schemes_of(words: Iterable[str], grid: Grid, where: str) -> list[str]:
    """multinode_bench's schemes (direct, random, balanced) from their names on `grid`
    (u-torus on a torus, u-mesh on a mesh; partitioned-random, partitioned-balanced) or the
    bench's own words, in order, once. The other grid's direct name is refused: on a mesh a
    U-torus tree is not what runs."""
    names = scheme_names(grid)
    by_name = {v: k for k, v in names.items()}
    other = {"u-torus": "torus", "u-mesh": "mesh"}
    out = []
    for word in words:
        scheme = by_name.get(word, word)
        if word in other and scheme not in SCHEMES:
            raise UsageError(f"{where}: {word} is the direct scheme on a {other[word]}; on the "
                             f"{grid.name} it is {names['direct']}")
        if scheme not in SCHEMES:
            raise UsageError(f"{where}: unknown scheme {word!r}; choose from "
                             f"{', '.join(names.values())}")
        if scheme not in out:
            out.append(scheme)
    if not out:
        raise UsageError(f"{where}: give at least one scheme")
    return out


def grid_of(spec: str, where: str) -> Grid:
    """The torus or mesh a topology spec names (multinode_bench puts rank i on node i of it).
    Any other shape is refused, for every scheme: the partition needs a grid's rows and
    columns, and the direct scheme's U-torus or U-mesh trees are contention-free only under
    a grid's dimension-ordered (xy) routing, which the plans and the step model assume."""
    if is_topology_file(spec):
        raise UsageError(f"{where}: Tseng2001's multicast runs on a torus or mesh shape "
                         f"({EXAMPLES}), not the file {spec}")
    try:
        shape, params = split_spec(spec)
    except TopologyError as exc:
        raise UsageError(f"{where}: {exc}") from None
    if shape not in GRIDS:
        raise UsageError(f"{where}: Tseng2001's multicast needs a torus or a mesh, where xy "
                         f"routing and a partition into DDNs and blocks exist; {shape} has "
                         f"neither (e.g. {EXAMPLES})")
    if params.get("routing", "xy") != "xy":
        raise UsageError(f"{where}: Tseng2001's multicast plans for xy routing, not "
                         f"routing={params['routing']}")
    try:
        return GRIDS[shape](int(params.get("rows", TORUS_DEFAULTS["rows"])),
                            int(params.get("cols", TORUS_DEFAULTS["cols"])))
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: {exc}") from None


def check_plans(grid: Grid, schemes: Iterable[str], sources: int, dests: int, factor: float,
                dilation: int, seed: int, sets: Pairs | None = None) -> None:
    """Build every plan once, before any network, for the hot-spot draw or the `sets` given:
    a workload or partition that cannot be (too many sources or destinations, a dilation
    that does not divide the sides) is a UsageError."""
    try:
        pairs = sets if sets is not None else hotspot_multicasts(grid, sources, dests,
                                                                 factor, seed)
        for scheme in schemes:
            plan_for(scheme, grid, dilation, pairs, seed)
    except ValueError as exc:
        hint = ("" if "divide" not in str(exc) else
                f" (the partitioned schemes' h x h blocks); without a partition only the "
                f"direct scheme, {scheme_names(grid)['direct']}, runs")
        raise UsageError(f"{exc}{hint}") from None


def parse(table: dict[str, Any], topology_spec: str, seed: int) -> MultinodeSweep:
    """The [multinode] table, every key checked (errors name it: ``multinode.sources[1]``)."""
    sv.known(table, KEYS, "multinode.")
    try:  # the readers `mcastlab multinode` shares say UsageError; a spec's errors are its own
        grid = grid_of(topology_spec, "network.topology")
        words = sv.str_list(table, "schemes", list(scheme_names(grid).values()), "multinode.")
        schemes = schemes_of(words, grid, "multinode.schemes")
    except UsageError as exc:
        raise SpecError(str(exc)) from None
    sweep = MultinodeSweep(
        grid=grid, schemes=tuple(schemes),
        sources=_once(sv.int_list(table, "sources", [4], "multinode.", 1, grid.size)),
        dests=sv.integer(table, "dests", 6, 1, "multinode."),
        factors=_once(sv.num_list(table, "factors", [0.25], "multinode.", 0.0, 1.0)),
        sizes=_once(sv.int_list(table, "sizes", [65536], "multinode.", 1, MAX_SIZE)),
        dilation=sv.integer(table, "dilation", 2, 1, "multinode."))
    for n in sweep.sources:
        for p in sweep.factors:
            try:
                check_plans(grid, sweep.schemes, n, sweep.dests, p, sweep.dilation, seed)
            except UsageError as exc:
                raise SpecError(f"multinode: {n} sources, p {p:g}: {exc}") from None
    return sweep


def _once(values: list[Any]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(values))
