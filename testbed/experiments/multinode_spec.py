"""The [multinode] table of an experiment spec: Tseng2001's multi-node multicast measured as
a sweep, in place of a [sweep] of broadcasts.

    name = "tseng2001-hot-spots"
    repetitions = 8
    seed = 0                                  # the draw of the sources and destination sets
    [network]
    topology = "torus:rows=4,cols=4,bw=10"    # a torus shape: one rank per node
    [multinode]
    schemes = ["u-torus", "partitioned-random", "partitioned-balanced"]
    sources = [4, 8]                          # sources multicasting at once
    dests = 6                                 # destinations of each source
    factors = [0.25, 1.0]                     # hot-spot factors p
    sizes = [4096, 65536]
    dilation = 2

A point is (scheme, size, sources, factor); the points of one sources count run in one MPI
job. A separate table, not algorithms of [sweep]: a multi-node multicast has many roots at
once and is defined by what a broadcast's point lacks (sources, destination sets, hot-spot
factor, dilation), with the ranks fixed one per torus node (docs/multinode.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from collectives.partitioning.hotspot_sets import hotspot_multicasts
from collectives.partitioning.torus import Torus
from collectives.programs.multinode_bench import SCHEME_NAMES, SCHEMES, plan_for
from topologies import TopologyError, split_spec
from topologies.spec_file import is_topology_file

from ..errors import UsageError
from . import spec_values as sv
from .spec_values import MAX_SIZE, SpecError

EXAMPLE_TORUS = "torus:rows=4,cols=4"
TORUS_DEFAULTS = {"rows": 4, "cols": 4}  # topologies.grid.torus's
KEYS = {"schemes", "sources", "dests", "factors", "sizes", "dilation"}
# what a [multinode] spec reads besides its table; the rest is a broadcast sweep's
TOP_KEYS = {"name", "description", "seed", "repetitions", "timeout", "wait", "network",
            "multinode"}
NETWORK_KEYS = {"topology", "switching"}
JOB_TIMEOUT_S = 600.0  # a whole job (one sources count), unless the spec's timeout says


@dataclass(frozen=True)
class MultinodeSweep:
    """What a [multinode] table asks for, checked: every plan can be built."""

    torus: Torus
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


def scheme_names(words: Iterable[str], where: str) -> list[str]:
    """multinode_bench's schemes (direct, random, balanced) from their names (u-torus,
    partitioned-random, partitioned-balanced) or the bench's own words, in order, once."""
    by_name = {v: k for k, v in SCHEME_NAMES.items()}
    out = []
    for word in words:
        scheme = by_name.get(word, word)
        if scheme not in SCHEMES:
            raise UsageError(f"{where}: unknown scheme {word!r}; choose from "
                             f"{', '.join(SCHEME_NAMES.values())}")
        if scheme not in out:
            out.append(scheme)
    if not out:
        raise UsageError(f"{where}: give at least one scheme")
    return out


def torus_of(spec: str, where: str) -> Torus:
    """The torus a topology spec names (multinode_bench puts rank i on node i of it)."""
    if is_topology_file(spec):
        raise UsageError(f"{where}: Tseng2001's multicast runs on a torus shape, "
                         f"torus:rows=R,cols=C, not the file {spec}")
    try:
        shape, params = split_spec(spec)
    except TopologyError as exc:
        raise UsageError(f"{where}: {exc}") from None
    if shape != "torus":
        raise UsageError(f"{where}: Tseng2001's multicast runs on a torus, not {shape} (e.g. "
                         f"{EXAMPLE_TORUS})")
    try:
        return Torus(int(params.get("rows", TORUS_DEFAULTS["rows"])),
                     int(params.get("cols", TORUS_DEFAULTS["cols"])))
    except (TypeError, ValueError) as exc:
        raise UsageError(f"{where}: {exc}") from None


def check_plans(torus: Torus, schemes: Iterable[str], sources: int, dests: int, factor: float,
                dilation: int, seed: int) -> None:
    """Build every plan once, before any network: a workload or partition that cannot be
    (too many sources or destinations, a dilation that does not divide the sides) is a
    UsageError."""
    try:
        pairs = hotspot_multicasts(torus, sources, dests, factor, seed)
        for scheme in schemes:
            plan_for(scheme, torus, dilation, pairs, seed)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def parse(table: dict[str, Any], topology_spec: str, seed: int) -> MultinodeSweep:
    """The [multinode] table, every key checked (errors name it: ``multinode.sources[1]``)."""
    sv.known(table, KEYS, "multinode.")
    words = sv.str_list(table, "schemes", list(SCHEME_NAMES.values()), "multinode.")
    try:  # the readers `mcastlab multinode` shares say UsageError; a spec's errors are its own
        torus = torus_of(topology_spec, "network.topology")
        schemes = scheme_names(words, "multinode.schemes")
    except UsageError as exc:
        raise SpecError(str(exc)) from None
    sweep = MultinodeSweep(
        torus=torus, schemes=tuple(schemes),
        sources=_once(sv.int_list(table, "sources", [4], "multinode.", 1, torus.size)),
        dests=sv.integer(table, "dests", 6, 1, "multinode."),
        factors=_once(sv.num_list(table, "factors", [0.25], "multinode.", 0.0, 1.0)),
        sizes=_once(sv.int_list(table, "sizes", [65536], "multinode.", 1, MAX_SIZE)),
        dilation=sv.integer(table, "dilation", 2, 1, "multinode."))
    for n in sweep.sources:
        for p in sweep.factors:
            try:
                check_plans(torus, sweep.schemes, n, sweep.dests, p, sweep.dilation, seed)
            except UsageError as exc:
                raise SpecError(f"multinode: {n} sources, p {p:g}: {exc}") from None
    return sweep


def _once(values: list[Any]) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(values))
