"""Run an experiment spec: expand the sweep, bring the network up once, and measure every
point, with traffic, loss and faults as the point asks; then write the report.

A results folder holds spec.toml (the spec as run), config.json (spec, topology, measured
point-to-point parameters, capabilities, versions), records.jsonl (one record per point,
each with its full configuration and the versions, written and fsynced as soon as the point
is measured: `_Arrivals`), raw/ (what the MPI jobs wrote) and what testbed.report makes of
them. A run that is interrupted or killed keeps every finished point;
``mcastlab experiment --resume FOLDER`` measures the rest (the folder made or reopened:
testbed.experiments.run_folder).

`execute` measures with the runner of the spec's kind (testbed.experiments.kinds): a
broadcast sweep's is here (`run_broadcasts`), as are the Allgather's and the [multinode]
one's, which hand their points to testbed.experiments.allgather and .multinode_run.

Points that share a condition (communicator size, traffic, loss, fault, groups, injection
interval) run in one MPI job, so its start-up is paid once; a point with a fault runs alone,
its fault timeline counted from its first broadcast. A point that fails (an algorithm that
gives up, a job that makes no progress for `timeout` seconds) is recorded as failed and the
run goes on.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collectives.call import BcastCall
from collectives.programs import sweep_bench
from collectives.stats import summarize, tails
from controller.config import ControllerConfig

from .. import results
from ..cluster.spread import across
from ..conditions.faults import FaultTimeline
from ..conditions.traffic import Traffic
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..emulation.periodic import Periodic
from ..emulation.ports import switch_side
from ..errors import McastlabError, RunFailed
from ..fidelity.flags import Monitor, expected_rates
from ..fidelity.link_rate import LinkRate
from ..fidelity.wire_units import in_units
from ..measure.allgather import model_sizes
from ..measure.bcast_model import algorithm_params, prediction
from ..measure.params import measure_params, model_params
from ..measure.rank_placement import geometry, node_params
from ..safepath import make_folder, write_file
from ..specs.loss_scope import loss_text
from ..specs.traffic_model import burstiness, destination_shares, mean_size
from . import allgather, multinode_run
from .relay import Relay
from .repairs import point_repairs
from .spec import NONE, ExperimentSpec, Point

Log = Callable[[str], None]


def point_config(spec: ExperimentSpec, p: Point) -> dict[str, Any]:
    t = spec.traffic.get(p.traffic)
    return {"algorithm": p.algorithm, "size": p.size, "hosts": p.hosts,
            "traffic": p.traffic, "pattern": t.pattern if t else None,
            "load": t.load if t else None, "loss": p.loss, "loss_scope": spec.scope_of(p),
            "fault": p.fault, "groups": p.groups, "interval_s": p.interval,
            "members": spec.groups_of(p), "exclude": list(spec.exclude),
            "topology": spec.topology.name, "mode": spec.mode, "switching": spec.switching,
            "repetitions": spec.repetitions, "warmup": spec.warmup, "budget_s": spec.budget,
            "wait": spec.wait, "link_mbit": spec.topology.host_rate(),
            "send_order": spec.send_order if spec.records[p.algorithm].send_order else None,
            "completion": spec.completion if spec.records[p.algorithm].completion else None}


@dataclass
class Run:
    """The state of one run: its folder, spec, network and what is done."""

    spec: ExperimentSpec
    out: Path
    config: dict[str, Any]
    log: Log
    emu: Any = None
    params: dict[str, Any] | None = None
    done: set[str] = field(default_factory=set)
    jobs: int = 0
    pending: int = 0  # points of the running condition measured, written at its end
    caps: Any = None  # the machine's capabilities, as prepare() found them
    live: Any = None  # the live view (testbed.live.spec_view.SpecView), with --web
    job: list[Point] = field(default_factory=list)  # a running job's points not yet written
    job_line: str = ""  # what was said of that job

    def following(self, emu: Emulation) -> contextlib.AbstractContextManager[None]:
        """The live view (if any) follows `emu` while the block runs."""
        return self.live.follow(emu) if self.live is not None else contextlib.nullcontext()

    @property
    def records_file(self) -> Path:
        return self.out / "records.jsonl"

    def save_config(self) -> None:
        results.write_json(self.out / "config.json", self.config)

    def add_record(self, rec: dict[str, Any]) -> None:
        results.append_line(self.records_file, json.dumps(rec, default=str))  # fsynced
        self.done.add(rec["key"])
        if self.live is not None:
            self.live.record(rec)
            self._show_job()

    def job_started(self, points: Sequence[Point], line: str) -> None:
        """A job measuring `points` started (`line`: what was said of it): a kind whose job
        measures several points and writes each as its row comes (Allgather, multinode)
        shows the live view the first it has not written, then each next."""
        self.job, self.job_line = list(points), line
        self._show_job()

    def _show_job(self) -> None:
        self.job = [p for p in self.job if p.key not in self.done]
        if self.live is not None and self.job:
            n = len(self.job)
            self.live.point(self.spec.kind.record(self.spec, self.job[0]),
                            f"{self.job_line} ({n} point{'s' if n > 1 else ''} of the job "
                            "to write)")


# ---- entry points ------------------------------------------------------------------------------
def opened(spec: ExperimentSpec, out: Path, config: dict[str, Any], log: Log,
            done: set[str] | None = None) -> Run:
    """The run in `out` with `config` written and `done` points (a resumed run's) skipped."""
    run = Run(spec, out, config, log)
    run.done = done or set()
    make_folder("results folder", out / "raw")
    # a resumed run numbers its jobs on from the last attempt's: its raw files are its own
    run.jobs = max((int(m.group(1)) for f in (out / "raw").iterdir()
                    if (m := re.fullmatch(r"points-(\d+)\.json", f.name))), default=0)
    run.save_config()
    return run


def new_run(spec: ExperimentSpec, out: Path, rate: LinkRate, caps: Any, log: Log) -> Run:
    """A fresh run of `spec` (checked, on a checked machine) in the folder `out`, at the
    link rate `rate`: its configuration written, nothing measured yet."""
    config = {"spec_name": spec.name, "spec": spec.raw,
              "spec_file": str(spec.path) if spec.path else None,
              "topology": spec.topology.to_dict(), "points": len(spec.points()),
              "capabilities": caps.to_dict(), "versions": results.versions(),
              "link_rate": rate.to_dict(),
              "cluster": spec.cluster.to_dict() if spec.cluster else None,
              "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "finished": None}
    return opened(spec, out, config, log)


def network(run: Run) -> Emulation:
    """The run's network, to bring up (`with network(run) as emu`): its spec's topology,
    switching and controller mode, over its cluster's servers if it has any."""
    spec = run.spec
    return Emulation(spec.topology, controller_config=ControllerConfig(mode=spec.mode),
                     caps=run.caps, progress=run.log, switch=spec.switching,
                     cluster=across(spec.topology, spec.cluster))


def execute(run: Run, progress: Any = None, emu: Emulation | None = None) -> None:
    """Measure every point not yet done, by the runner of the spec's kind
    (testbed.experiments.kinds: run_broadcasts, run_allgathers, run_multinode). `progress`
    is a rich Progress (or None). `emu`: a network already up with the spec's topology and
    switching to measure on (default: bring one up for the run and tear it down after)."""
    spec = run.spec
    todo = [p for p in spec.points() if p.key not in run.done]
    task = None
    if progress is not None:
        task = progress.add_task("starting", total=len(spec.points()),
                                 completed=len(spec.points()) - len(todo))
    if not todo:
        return
    given = emu is not None  # its live view (if any) follows it already
    up: contextlib.AbstractContextManager[Emulation] = contextlib.nullcontext(emu) if emu \
        else network(run)
    with up as emu, contextlib.nullcontext() if given else run.following(emu):
        run.emu = emu
        spec.kind.run(run, todo, progress, task)
        run.emu = None


def run_broadcasts(run: Run, todo: list[Point], progress: Any, task: Any) -> None:
    """A broadcast sweep's points on the run's network: its excluded nodes failed, t_hold
    and t_end measured first where an algorithm is built from them, then one condition
    (its points in one MPI job) after another."""
    spec, emu = run.spec, run.emu
    if spec.exclude:
        emu.fail_nodes(list(spec.exclude))
    run.params = run.config.get("params")
    if spec.needs_params and run.params is None:
        hosts = spec.param_hosts()
        run.log(f"measuring t_hold/t_end from {hosts[0]} to {len(hosts) - 1} host(s) for "
                f"{len(spec.param_sizes)} sizes (model, OPT-Tree, DYN-Tree)")
        run.params = measure_params(emu, list(spec.param_sizes),
                                    repetitions=spec.param_repeats, hosts=hosts,
                                    budget_bytes=spec.param_budget_bytes,
                                    hold_sends=spec.param_hold_sends)
        run.config["params"] = run.params
        run.save_config()
    ticker = _Ticker(run, progress, task) if progress is not None else None
    with ticker or contextlib.nullcontext():
        for _, group in itertools.groupby(todo, key=lambda p: p.condition):
            _condition(run, list(group), ticker)


def _streamed(run: Run, progress: Any, task: Any
              ) -> tuple[Callable[[dict[str, Any]], None], dict[str, Any]]:
    """How a kind whose records come as its job prints rows (testbed.measure.row_stream)
    writes them: `write` (the record, and the progress bar on to it) and the `context`
    every record carries besides (the link rate and the run)."""
    def write(rec: dict[str, Any]) -> None:
        run.add_record(rec)
        if progress is not None:
            progress.update(task, completed=len(run.done),
                            description=f"{rec['config']['algorithm']} "
                                        f"{results.size_text(rec['config']['size'])}")

    context = {"link_rate": run.config.get("link_rate"),
               "run": {"spec": run.spec.name, "folder": str(run.out),
                       "versions": run.config["versions"]}}
    return write, context


def run_multinode(run: Run, todo: list[Point], progress: Any, task: Any) -> None:
    """A [multinode] spec's points (testbed.experiments.multinode_run), each record written
    as its row comes, in the middle of its job."""
    write, context = _streamed(run, progress, task)
    multinode_run.measure(run.emu, run.spec, todo, write, context, run.log,
                          started=run.job_started)


def run_allgathers(run: Run, todo: list[Point], progress: Any, task: Any) -> None:
    """An Allgather spec's points (testbed.experiments.allgather), each record written as
    its row comes, after t_end for the exchanges' model where the sweep has one."""
    write, context = _streamed(run, progress, task)
    params = run.config.get("params")
    if params is None and any(run.spec.records[a].family == "exchange"
                              for a in run.spec.algorithms):
        sizes = model_sizes(run.spec.sizes, max(run.spec.hosts))
        run.log(f"measuring t_end at {len(sizes)} sizes for the exchanges' model")
        params = run.config["params"] = model_params(run.emu, *sizes)
        run.save_config()
    allgather.measure_points(run.emu, run.spec, todo, write, context, params, run.log,
                             started=run.job_started)


# ---- one condition ---------------------------------------------------------------------------
def _condition(run: Run, points: list[Point], ticker: _Ticker | None) -> None:
    spec, emu, p0 = run.spec, run.emu, points[0]
    groups = spec.groups_of(p0)
    members = [h for g in groups for h in g]
    tspec = spec.traffic.get(p0.traffic)
    run.log(f"{len(points)} point(s): {condition_text(p0, spec.scope_of(p0))}")
    traffic = None
    expected: dict[str, float] = {}
    if tspec is not None:
        traffic = Traffic(emu, tspec, members, seed=spec.seed)
        expected = _expected(spec, traffic)
    if p0.loss:
        emu.set_loss(p0.loss, scope=spec.scope_of(p0) or spec.loss_scope)
    monitor = Monitor(spec.topology, emu.spread)
    arrivals = _Arrivals(run, points, len(groups), monitor, traffic, expected)
    try:
        with traffic or contextlib.nullcontext(), monitor:
            remaining = list(points)
            while remaining:
                batch = remaining[:1] if p0.fault != NONE else remaining
                error, faults = _jobs(run, batch, groups, ticker, arrivals)
                missing = [p for p in batch if p.key not in arrivals.arrived]
                if missing:
                    arrivals.failed(missing[0], error or "the job ended without this point",
                                    faults)
                remaining = [p for p in remaining if p.key not in arrivals.arrived
                             and p.key not in arrivals.failures]
    finally:
        if p0.loss:
            with contextlib.suppress(McastlabError):
                emu.set_loss(0)
        arrivals.close()  # the monitor's last reading is in: the points still waiting


class _Arrivals:
    """The running condition's points as their raw records arrive. A point's record is
    appended to records.jsonl (fsynced) the moment the last of its groups' raw records is on
    disk, so a kill loses no point measured; it is judged with what is known then, never
    less than the condition's end would know of it:

    - fidelity: the monitor's window over the point, once `Monitor.through` has a reading
      at or after its end (the readings that enclose it are then in, so its flags are those
      the condition's end would give); a point it cannot say that of waits for the
      condition's end (`run.pending`);
    - traffic: what the generators counted from their start up to the point's end, the
      condition's figures as far as it has come (a point's own stretch is often shorter
      than the 0.1 s in which its start and end lines are read here: too short to
      measure a load over); generators that do not answer flag the point;
    - faults: those the timeline had applied by then (a later one cannot have acted on it).
    """

    def __init__(self, run: Run, points: list[Point], groups: int, monitor: Monitor,
                 traffic: Traffic | None, expected: dict[str, float]) -> None:
        self.run, self.groups, self.monitor = run, groups, monitor
        self.traffic, self.expected = traffic, expected
        self.points = {p.key: p for p in points}
        self.raw: dict[str, dict[int, dict[str, Any]]] = {}
        self.arrived: set[str] = set()
        self.failures: set[str] = set()
        self.waiting: dict[str, tuple[dict[str, Any] | None, list[dict[str, Any]],
                                      list[str], int]] = {}
        self.job = 0
        self.faults: Callable[[], list[dict[str, Any]]] = list  # applied so far, this job
        self.closed = False
        self._lock = threading.Lock()  # the groups' jobs report from threads of their own

    def got(self, group: int, rec: dict[str, Any]) -> None:
        """Group `group`'s raw record of a point (on disk): the point's record is written
        once every group's is in."""
        with self._lock:
            key = rec.get("key")
            if self.closed or key not in self.points or key in self.arrived:
                return
            self.raw.setdefault(key, {})[group] = rec
            if len(self.raw[key]) < self.groups:
                return
            self.arrived.add(key)
            raw = [self.raw[key][g] for g in range(self.groups)]
            traffic, flags = self._traffic()
            faults = self.faults()
            if self.monitor.through(max(float(r["end"]) for r in raw)):
                self.run.add_record(_record(self.run, self.points[key], raw, None, traffic,
                                            self.monitor, self.expected, faults, flags,
                                            self.job))
            else:
                self.waiting[key] = (traffic, faults, flags, self.job)
                self.run.pending += 1

    def failed(self, p: Point, error: str, faults: list[dict[str, Any]]) -> None:
        """A point its job ended without: recorded as failed at once."""
        with self._lock:
            self.failures.add(p.key)
            self.run.add_record(_record(self.run, p, None, error, None, self.monitor,
                                        self.expected, faults, [], self.job))

    def close(self) -> None:
        """The condition is over (the monitor's last reading taken): the points that waited
        for a reading after their end are written; any report from a job still running
        (after an error) is not taken."""
        with self._lock:
            self.closed = True
            for key, (traffic, faults, flags, job) in self.waiting.items():
                self.run.add_record(_record(self.run, self.points[key],
                                            [self.raw[key][g] for g in range(self.groups)],
                                            None, traffic, self.monitor, self.expected, faults,
                                            flags, job))
                self.run.pending -= 1
            self.waiting.clear()

    def _traffic(self) -> tuple[dict[str, Any] | None, list[str]]:
        """The traffic up to now (a point's end), and the flags it raises."""
        if self.traffic is None:
            return None, []
        try:
            now = self.traffic.snapshot()
        except RunFailed as exc:
            return None, [f"the traffic generators could not be read when the point ended "
                          f"({exc})"]
        return self.traffic.summary(now), []


def _jobs(run: Run, batch: list[Point], groups: list[list[str]], ticker: _Ticker | None,
          arrivals: _Arrivals) -> tuple[str | None, list[dict[str, Any]]]:
    """One MPI job per group, at the same time, over `batch`. Each point's raw records go to
    `arrivals` as they come, so it is written as soon as every group has measured it (also
    when the job is cut off); returns the first error and the faults applied. Each job's
    rank 0 gets the points on its input and says what it does on its output
    (collectives.programs.sweep_bench), which `Relay` turns into the files of raw/: the
    heartbeat that the stall watch, the fault timeline and the progress bar follow, and
    the records."""
    spec, p0 = run.spec, batch[0]
    run.jobs += 1
    arrivals.job = run.jobs
    raw_dir = run.out / "raw"
    points = json.dumps([_job_point(run, p) for p in batch])
    write_file("--out", raw_dir / f"points-{run.jobs}.json", points)
    relays: list[Relay] = []
    for g in range(len(groups)):
        try:
            relays.append(Relay(raw_dir / f"job-{run.jobs}-group{g}.jsonl",
                                raw_dir / f"job-{run.jobs}-group{g}.beat", points,
                                record=functools.partial(arrivals.got, g)))
        except RunFailed:
            for relay in relays:
                relay.close()
            raise
    events = spec.faults.get(p0.fault, ())
    if ticker is not None:
        ticker.watch(batch, relays[0].beat)
    errors: list[str] = []
    fatal: list[BaseException] = []  # what ends the run (a full disk), met in another group
    # a group's ranks on one server read one clock; one that spans servers has none, and
    # then every group is timed by flow latency (the point's figures are of one kind)
    spans = any(len(run.emu.spread.servers_of(hosts)) > 1 for hosts in groups)

    def job(g: int) -> None:
        placed = any(spec.records[p.algorithm].nodes for p in batch)
        args = sweep_bench.argv(
            iters=spec.repetitions, warmup=spec.warmup, interval=p0.interval, label=g,
            budget=spec.budget or None, armed=bool(events),
            rounds=spec.rounds if spec.rounds > 1 else None,
            nodes=[run.emu.topo.host(h).node_id for h in groups[g]] if placed else None,
            flow=spec.repetitions if spans else None)  # spans: no clock the ranks share
        relay = relays[g]
        try:
            run_mpi(run.emu, args, hosts=groups[g], timeout=len(batch) * spec.timeout + 120,
                    stall=(relay.beat, spec.timeout), env={"MCASTLAB_WAIT": spec.wait},
                    stdin=relay.stdin, follow=relay.line, together=True)
        except RunFailed as exc:
            errors.append(str(exc))
        except BaseException as exc:
            if g == 0:
                raise
            fatal.append(exc)

    def armed() -> None:
        for relay in relays:
            relay.say("armed")

    timeline = FaultTimeline(run.emu, events, relays[0].beat.exists,
                             loss_scope=spec.scope_of(p0) or spec.loss_scope, base_loss=p0.loss,
                             keep_failed=spec.exclude, armed=armed)
    arrivals.faults = lambda: list(timeline.applied)
    try:
        with timeline:
            others = [threading.Thread(target=job, args=(g,), daemon=True)
                      for g in range(1, len(groups))]
            for t in others:
                t.start()
            job(0)
            for t in others:
                t.join()
            if fatal:
                raise fatal[0]
    finally:
        for relay in relays:
            relay.close()
        if ticker is not None:
            ticker.watch([], None)
    if timeline.error:
        errors.append(timeline.error)
    return (errors[0] if errors else None), timeline.applied


def _job_point(run: Run, p: Point) -> dict[str, Any]:
    """A point as sweep_bench takes it: its key and its broadcast call (the nodes the ranks
    sit on are each group's, added by the job: sweep_bench --nodes)."""
    alg = run.spec.records[p.algorithm]  # looked up once, as the spec was read
    placement = node_params(run.spec.topology, alg, run.spec.groups_of(p)[0])
    options = algorithm_params(alg, p.size, run.params, p.hosts, placement)
    options |= geometry(run.spec.topology, alg)
    # give up (and say so) before the job stalls
    if alg.family in ("multicast", "range"):
        options["timeout"] = max(1.0, run.spec.timeout / 2)
    call = BcastCall(p.algorithm, p.size, options=options,
                     send_order=run.spec.send_order if alg.send_order else None,
                     completion=run.spec.completion if alg.completion else None)
    return {"key": p.key, "call": call.to_dict()}


def _expected(spec: ExperimentSpec, traffic: Traffic) -> dict[str, float]:
    """The rate each generator's link should carry (see fidelity.expected_rates): what the
    generators were told to offer, sent where their plan sends it."""
    capacity = {h: mbit for h, (_, mbit) in switch_side(spec.topology).items()}
    offered = {h: traffic.spec.load * traffic.link_mbit for h in traffic.hosts}
    return expected_rates(offered, destination_shares(traffic.plan), capacity)


def _record(run: Run, p: Point, raw: list[dict[str, Any]] | None, error: str | None,
            traffic: dict[str, Any] | None, monitor: Monitor, expected: dict[str, float],
            faults: list[dict[str, Any]], flags: list[str], job: int) -> dict[str, Any]:
    """Point `p`'s record: its groups' `raw` records (None: it failed with `error`) judged
    by the monitor over its window, `flags` added (what else makes it no result)."""
    spec = run.spec
    rec: dict[str, Any] = {
        "index": p.index, "key": p.key, "config": point_config(spec, p),
        "status": "failed", "error": error, "t_mcast_s": None, "samples_s": [],
        "predicted_s": prediction(spec.records[p.algorithm], p.hosts, p.size, run.params, None,
                                  node_params(spec.topology, spec.records[p.algorithm],
                                              spec.groups_of(p)[0])),
        "timing": "direct",
        "servers": run.emu.spread.servers_of(h for g in spec.groups_of(p) for h in g),
        "verified": None, "per_group": None, "traffic": traffic, "faults": faults,
        "fidelity": None, "datagrams": None, "cpu": None,
        "link_rate": run.config.get("link_rate"), "t_mcast_units": None,
        "job": job,  # its raw records: raw/job-<job>-group<g>.jsonl
        "run": {"spec": spec.name, "folder": str(run.out), "versions": run.config["versions"]}}
    if raw:
        tspec = spec.traffic.get(p.traffic)
        samples = [s for r in raw for s in r["samples_s"]]
        verified = all(r["verified"] for r in raw)
        flow = all("flow" in r for r in raw)  # across servers: no clock the ranks share
        if flow:  # one figure per group, each the mean of `repetitions` broadcasts
            rec |= {"timing": "flow", "direct_across_servers": {"samples_s": samples}}
            samples = [r["flow"]["t_mcast_s"] for r in raw]
        # what each broadcast's repair cost its root, aligned with samples_s (direct only)
        rec["repairs"] = None if flow else point_repairs(raw)
        rec |= {"status": "ok" if verified and samples else "failed",
                "error": None if verified else "a rank received wrong bytes",
                "verified": verified, "samples_s": samples,
                "t_mcast_s": summarize(samples) if samples else None,
                "t_mcast_units": in_units(summarize(samples)["median"] if samples else None,
                                          p.size, spec.topology.host_rate()),
                "datagrams": raw[0].get("datagrams"), "cpu": raw[0].get("cpu"),
                "root_queue": raw[0].get("root_queue"),
                "late_injections": sum(r.get("late_injections", 0) for r in raw),
                "fidelity": monitor.window(min(r["start"] for r in raw),
                                           max(r["end"] for r in raw), expected,
                                           judge_links=not p.loss and p.fault == NONE,
                                           host_wait_s=_worst_wait(raw),
                                           message_bytes=mean_size(tspec) if tspec else 0.0,
                                           burstiness=burstiness(tspec) if tspec else 0.0)}
        if flags:
            rec["fidelity"]["flags"] += flags
            rec["fidelity"]["ok"] = False
        if len(raw) > 1:
            rec["per_group"] = [{"group": i, "t_mcast_s": summarize([r["flow"]["t_mcast_s"]])
                                 if flow else r["t_mcast_s"]}
                                for i, r in enumerate(raw)]
    # the tail: p50-p99.9, each stated where the samples bear it (collectives.stats.tails)
    rec["tails_s"] = tails(rec["samples_s"]) if rec["samples_s"] else None
    return rec


def _worst_wait(raw: list[dict[str, Any]]) -> float | None:
    """The longest wait for a core per turn any group's ranks saw
    (collectives.programs.bcast_bench)."""
    waits = [w for r in raw if (w := (r.get("cpu") or {}).get("wait_per_turn_s")) is not None]
    return max(waits) if waits else None


def condition_text(p: Point, scope: str | None = None) -> str:
    """What a point runs under, for progress lines and listings: "8 hosts, loss 5% of
    every packet" (`scope`: which packets its loss drops, ExperimentSpec.scope_of)."""
    parts = [f"{p.hosts} hosts"]
    if p.groups > 1:
        parts.append(f"{p.groups} groups")
    if p.traffic != NONE:
        parts.append(f"traffic {p.traffic}")
    if p.loss:
        parts.append(loss_text(p.loss, scope))
    if p.fault != NONE:
        parts.append(f"fault {p.fault}")
    if p.interval:
        parts.append(f"injection every {p.interval * 1e3:g} ms")
    return ", ".join(parts)


class _Ticker:
    """Moves the progress bar as points are written, and names the point that is
    running."""

    def __init__(self, run: Run, progress: Any, task: Any) -> None:
        self.run, self.progress, self.task = run, progress, task
        self.batch: list[Point] = []
        self.beat: Path | None = None
        self.logged = 0
        self.began = time.monotonic()
        # a bar needs a terminal; elsewhere (CI logs, pipes) one line per finished point
        self.plain = not getattr(getattr(progress, "console", None), "is_terminal", False)
        # a beat file may be read while the job writes it: skip that tick
        self._poll = Periodic(self._update, 0.5, ignore=(OSError, ValueError))

    def __enter__(self) -> _Ticker:
        self._poll.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._poll.stop(2)
        self._update()

    def watch(self, batch: list[Point], beat: Path | None) -> None:
        self.batch, self.beat = batch, beat

    def _update(self) -> None:
        done = len(self.run.done) + self.run.pending  # written, and waiting to be
        label = "starting the MPI job"
        if self.beat is not None and self.beat.exists():
            key = self.beat.read_text().strip()
            p = next((q for q in self.batch if q.key == key), None)
            if p is not None:
                where = condition_text(p, self.run.spec.scope_of(p))
                label = f"{p.algorithm} {results.size_text(p.size)} | {where}"
                if self.run.live is not None and p.key not in self.run.done:
                    self.run.live.point(point_config(self.run.spec, p), where)
        total = len(self.run.spec.points())
        self.progress.update(self.task, completed=min(done, total), description=label)
        if self.plain and done > self.logged:
            self.logged = done
            self.run.log(results.step_line(done, total, label, time.monotonic() - self.began))
