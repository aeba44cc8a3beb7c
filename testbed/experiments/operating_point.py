"""The operating point of an experiment's own work: the highest link rate at which the
heaviest points of its sweep keep up, found on the run's network before it measures.

Calibration (testbed.experiments.calibration) finds the rate at which a lossless broadcast
and a loaded link keep up; repair work (NACK rounds, two-stage's chain, where every rank is
busy at once) needs more CPU per frame than that, and a spec's points can go past the
calibrated rate. So an experiment whose rate is automatic (no bw in its topology, not a
resumed run: that keeps the rate it began with) first probes, on the network it is about
to measure on, the sweep's heaviest points: for every algorithm its largest size at the
most hosts and groups, at the highest loss of each loss scope, under each traffic table
and injection interval, without faults; a few broadcasts each (PROBE_REPETITIONS after
PROBE_WARMUP, at most PROBE_BUDGET_S of measuring). The probe is a run of its own
(testbed.experiments.run.execute on the same network) in probe/<rate>/ of the results
folder, its records kept apart from the run's.

A rate passes when every probed point completed, was verified, was not flagged, and stayed
inside calibration's margin: the hosts waited for a core at most calibration.HOST_WAIT_MAX
frame times per turn (the flag is at fidelity.HOST_WAIT_LIMIT), the switch at most
calibration.SWITCH_WAIT_MAX of its time, its forwarding thread had work at most
calibration.SWITCH_WORK_MAX of it, and did so in CONFIRM probes in a row: the margin
and the repeat because fidelity is noisy (two-stage's 64 KiB on 4 hosts at 50 Mbit/s waited
0.8-3.1 frame times in 17 windows; one probe kept up there in 2 runs of 10, and one of those
runs flagged the point) and the run should have no flagged point. The calibrated
rate is tried first; where it fails, the rungs of calibration.LADDER_MBIT below it in turn,
each probing the points that failed the rung above (a point that keeps up at a rate keeps
up below it: calibration's assumption), until one passes. Where none does, the run goes on
at the lowest rung and says which points still do not keep up: their records carry their
flags.

The choice is cached beside the calibrations (cache_file(CACHE_NAME)) per machine and per
everything it depends on (`workload`): a second run of the same work on the same machine
does not probe. A run with the live view open (`--web`) has its own entry: with the page
open, the default experiment's probe chose 10 Mbit/s in 5 runs of 5, without it 20 Mbit/s in
3 of 5 (docs/live-view.md), so a rate probed without the view could flag points with it.
Kinds that are not probed ([multinode] specs: their record in testbed.experiments.kinds says
so) and runs across servers run at the calibrated rate.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..emulation.environment import detected
from ..emulation.network import Emulation
from ..emulation.ports import host_port_type
from ..errors import McastlabError
from ..fidelity.flags import HOST_WAIT_LIMIT, SWITCH_WAIT_LIMIT, SWITCH_WORK_LIMIT
from ..fidelity.link_rate import (
    NOMINAL_MBIT,
    LinkRate,
    nominal_topology,
    operating_point_text,
)
from ..results import read_jsonl, size_text
from ..safepath import make_folder
from .calibration import (
    HOST_WAIT_MAX,
    LADDER_MBIT,
    SWITCH_WAIT_MAX,
    SWITCH_WORK_MAX,
    cache_file,
    cached,
    load_cache,
    machine,
    store,
    topology_key,
)
from .run import Run, condition_text, execute, network, new_run
from .spec import NONE, ExperimentSpec, Point

VERSION = 2  # raise when the probe set, its repetitions, its margin or the shaping change: redone
CACHE_NAME = "operating_points.json"
PROBE_REPETITIONS = 3
PROBE_WARMUP = 1
PROBE_BUDGET_S = 5.0
CONFIRM = 2  # probes in a row a rate's points must keep up in
WORK_PROBE = "work probe"
WORK_PROBE_CACHE = "work probe cache"


@dataclass
class ProbeSpec(ExperimentSpec):
    """A spec cut down to the points of `keys` (its sweep otherwise the spec's), run with
    the probe's few repetitions."""

    keys: frozenset[str] = frozenset()

    def points(self) -> list[Point]:
        return [p for p in super().points() if p.key in self.keys]


def scope(spec: ExperimentSpec, p: Point) -> str | None:
    """Which packets a point's loss drops (None: it loses nothing)."""
    return spec.scope_of(p) if p.loss else None


def probe_spec(spec: ExperimentSpec) -> ProbeSpec:
    """The sweep at its largest size, most hosts and most groups, without faults, at the
    probe's repetitions; its points are all of them until `heaviest` picks."""
    fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(ExperimentSpec)}
    fields |= {"sizes": (max(spec.sizes),), "hosts": (max(spec.hosts),),
               "groups": (max(spec.groups),), "fault_names": (NONE,), "rounds": 1,
               "repetitions": min(spec.repetitions, PROBE_REPETITIONS),
               "warmup": PROBE_WARMUP,
               "budget": min(spec.budget or PROBE_BUDGET_S, PROBE_BUDGET_S),
               "param_repeats": min(spec.param_repeats, PROBE_REPETITIONS)}
    cut = ProbeSpec(**fields)
    cut.keys = frozenset(p.key for p in ExperimentSpec.points(cut))
    return cut


def heaviest(spec: ExperimentSpec) -> list[Point]:
    """The points the probe measures: for every algorithm, traffic table, injection interval
    and loss scope, the largest size at the most hosts and groups, at the highest loss of
    that scope, without faults (without loss where the sweep has none)."""
    best: dict[tuple[Any, ...], Point] = {}
    for p in probe_spec(spec).points():
        k = (p.algorithm, p.traffic, p.interval, scope(spec, p))
        if k not in best or p.loss > best[k].loss:
            best[k] = p
    lossy = {k[:3] for k, p in best.items() if p.loss}
    return sorted((p for k, p in best.items() if p.loss or k[:3] not in lossy),
                  key=lambda p: p.index)


def describe(spec: ExperimentSpec, p: Point) -> dict[str, Any]:
    """A probed point as config.json and the cache name it."""
    return {"algorithm": p.algorithm, "size": p.size, "hosts": p.hosts, "groups": p.groups,
            "loss": p.loss, "scope": scope(spec, p), "traffic": p.traffic,
            "interval_s": p.interval}


def point_text(spec: ExperimentSpec, p: Point) -> str:
    """"two-stage 1 MiB, 8 hosts, loss 30% of multicast datagrams"."""
    return f"{p.algorithm} {size_text(p.size)}, {condition_text(p, scope(spec, p))}"


# ---- the cache ---------------------------------------------------------------------------
def workload(spec: ExperimentSpec, points: list[Point], calibrated: float) -> dict[str, Any]:
    """Everything the operating point depends on besides the machine: the network (shape and
    size), the calibrated rate the probe starts from, the probed points, the traffic they
    run under and how the ranks run."""
    traffic = {p.traffic for p in points} - {NONE}
    return {"version": VERSION, "topology": topology_key(spec.topology),
            "calibrated_mbit": float(calibrated), "collective": spec.collective,
            "points": [describe(spec, p) for p in points],
            "traffic": {n: dataclasses.asdict(spec.traffic[n]) for n in sorted(traffic)},
            "wait": spec.wait, "send_order": spec.send_order, "completion": spec.completion,
            "mode": spec.mode, "switching": spec.switching, "exclude": list(spec.exclude),
            "order": list(spec.order), "repetitions": min(spec.repetitions, PROBE_REPETITIONS)}


def cache_key(work: dict[str, Any]) -> str:
    return hashlib.sha1(json.dumps(work, sort_keys=True).encode()).hexdigest()[:16]


def lookup(here: dict[str, Any], work: dict[str, Any]) -> dict[str, Any] | None:
    """The cached choice for `work` on this machine, or None."""
    data = load_cache(cache_file(CACHE_NAME))
    if data.get("machine") != here:
        return None
    entry = (data.get("entries") or {}).get(cache_key(work))
    if not isinstance(entry, dict) or entry.get("workload") != work or "mbit" not in entry:
        return None
    return entry


def remember(here: dict[str, Any], work: dict[str, Any], record: dict[str, Any]) -> None:
    store(cache_key(work), here, {"mbit": record["mbit"], "workload": work, "record": record,
                                  "when": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
          cache_file(CACHE_NAME))


# ---- judging and walking down --------------------------------------------------------------
def shortfall(rec: dict[str, Any] | None) -> str | None:
    """Why a probed point's record does not keep up with room to spare (None: it does).

    Not calibration.shortfalls, which judges the reference workloads' figures of a probe:
    this judges a point of the spec as its record says (completed, verified, its fidelity
    flags, then calibration's three margins, worded against the flags' limits); the first
    reason only: a rung keeps one per point (Rung.failed)."""
    if rec is None:
        return "not measured"
    if rec.get("status") != "ok" or not rec.get("verified"):
        return f"failed ({rec.get('error') or 'no result'})"
    fid = rec.get("fidelity") or {}
    if fid.get("flags"):
        return "; ".join(fid["flags"])
    frames, switch = fid.get("host_wait_frames"), fid.get("switch_waited")
    if frames is not None and frames > HOST_WAIT_MAX:
        return (f"hosts waited for a core {frames:.0%} of a frame time each turn (the "
                f"probe's margin {HOST_WAIT_MAX:.0%}, the flag's {HOST_WAIT_LIMIT:.0%})")
    if switch is not None and switch > SWITCH_WAIT_MAX:
        return (f"switch waited for a core {switch:.0%} of its time (the probe's margin "
                f"{SWITCH_WAIT_MAX:.0%}, the flag's {SWITCH_WAIT_LIMIT:.0%})")
    work = fid.get("switch_had_work")
    if work is not None and work > SWITCH_WORK_MAX:
        return (f"switch's forwarding thread had work {work:.0%} of the time (the probe's "
                f"margin {SWITCH_WORK_MAX:.0%}, the flag's {SWITCH_WORK_LIMIT:.0%})")
    return None


@dataclass
class Rung:
    """One rate tried: the points probed there and why each that failed did."""

    mbit: float
    probed: list[Point]
    failed: dict[str, str]  # point key -> its shortfall
    seconds: float = 0.0
    folder: str = ""
    attempt: int = 0  # the how-manieth probe at this rate (CONFIRM)


Trial = Callable[[float, list[Point], int], Rung]  # rate, points, attempt at that rate


def walk(calibrated: float, points: list[Point], trial: Trial,
         ladder: tuple[float, ...] = LADDER_MBIT) -> list[Rung]:
    """The calibrated rate, then the ladder's rungs below it in turn, each trying the
    points that failed the rung above, until one passes (or none is left): the rungs
    tried. A rung passes when its points keep up in CONFIRM probes in a row (one short
    probe that keeps up by chance is not enough: fidelity is noisy). The operating point
    is the last one's rate."""
    rungs = [calibrated] + sorted((r for r in ladder if r < calibrated), reverse=True)
    tried: list[Rung] = []
    todo = points
    for mbit in rungs:
        for attempt in range(CONFIRM):
            tried.append(trial(mbit, todo, attempt))
            if tried[-1].failed:
                break
        if not tried[-1].failed:
            break
        todo = [p for p in todo if p.key in tried[-1].failed]
    return tried


def verdict(spec: ExperimentSpec, tried: list[Rung], calibrated: float,
            seconds: float) -> dict[str, Any]:
    """config.json's `operating_point` (and the cache's record): the rate chosen, the
    points and flags that set it (those that failed the rung above it), every rung."""
    def failures(r: Rung) -> list[dict[str, Any]]:
        return [describe(spec, p) | {"text": point_text(spec, p), "why": r.failed[p.key],
                                      "mbit": r.mbit}
                for p in r.probed if p.key in r.failed]

    last = tried[-1]
    return {"version": VERSION, "calibrated_mbit": calibrated, "mbit": last.mbit,
            "keeps_up": not last.failed,
            "points": [describe(spec, p) | {"text": point_text(spec, p)}
                       for p in tried[0].probed],
            "set_by": next((failures(r) for r in reversed(tried) if r.failed), [])
            if not last.failed else [],
            "still_failing": failures(last),
            "rungs": [{"mbit": r.mbit, "attempt": r.attempt + 1, "ok": not r.failed,
                       "probed": len(r.probed),
                       "failed": failures(r), "seconds": round(r.seconds, 1),
                       "folder": r.folder} for r in tried],
            "probe_s": round(seconds, 1), "cached": False}


# ---- on the run's network ------------------------------------------------------------------
def needed(run: Run) -> bool:
    """The run's rate is automatic and not chosen yet: a new run of a bw=auto spec (or one
    interrupted before its probe ended and anything was measured), on this machine alone,
    of a kind that is probed (not a [multinode] sweep)."""
    spec, rate = run.spec, run.config.get("link_rate") or {}
    return (spec.auto_rate and bool(rate.get("auto")) and rate.get("mbit") is not None
            and spec.kind.probed and spec.cluster is None
            and "operating_point" not in run.config and not run.done)


def at_rate(spec: ExperimentSpec, mbit: float) -> Any:
    """The spec's topology with host links at `mbit` (scaled from the nominal network, as
    calibration.resolve scales it)."""
    return nominal_topology(spec.topology_spec).scaled(mbit / NOMINAL_MBIT)


def _retune(emu: Emulation, topo: Any) -> None:
    if not math.isclose(emu.topo.host_rate() or 0.0, topo.host_rate() or 0.0):
        emu.retune(topo)


def trial(run: Run, emu: Emulation, base: ProbeSpec) -> Trial:
    """Probe points at a rate on `emu`: a run of their own in probe/<rate>/."""
    def at(mbit: float, points: list[Point], attempt: int) -> Rung:
        topo = at_rate(run.spec, mbit)
        _retune(emu, topo)
        # its algorithms those of its points: no model measured for an algorithm not probed
        spec = dataclasses.replace(base, topology=topo, keys=frozenset(p.key for p in points),
                                   algorithms=tuple(dict.fromkeys(p.algorithm
                                                                  for p in points)))
        folder = run.out / "probe" / (f"{mbit:g}" + (f"-{attempt + 1}" if attempt else ""))
        if folder.exists():  # an interrupted probe's: measured again
            shutil.rmtree(folder)
        make_folder("results folder", folder)
        again = f" again ({attempt + 1} of {CONFIRM} in a row)" if attempt else ""
        texts = [point_text(run.spec, p) for p in points]
        run.log(f"probing the heaviest points at {mbit:g} Mbit/s{again}: " + "; ".join(texts))
        if run.live is not None:
            run.live.probe(mbit, texts)
        probe = new_run(spec, folder, LinkRate(NOMINAL_MBIT, mbit, True, WORK_PROBE),
                        run.caps, run.log)
        probe.config["probe_of"] = str(run.out)
        probe.save_config()
        t0 = time.monotonic()
        execute(probe, emu=emu)
        recs = {r.get("key"): r for r in read_jsonl(probe.records_file)}
        failed = {p.key: why for p in points if (why := shortfall(recs.get(p.key)))}
        rung = Rung(mbit, points, failed, time.monotonic() - t0,
                    str(folder.relative_to(run.out)), attempt)
        verdict = "keeps up" if not failed else "no: " + "; ".join(
            f"{point_text(run.spec, p)}: {failed[p.key]}" for p in points if p.key in failed)
        run.log(f"  {mbit:g} Mbit/s: {verdict}")
        if run.live is not None:
            run.live.probe(mbit, texts, verdict)
        return rung
    return at


def choose(run: Run, emu: Emulation, *, reprobe: bool = False) -> dict[str, Any]:
    """Find (or take from the cache) the operating point of the run's work on `emu`, up at
    the calibrated rate; retune the network and the run to it and record it in
    config.json (`operating_point`, and `link_rate`, whose source says how it was found)."""
    spec, rate = run.spec, run.config["link_rate"]
    calibrated = float(rate["mbit"])
    points = heaviest(spec)
    here = machine(emu.host_ports)
    work = workload(spec, points, calibrated)
    if run.live is not None:  # the page's drawing and polling load the machine: its own
        work["live_view"] = True  # choice (not keyed without it: older entries stand)
    entry = None if reprobe else lookup(here, work)
    if entry is not None:
        op = dict(entry["record"]) | {"cached": True, "cached_when": entry.get("when")}
    else:
        t0 = time.monotonic()
        tried = walk(calibrated, points, trial(run, emu, probe_spec(spec)))
        op = verdict(spec, tried, calibrated, time.monotonic() - t0)
        remember(here, work, op)
    op["calibration"] = rate.get("source")
    spec.topology = at_rate(spec, op["mbit"])
    _retune(emu, spec.topology)
    chosen = LinkRate(rate.get("nominal_mbit", NOMINAL_MBIT), op["mbit"], True,
                      WORK_PROBE_CACHE if op["cached"] else WORK_PROBE)
    run.config |= {"link_rate": chosen.to_dict(), "topology": spec.topology.to_dict(),
                   "operating_point": op}
    run.save_config()
    took = "" if op["cached"] else f"; probed in {op['probe_s']:g} s"
    run.log(operating_point_text(op) + took)
    run.log(f"link rate: {chosen.text()}")
    return op


def execute_at_operating_point(run: Run, progress: Any = None, *,
                               reprobe: bool = False) -> None:
    """testbed.experiments.run.execute, at the operating point of the run's work where its
    rate is automatic and not chosen yet (`needed`): the network comes up at the calibrated
    rate, the probe (or the cache) chooses, and every point runs at that one rate.
    `reprobe`: probe even where the cache answers."""
    if not needed(run):
        execute(run, progress)
        return
    with network(run) as emu, run.following(emu):
        choose(run, emu, reprobe=reprobe)
        execute(run, progress, emu=emu)


def listing(spec: ExperimentSpec) -> list[str]:
    """What `mcastlab experiment SPEC --list` says of the operating point: whether a probe
    will run before the sweep (and of which points) or the cache answers."""
    if not spec.auto_rate or not spec.kind.probed or spec.cluster is not None:
        return []
    points = heaviest(spec)
    probe = (f"before measuring, the {len(points)} heaviest point(s) are probed at the "
             "calibrated rate and the rungs below it until they keep up: "
             + "; ".join(point_text(spec, p) for p in points))
    if os.geteuid() != 0:  # the machine's port type (the caches' key) is probed as root
        return [f"link rate auto: {probe}, unless the cache of an earlier probe answers "
                "(--list as root says which)"]
    try:
        here = machine(host_port_type(detected(), None))
        cal = cached(topology_key(spec.topology), here, NOMINAL_MBIT)
    except (McastlabError, OSError) as exc:
        return [f"link rate auto: {probe} (this machine's caches not read: {exc})"]
    if cal is None:
        return [f"link rate auto: not calibrated for this network yet (calibrated first); "
                f"then {probe}"]
    calibrated = min(float(cal["mbit"]), NOMINAL_MBIT)
    entry = lookup(here, workload(spec, points, calibrated))
    if entry is None:
        return [f"link rate auto: calibrated {calibrated:g} Mbit/s (cache); {probe}"]
    op = dict(entry["record"]) | {"cached": True}
    return [f"link rate auto: the cache answers, no probe runs: {operating_point_text(op)} "
            f"(probed {entry.get('when')})"]
