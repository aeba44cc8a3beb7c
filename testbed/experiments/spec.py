"""Experiment specs (TOML): what to run, checked in full before anything starts.

    name = "default"
    repetitions = 10                        # measured broadcasts per point
    [network]
    topology = "star:hosts=8"               # a shape spec (no bw: bw=auto) or a topology file
    [sweep]                                 # every combination is one point
    algorithms = ["binomial", "nack"]
    sizes = [1024, 65536]
    traffic = ["none", "uniform"]           # "none" or names of [traffic.NAME] tables
    loss = [0.0, 0.05]
    loss_scope = ["multicast", "all"]       # optional: each loss under each scope
    [traffic.uniform]
    pattern = "uniform"
    load = 0.2

A ``[cluster]`` table (testbed.specs.cluster) spreads the network over several servers.
``collective = "allgather"`` makes the sweep's algorithms Allgathers; a ``[multinode]``
table in place of ``[sweep]`` measures Tseng2001's multi-node multicast
(testbed.experiments.multinode_spec).

Here: the spec (`ExperimentSpec`, its `Point`s) and each kind's reader (`read_bcast`,
`read_allgather`, `read_multinode`); the table of kinds (testbed.experiments.kinds) says
which reader a spec is read with (its `load` and `from_dict`), and the spec carries its
kind's record.

Every error names the offending key (``sweep.algorithms[2]: unknown algorithm 'foo'``).
The spec is pure data: the machine's capabilities are checked separately (`check_machine`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from collectives.algorithms import (
    COMPLETIONS,
    DEFAULT_COMPLETION,
    DEFAULT_SEND_ORDER,
    SEND_ORDERS,
    Algorithm,
    lookup,
)
from collectives.executor import WAIT_MODES
from collectives.partitioning import scheme_name
from collectives.waiting import DEFAULT as DEFAULT_WAIT
from topologies import Host, Topology, TopologyError, parse_spec

from ..cluster.switch_placement import place
from ..emulation import linkshape
from ..emulation.switching import SWITCHES
from ..errors import CapabilityError, RunFailed
from ..fidelity.link_rate import is_auto, nominal_topology
from ..measure.rank_placement import geometry
from ..specs import cluster as cluster_spec
from ..specs.cluster import ClusterSpec
from ..specs.faults import FAULT_ACTIONS, FaultEvent
from ..specs.loss_scope import SCOPES
from ..specs.traffic_model import TrafficSpec
from . import multinode_spec
from . import spec_values as sv
from .multinode_spec import MultinodeSweep
from .spec_values import MAX_SIZE, SpecError

if TYPE_CHECKING:
    from .kinds import ExperimentKind

NONE = "none"
SWITCHING = tuple(SWITCHES)  # testbed.emulation.switching
MODES = ("igmp", "contiguous", "contiguous-strict")  # controller.config.MODES
LOSS_SCOPES = SCOPES  # testbed.specs.loss_scope, carried out by testbed.emulation.linkshape
# Above this, loss of every packet leaves TCP (and so MPI's own start-up) crawling for minutes.
MAX_LOSS_ALL = 0.2

_TOP = {"name", "description", "seed", "repetitions", "warmup", "rounds", "timeout", "budget",
        "wait", "send_order", "completion", "network", "sweep", "traffic", "faults", "params",
        "cluster", "collective"}
ALLGATHER_TOP = {"name", "description", "seed", "repetitions", "warmup", "timeout", "wait",
                 "collective", "network", "sweep"}
_NETWORK = {"topology", "mode", "switching", "exclude", "order", "loss_scope"}
_SWEEP = {"algorithms", "sizes", "hosts", "traffic", "loss", "loss_scope", "faults", "groups",
          "interval"}
_PARAMS = {"sizes", "repeats", "budget_bytes", "hold_sends"}


@dataclass(frozen=True)
class Point:
    """One measured configuration of a sweep."""

    index: int
    algorithm: str
    size: int
    hosts: int
    traffic: str
    loss: float
    fault: str
    groups: int
    interval: float
    sources: int = 0  # a multi-node multicast's ([multinode]); 0: a broadcast's point
    factor: float = 0.0
    collective: str = "bcast"  # or "allgather" (size: each rank's block)
    # sweep.loss_scope's, on a point that loses packets; None: no loss, or network.loss_scope's
    loss_scope: str | None = None

    @property
    def condition(self) -> tuple[Any, ...]:
        """Everything but algorithm and size: points sharing it run in one MPI job (a
        multi-node multicast's: its sources and hot-spot factor too; a point of a swept loss
        scope: its scope too; any other point's key is as it always was)."""
        base: tuple[Any, ...] = (self.hosts, self.traffic, self.loss, self.fault, self.groups,
                                 self.interval)
        if self.sources:
            base += (self.sources, self.factor)
        return base + (self.loss_scope,) if self.loss_scope else base

    @property
    def key(self) -> str:
        other = [self.collective] if self.collective != "bcast" else []  # a bcast's as ever
        text = json.dumps([self.algorithm, self.size, *self.condition, *other])
        return hashlib.sha1(text.encode()).hexdigest()[:12]


@dataclass
class ExperimentSpec:
    name: str
    description: str
    path: Path | None
    raw: dict[str, Any]
    topology_spec: str
    topology: Topology
    kind: ExperimentKind  # its record in testbed.experiments.kinds.KINDS
    seed: int = 1
    repetitions: int = 10
    warmup: int = 2
    rounds: int = 1  # a condition's points take turns in this many rounds (sweep_bench)
    timeout: float = 120.0
    budget: float | None = None
    wait: str = DEFAULT_WAIT
    send_order: str = DEFAULT_SEND_ORDER  # the point-to-point trees' (SEND_ORDERS)
    completion: str = DEFAULT_COMPLETION  # the scout broadcasts' (COMPLETIONS)
    mode: str = "igmp"
    switching: str = "controller"
    exclude: tuple[int, ...] = ()
    order: tuple[int, ...] = ()  # node ids the communicators take first, in this order
    loss_scope: str = "all"  # network.loss_scope: every lossy point's, unless swept
    loss_scopes: tuple[str, ...] = ()  # sweep.loss_scope: each lossy point under each
    algorithms: tuple[str, ...] = ()
    sizes: tuple[int, ...] = ()
    hosts: tuple[int, ...] = ()
    traffic_names: tuple[str, ...] = (NONE,)
    losses: tuple[float, ...] = (0.0,)
    fault_names: tuple[str, ...] = (NONE,)
    groups: tuple[int, ...] = (1,)
    intervals: tuple[float, ...] = (0.0,)
    traffic: dict[str, TrafficSpec] = field(default_factory=dict)
    faults: dict[str, tuple[FaultEvent, ...]] = field(default_factory=dict)
    param_sizes: tuple[int, ...] = ()
    param_repeats: int = 5
    param_budget_bytes: int | None = None
    param_hold_sends: int | None = None  # None: one to every other host of the measurement
    cluster: ClusterSpec | None = None
    multinode: MultinodeSweep | None = None  # a [multinode] spec's, in place of the sweep
    collective: str = "bcast"  # what the sweep's algorithms are: "bcast" or "allgather"
    # name -> the registry's record of each of `algorithms`, looked up once as the spec is
    # read (records_of): whoever runs or reports a point reads it here, never the registry
    records: dict[str, Algorithm] = field(default_factory=dict)

    def points(self) -> list[Point]:
        """Its points, as its kind lays them out (sweep_points, multinode_points)."""
        return self.kind.points(self)

    def loses(self, loss: float, fault: str) -> bool:
        """Whether a point drops packets at a rate: its loss, or a loss its fault sets."""
        return loss > 0 or any(e.action == "loss" for e in self.faults.get(fault, ()))

    def scope_of(self, p: Point) -> str | None:
        """Which packets point `p`'s loss drops (testbed.specs.loss_scope): its own where
        the sweep varies the scope (None: it loses nothing), else network.loss_scope."""
        return p.loss_scope if self.loss_scopes else self.loss_scope

    @property
    def needs_params(self) -> bool:
        """OPT-Tree, DYN-Tree, OPT-Mesh and OPT-Min are built from measured t_hold/t_end
        (broadcasts: no Allgather's record takes them)."""
        return any(r.timing for r in self.records.values())

    def pool(self) -> list[Host]:
        """The hosts that broadcasts are formed from, in order: all but the excluded nodes,
        which are failed in the controller for the whole run and so out of every range;
        those of `order` first, in its order (a group placed across the network, as
        Nupairoj1998 places its multicast group at random), then the rest in node order."""
        first = {n: i for i, n in enumerate(self.order)}
        return sorted((h for h in self.topology.hosts if h.node_id not in self.exclude),
                      key=lambda h: (first.get(h.node_id, len(first)), h.node_id))

    def groups_of(self, p: Point) -> list[list[str]]:
        """The host names of each of the point's communicators (disjoint, from the pool)."""
        names = [h.name for h in self.pool()]
        return [names[i * p.hosts:(i + 1) * p.hosts] for i in range(p.groups)]

    def param_hosts(self) -> list[str]:
        """Where t_hold/t_end are measured: the hosts of the largest broadcast, in rank order
        (its root first: t_hold from it to each other host in turn, t_end with the one at
        the median hop count: testbed.measure.params.measure_params). A broadcast's model
        takes t_hold at its busiest node's count of sends, up to these hosts' number less
        one."""
        return [h.name for h in self.pool()[:max(self.hosts)]]

    @property
    def auto_rate(self) -> bool:
        """The topology runs at the calibrated rate (no bw given, or bw=auto)."""
        file = self.path.parent / self.topology_spec if self.path else Path(self.topology_spec)
        return not file.is_file() and is_auto(self.topology_spec)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description,
                "file": str(self.path) if self.path else None, "spec": self.raw,
                "topology_spec": self.topology_spec, "points": len(self.points())}


def sweep_points(spec: ExperimentSpec) -> list[Point]:
    """A [sweep]'s points (a broadcast's or an Allgather's), conditions outermost so that
    one MPI job runs a condition's points."""
    scopes: tuple[str | None, ...] = spec.loss_scopes or (None,)
    combos = itertools.product(spec.hosts, spec.traffic_names, spec.losses, scopes,
                               spec.fault_names, spec.groups, spec.intervals,
                               spec.algorithms, spec.sizes)
    out: list[Point] = []
    for hosts, traffic, loss, scope, fault, groups, interval, alg, size in combos:
        if scope is not None and not spec.loses(loss, fault):
            if scope != scopes[0]:
                continue  # a point that loses nothing has no scope: one, not one a scope
            scope = None
        out.append(Point(len(out), alg, size, hosts, traffic, loss, fault, groups,
                         interval, collective=spec.collective, loss_scope=scope))
    return out


def multinode_points(spec: ExperimentSpec) -> list[Point]:
    """A [multinode] table's points: (sources, factor, size, scheme), a job's together."""
    assert spec.multinode is not None
    grid = spec.multinode.grid
    return [Point(i, scheme_name(scheme, grid), size, grid.size, NONE, 0.0, NONE, 1, 0.0,
                  sources, factor)
            for i, (sources, factor, size, scheme) in enumerate(spec.multinode.combos())]


# ---- reading -----------------------------------------------------------------------------------
def records_of(names: tuple[str, ...], collective: str) -> dict[str, Algorithm]:
    """Each sweep algorithm's record, looked up once (the registry's one wording for an
    unknown name, after where it is: sweep.algorithms[i])."""
    out = {}
    for i, name in enumerate(names):
        try:
            out[name] = lookup(collective, name)
        except ValueError as e:
            raise SpecError(f"sweep.algorithms[{i}]: {e}") from None
    return out


def read_bcast(raw: dict[str, Any], path: Path | None, kind: ExperimentKind) -> ExperimentSpec:
    """A broadcast sweep's spec (collective = "bcast", the default), every key checked."""
    sv.known(raw, _TOP, "")
    net = sv.table(raw, "network")
    sv.known(net, _NETWORK, "network.")
    sweep = sv.table(raw, "sweep")
    sv.known(sweep, _SWEEP, "sweep.")
    topo_spec = net.get("topology", "star:hosts=8")
    topo = _topology(topo_spec, path)
    spec = ExperimentSpec(
        **_read_alike(raw, path, topo_spec, topo, kind, timeout=120.0),
        budget=sv.number(raw, "budget", 0.0, 0.0) or None,
        rounds=sv.integer(raw, "rounds", 1, 1),
        wait=sv.choice(raw, "wait", DEFAULT_WAIT, WAIT_MODES, ""),
        send_order=sv.choice(raw, "send_order", DEFAULT_SEND_ORDER, tuple(SEND_ORDERS), ""),
        completion=sv.choice(raw, "completion", DEFAULT_COMPLETION, tuple(COMPLETIONS), ""),
        mode=sv.choice(net, "mode", "igmp", MODES, "network."),
        switching=sv.choice(net, "switching", "controller", SWITCHING, "network."),
    )
    top = max([h.node_id for h in topo.hosts], default=0)
    spec.exclude = tuple(sv.int_list(net, "exclude", [], "network.", 0, top, empty=True))
    spec.order = tuple(sv.int_list(net, "order", [], "network.", 0, top, empty=True))
    _check_order(spec, topo)
    n_hosts = len(spec.pool())
    if not n_hosts:
        raise SpecError("network.exclude: every host is excluded")
    spec.algorithms = tuple(sv.str_list(sweep, "algorithms", None, "sweep."))
    spec.records = records_of(spec.algorithms, "bcast")
    for i, alg in enumerate(spec.algorithms):
        try:
            geometry(topo, spec.records[alg])
        except RunFailed as e:
            raise SpecError(f"sweep.algorithms[{i}]: {e}") from None
    spec.sizes = tuple(sv.int_list(sweep, "sizes", None, "sweep.", 0, MAX_SIZE))
    spec.hosts = tuple(sv.int_list(sweep, "hosts", [n_hosts], "sweep.", 1, n_hosts))
    _loss_sweep(net, sweep, spec)
    spec.groups = tuple(sv.int_list(sweep, "groups", [1], "sweep.", 1, n_hosts))
    spec.intervals = tuple(sv.num_list(sweep, "interval", [0.0], "sweep.", 0.0, 3600.0))
    for g in spec.groups:
        for h in spec.hosts:
            if g * h > n_hosts:
                raise SpecError(f"sweep.groups: {g} groups of {h} hosts need {g * h} hosts; "
                                f"{topo.name} has {n_hosts} not excluded")
    spec.traffic = _traffic_tables(sv.table(raw, "traffic"), topo)
    spec.traffic_names = _names(sweep, "traffic", spec.traffic)
    spec.faults = _fault_tables(sv.table(raw, "faults"), topo)
    spec.fault_names = _names(sweep, "faults", spec.faults)
    for name in spec.traffic_names:
        _check_traffic_hosts(name, spec)
    params = sv.table(raw, "params")
    sv.known(params, _PARAMS, "params.")
    default_sizes = sorted({1, *(max(s, 1) for s in spec.sizes), 1024, 65536})  # 0 B: 1
    spec.param_sizes = tuple(sv.int_list(params, "sizes", default_sizes, "params.", 1, MAX_SIZE))
    spec.param_repeats = sv.integer(params, "repeats", 5, 1, "params.")
    spec.param_budget_bytes = sv.integer(params, "budget_bytes", 8 << 20, 1, "params.")
    if "hold_sends" in params:
        spec.param_hold_sends = sv.integer(params, "hold_sends", 1, 1, "params.")
    if not spec.points():
        raise SpecError("sweep: the sweep is empty")
    if "cluster" in raw:
        try:
            cluster = cluster_spec.from_dict(sv.table(raw, "cluster"))
        except ValueError as exc:
            raise SpecError(str(exc)) from None
        across_servers(spec, cluster, "cluster")
    return spec


def _check_order(spec: ExperimentSpec, topo: Topology) -> None:
    """network.order: distinct nodes of the topology, none of them excluded."""
    ids = {h.node_id for h in topo.hosts}
    for i, n in enumerate(spec.order):
        if n not in ids:
            raise SpecError(f"network.order[{i}]: {topo.name} has no node {n}")
        if n in spec.exclude:
            raise SpecError(f"network.order[{i}]: node {n} is excluded")
        if n in spec.order[:i]:
            raise SpecError(f"network.order[{i}]: node {n} is listed twice")


def _read_alike(raw: dict[str, Any], path: Path | None, topo_spec: str, topo: Topology,
                kind: ExperimentKind, *, timeout: float) -> dict[str, Any]:
    """What every kind of spec reads alike, in the order its errors are found: its name and
    description, where it came from, its network, its kind, seed, repetitions, warm-up and
    timeout (`timeout` the kind's default). A [multinode] spec refuses `warmup` by name
    before."""
    return {"name": sv.string(raw, "name", path.stem if path else "experiment"),
            "description": sv.string(raw, "description", ""),
            "path": path, "raw": raw, "topology_spec": topo_spec, "topology": topo,
            "kind": kind,
            "seed": sv.integer(raw, "seed", 1, 0),
            "repetitions": sv.integer(raw, "repetitions", 10, 1),
            "warmup": sv.integer(raw, "warmup", 2, 0),
            "timeout": sv.number(raw, "timeout", timeout, 1.0)}


def _only(raw: dict[str, Any], keys: set[str], what: str, prefix: str = "") -> None:
    """Refuse what a spec of another kind reads (a broadcast sweep's traffic, say), naming
    the key and the keys this kind reads."""
    for key in raw:
        if key not in keys:
            raise SpecError(f"{prefix}{key}: {what} reads only {', '.join(sorted(keys))}")


def read_allgather(raw: dict[str, Any], path: Path | None,
                   kind: ExperimentKind) -> ExperimentSpec:
    """A spec with collective = "allgather": its sweep's algorithms are Allgathers
    (collectives.algorithms.ALLGATHERS), its sizes each rank's block; hosts and loss as a
    broadcast sweep's. Traffic, faults, groups and injection are not measured for an
    Allgather yet: refused by name."""
    what = "an Allgather spec (collective = \"allgather\")"
    _only(raw, ALLGATHER_TOP, what)
    net, sweep = sv.table(raw, "network"), sv.table(raw, "sweep")
    _only(net, {"topology", "switching", "loss_scope"}, what, "network.")
    _only(sweep, {"algorithms", "sizes", "hosts", "loss", "loss_scope"}, what, "sweep.")
    topo_spec = net.get("topology", "star:hosts=8")
    topo = _topology(topo_spec, path)
    n_hosts = len(topo.hosts)
    spec = ExperimentSpec(
        **_read_alike(raw, path, topo_spec, topo, kind, timeout=600.0),
        wait=sv.choice(raw, "wait", DEFAULT_WAIT, WAIT_MODES, ""),
        switching=sv.choice(net, "switching", "controller", SWITCHING, "network."),
        collective="allgather")
    spec.algorithms = tuple(sv.str_list(sweep, "algorithms", None, "sweep."))
    spec.records = records_of(spec.algorithms, "allgather")
    spec.sizes = tuple(sv.int_list(sweep, "sizes", None, "sweep.", 0, MAX_SIZE))
    spec.hosts = tuple(sv.int_list(sweep, "hosts", [n_hosts], "sweep.", 2, n_hosts))
    _loss_sweep(net, sweep, spec)
    return spec


def _loss_sweep(net: dict[str, Any], sweep: dict[str, Any], spec: ExperimentSpec) -> None:
    """The sweep's losses and which packets they drop: network.loss_scope (one scope for
    all, default "all") or sweep.loss_scope (each loss under each scope, side by side),
    never both. Loss of every packet above MAX_LOSS_ALL is refused for each (loss, scope)
    that would run."""
    spec.losses = tuple(sv.loss(v, f"sweep.loss[{i}]")
                        for i, v in enumerate(sv.items(sweep, "loss", [0.0], "sweep.")))
    if "loss_scope" in sweep and "loss_scope" in net:
        raise SpecError("network.loss_scope, sweep.loss_scope: give one (network.loss_scope: "
                        "one scope for every loss; sweep.loss_scope: each loss under each)")
    if "loss_scope" in sweep:
        scopes = sv.str_list(sweep, "loss_scope", None, "sweep.")
        for i, scope in enumerate(scopes):
            if scope not in LOSS_SCOPES:
                raise SpecError(f"sweep.loss_scope[{i}]: unknown '{scope}' "
                                f"(one of {', '.join(LOSS_SCOPES)})")
            if scope in scopes[:i]:
                raise SpecError(f"sweep.loss_scope[{i}]: '{scope}' is listed twice")
        spec.loss_scopes = tuple(scopes)
        every = [f", sweep.loss_scope[{scopes.index('all')}]"] if "all" in scopes else []
        advice = (f"at most {MAX_LOSS_ALL:g} under \"all\" (higher losses of multicast "
                  "datagrams alone in a spec of their own: network.loss_scope = \"multicast\")")
    else:
        spec.loss_scope = sv.choice(net, "loss_scope", "all", LOSS_SCOPES, "network.")
        every = [""] if spec.loss_scope == "all" else []
        advice = f"above {MAX_LOSS_ALL:g} set network.loss_scope = \"multicast\""
    for i, loss in enumerate(spec.losses):
        if every and loss > MAX_LOSS_ALL:
            raise SpecError(f"sweep.loss[{i}]{every[0]}: {loss:g} of every packet leaves TCP, "
                            f"and so MPI, crawling; {advice}")


def read_multinode(raw: dict[str, Any], path: Path | None,
                   kind: ExperimentKind) -> ExperimentSpec:
    """A [multinode] spec: Tseng2001's multi-node multicast (testbed.experiments.
    multinode_spec); what only a broadcast sweep reads is refused, naming the key."""
    _only(raw, multinode_spec.TOP_KEYS, "a [multinode] spec measures multi-node multicasts and")
    net = sv.table(raw, "network")
    sv.known(net, multinode_spec.NETWORK_KEYS, "network.")
    topo_spec = net.get("topology", multinode_spec.EXAMPLE_TORUS)
    topo = _topology(topo_spec, path)
    alike = _read_alike(raw, path, topo_spec, topo, kind, timeout=multinode_spec.JOB_TIMEOUT_S)
    return ExperimentSpec(
        **alike,
        wait=sv.choice(raw, "wait", DEFAULT_WAIT, WAIT_MODES, ""),
        switching=sv.choice(net, "switching", "controller", SWITCHING, "network."),
        multinode=multinode_spec.parse(sv.table(raw, "multinode"), topo_spec, alike["seed"]))


def across_servers(spec: ExperimentSpec, cluster: ClusterSpec, where: str) -> None:
    """Spread `spec`'s network over `cluster` (from its [cluster] table, or `where` names the
    option that gave it), refusing what only one machine measures. A calibrated rate (no bw)
    stays this machine's alone: safe, since each server then carries less of the network."""
    if any(spec.intervals):
        raise SpecError(f"{where}: injected broadcasts (sweep.interval > 0) are timed on the "
                        "clock the hosts share, and servers share none")
    if SWITCHES[spec.switching].one_machine:
        raise SpecError(f"{where}: a network across servers runs on Open vSwitch switches, "
                        f"not {spec.switching}s (network.switching)")
    try:
        place(spec.topology, cluster.names, cluster.placement)
    except ValueError as exc:
        raise SpecError(f"{where}: {exc}") from None
    spec.cluster = cluster


def check_machine(spec: ExperimentSpec, caps: Any) -> None:
    """Refuse what this machine cannot emulate, naming the key (before anything starts)."""
    try:
        linkshape.check(spec.topology, caps)
    except CapabilityError as exc:
        raise SpecError(f"network.topology: {exc}") from None
    lossy = any(spec.losses) or any(e.action in ("loss", "down") for ev in spec.faults.values()
                                    for e in ev)
    if lossy and not caps.netfilter_statistic:
        raise SpecError("sweep.loss: run-time loss needs the netfilter statistic match "
                        "(xt_statistic), which this kernel lacks")
    if spec.switching != "controller" and spec.mode != "igmp":
        raise SpecError("network.mode: contiguous mode needs switching = \"controller\"")


def _names(sweep: dict[str, Any], key: str, tables: dict[str, Any]) -> tuple[str, ...]:
    names = sv.str_list(sweep, key, [NONE], "sweep.")
    for i, name in enumerate(names):
        if name != NONE and name not in tables:
            raise SpecError(f"sweep.{key}[{i}]: no [{key}.{name}] table "
                            f"(defined: {', '.join(tables) or 'none'})")
    return tuple(names)


def _topology(text: Any, path: Path | None) -> Topology:
    if not isinstance(text, str):
        raise SpecError(f"network.topology: must be a string, got {text!r}")
    candidate = (path.parent / text) if path is not None else Path(text)
    try:
        if candidate.is_file():
            return parse_spec(str(candidate))
        return nominal_topology(text)  # bw=auto is resolved when the run starts
    except TopologyError as exc:
        raise SpecError(f"network.topology: {exc}") from None


def _traffic_tables(tables: dict[str, Any], topo: Topology) -> dict[str, TrafficSpec]:
    out = {}
    names = {h.name for h in topo.hosts}
    for name, table in tables.items():
        if name == NONE:
            raise SpecError("traffic.none: 'none' means no traffic; pick another name")
        if not isinstance(table, dict):
            raise SpecError(f"traffic.{name}: must be a table")
        try:
            out[name] = TrafficSpec.from_dict(table)
        except ValueError as exc:
            raise SpecError(f"traffic.{name}.{exc}") from None
        spec = out[name]
        listed = spec.hosts if isinstance(spec.hosts, list) else []
        for h in [*listed, *([spec.hot] if spec.hot else [])]:
            if h not in names:
                raise SpecError(f"traffic.{name}: no host '{h}' in {topo.name}")
    return out


def _check_traffic_hosts(name: str, spec: ExperimentSpec) -> None:
    if name == NONE:
        return
    t = spec.traffic[name]
    n = len(spec.topology.hosts)
    if t.hosts == "others":
        for g in spec.groups:
            for h in spec.hosts:
                if g * h >= n - 1:
                    raise SpecError(f"traffic.{name}.hosts: \"others\" needs two hosts outside "
                                    f"the communicators; {g} x {h} of {n} hosts leave "
                                    f"{n - g * h} (use \"all\" to share the hosts)")


def _fault_tables(tables: dict[str, Any], topo: Topology) -> dict[str, tuple[FaultEvent, ...]]:
    out = {}
    hosts = {h.name for h in topo.hosts}
    links = {f"{lk.node1}-{lk.node2}" for lk in topo.links} | \
        {f"{lk.node2}-{lk.node1}" for lk in topo.links}
    nodes = {str(h.node_id) for h in topo.hosts}
    for name, table in tables.items():
        where = f"faults.{name}"
        if name == NONE:
            raise SpecError("faults.none: 'none' means no faults; pick another name")
        if not isinstance(table, dict):
            raise SpecError(f"{where}: must be a table")
        sv.known(table, {"events"}, where + ".")
        events = []
        for i, ev in enumerate(sv.items(table, "events", None, where + ".")):
            at = f"{where}.events[{i}]"
            if not isinstance(ev, dict):
                raise SpecError(f"{at}: must be a table like {{at = 1.0, down = \"h3\"}}")
            sv.known(ev, {"at", *FAULT_ACTIONS, "on"}, at + ".")
            if "at" not in ev:
                raise SpecError(f"{at}.at: missing (seconds into the run)")
            when = sv.number(ev, "at", 0.0, 0.0, at + ".")
            actions = [a for a in FAULT_ACTIONS if a in ev]
            if len(actions) != 1:
                raise SpecError(f"{at}: give exactly one of {', '.join(FAULT_ACTIONS)}")
            action = actions[0]
            if action == "loss":
                lost = sv.loss(ev["loss"], f"{at}.loss")
                target = sv.string(ev, "on", "", at + ".")
                if target not in hosts:
                    raise SpecError(f"{at}.on: no host '{target}' in {topo.name}")
                events.append(FaultEvent(when, action, target, lost))
                continue
            target = str(ev[action])
            valid = nodes if action in ("fail", "restore") else hosts | links
            if target not in valid:
                what = "node id" if action in ("fail", "restore") else "host or link (a-b)"
                raise SpecError(f"{at}.{action}: no {what} '{target}' in {topo.name}")
            events.append(FaultEvent(when, action, target))
        out[name] = tuple(sorted(events, key=lambda e: e.at))
    return out
