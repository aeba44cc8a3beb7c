"""The networks the measured claims share, each brought up once per run at this machine's
calibrated rate (bw=auto) or a stated share of it, and its measured points: a broadcast
under the fidelity monitor, taken once more when the emulator did not keep up (as the labs
do), and kept for the run so that two claims asking for the same broadcast share one
measurement."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collectives.call import BcastCall
from controller.config import ControllerConfig
from topologies import parse_spec

from ..bench.points import Flagged, flagged_bcast, flagged_bcasts
from ..emulation.network import Emulation
from ..experiments.calibration import resolve
from ..experiments.kinds import from_dict
from ..experiments.run import execute, new_run
from ..fidelity.link_rate import LinkRate
from ..measure.bcast_batch import Batched
from ..measure.options import RunOptions
from ..measure.params import measure_params
from .verdict import point

CALL_FIELDS = ("send_order", "completion", "options")  # the call's; the rest run_bcast's


@dataclass(frozen=True)
class Kind:
    """A network the claims share: its topology spec, the share of the calibrated rate it
    runs at (and at most `max_mbit`), what else Emulation is told (controller mode,
    flooding bridges), and `why` it runs there (the report shows it beside each claim)."""

    spec: str
    share: float = 1.0
    max_mbit: float | None = None
    options: dict[str, Any] = field(default_factory=dict)
    why: str = ""


CALIBRATED = ("the calibrated rate: the highest at which this machine keeps every fidelity "
              "invariant for this topology (docs/fidelity.md); there the t_hold/t_end model "
              "prices 1 KiB trees within 0.7-1.0 of what they take, at 100 Mbit/s about 3 x "
              "(software the back-to-back figures do not price), and 1 Gbit/s is flagged")
NETWORKS: dict[str, Kind] = {
    "star16": Kind("star:hosts=16", why=CALIBRATED),
    "star16-busy": Kind("star:hosts=16", 1 / 3, why=(
        "a third of the calibrated rate: two-stage's second stage (a fragmented chain over "
        "TCP) keeps every rank busy at once, which the calibration's probes do not: on 16 "
        "hosts at 15 of a calibrated 30 Mbit/s the hosts waited 197 % of a frame time for a "
        "core (flagged), at 10 they kept up (64 KiB, 2026-11-25)")),
    "mesh16-load": Kind("mesh:rows=4,cols=4", max_mbit=10.0, why=(
        "Nupairoj1998's chapter 6 at this machine's scale: a 4x4 mesh whose other 8 hosts "
        "run the background generators; the calibrated rate, at most 10 Mbit/s, the rate up "
        "to which the Python generators offer the loads asked (docs/experiments.md)")),
    "bmin16": Kind("bmin:n=4", max_mbit=10.0, why=(
        "Nupairoj1998's BMIN (chapters 5 and 6) at this machine's scale: 16 hosts on 4 stages "
        "of 2x2 switches, turnaround routing (up by the destination's digit, then down); the "
        "calibrated rate, at most 10 Mbit/s, as the 4x4 mesh it is compared with "
        "(mesh16-load) and for chapter 6's background generators")),
    "star9": Kind("star:hosts=9", 1 / 2, why=(
        "Chen2000's 9 PCs on a switch, at half the calibrated rate as its hub twin: at the "
        "whole of it (50 Mbit/s) the scouts on the hub's 9 hosts were flagged in 3 of 3 jobs "
        "(hosts waited for a core 160-243 % of a frame time a turn, 2026-11-27)")),
    "star9-hub": Kind("star:hosts=9", 1 / 2, options={"switch": "hub"}, why=(
        "the same star as a hub (testbed.emulation.hub): every frame, unicast too, to every "
        "port through one medium at the hub's rate, no collisions, no cut-through; half the "
        "calibrated rate: the medium's path costs cores the calibration's probes do not see")),
    "torus16": Kind("torus:rows=4,cols=4", why=(
        "Tseng2001's torus at this machine's scale: 4x4, one rank per node, the controller's "
        "shortest-way X-then-Y routing, at " + CALIBRATED)),
    "fattree16-strict": Kind("fattree:k=4,n=2", options={
        "controller_config": ControllerConfig(mode="contiguous-strict")}, why=(
        "Coll2003's quaternary fat tree (16 nodes) whose switches multicast to contiguous "
        "node ranges only, in strict mode (controller.lane: as on Elite, range multicasts "
        "that request one output port take turns there at its link rate, and go side by "
        "side otherwise); binomial and the barriers' messages never enter a lane, so all of "
        "Coll2003's claims share it; at " + CALIBRATED)),
    # the --scale tier's (testbed.reproduce.scale_tier): each star at its own host count's
    # calibrated rate (mcastlab calibrate --host-counts 32 64: 5 and 3 Mbit/s here)
    "star32": Kind("star:hosts=32", why=(
        "Siebert2006's figure 10 at its own largest count (2 to 32 processes): 32 hosts at "
        "the rate calibrated for 32 (5 Mbit/s on the 2-core VM: the hosts waited for a core "
        "124 % of a frame time a turn at 10)")),
    "star64-trees": Kind("star:hosts=64", 2 / 3, why=(
        "64 hosts at two thirds of the rate calibrated for 64 (3 Mbit/s on the 2-core VM: "
        "5 failed at 126 % of a frame time waited): at the whole of it the binary and "
        "binomial trees' 64 KiB broadcasts on 64 hosts, many ranks sending at once, needed "
        "a second try in 6 of 10 jobs and stayed flagged in 2 (the hosts waited 160-178 % "
        "of a frame time, 2026-12-07); at 2 Mbit/s binomial kept up")),
    "star64-busy": Kind("star:hosts=64", 1 / 3, why=(
        "64 hosts at a third of the rate calibrated for 64, as star16-busy is of 16's: "
        "two-stage's second stage keeps every rank busy at once; on 64 hosts at 2 Mbit/s "
        "its 64 KiB broadcast was flagged (the hosts waited 210 % of a frame time), at 1 "
        "it kept up (2026-12-07)")),
}
TRIES = 2  # a flagged point is measured once more (labs.runner does the same)
# broadcasts a point times: 8, or 4 from LONG bytes on, where each lasts tens of
# milliseconds or more and the run's time goes into them. A claim is judged over 5 jobs a
# point (jobs.TAKES), whose spread exceeds a job's own (a job's broadcasts lie within a few
# percent, jobs up to a quarter apart), so the jobs, not the broadcasts a job, are where the
# run's time goes (10 and 6 over 3 jobs until 2026-12-06)
ITERS, LONG_ITERS, LONG = 8, 4, 65536
# untimed broadcasts before them: one (connections are made before any: bcast_bench's
# connect_all; a multicast channel is set up before any: bcast_bench.measure), three where a
# broadcast learns from the ones before it (DYN-Tree's and DYN-Mesh's estimates, nack's pace)
WARMUP, LEARNING_WARMUP, LEARNING = 1, 3, ("dyn-tree", "dyn-mesh", "nack")
POINT_TIMEOUT_S = 240.0


@dataclass(frozen=True)
class Tried:
    flagged: Flagged
    tries: int


JOB_WIDE = ("params", "loss", "loss_scope", "mpich_algorithm", "wait")  # one job's, shared


class Ask:
    """One broadcast a claim asks of a network: what Network.point takes (`kwargs`: the
    call's fields, run_bcast's, `params`), its key per take, its label, and how a batch
    runs it."""

    def __init__(self, algorithm: str, size: int, hosts: int | list[str], frames: int = 0,
                 iters: int | None = None, kwargs: dict[str, Any] | None = None,
                 takes: int | None = None):
        self.algorithm, self.size, self.hosts, self.frames = algorithm, size, hosts, frames
        self.iters = iters if iters is not None else LONG_ITERS if size >= LONG else ITERS
        self.kwargs = dict(kwargs or {})
        self.warmup = self.kwargs.pop("warmup", LEARNING_WARMUP if algorithm in LEARNING
                                      else WARMUP)
        # `hosts` may also be host names in rank order (failed nodes left out)
        self.named = tuple(hosts) if isinstance(hosts, list) else hosts
        self.count = len(hosts) if isinstance(hosts, list) else hosts
        self.takes = takes  # at most this many jobs in a batch (None: the batch's)

    def key(self, take: int) -> tuple:
        return (self.algorithm, self.size, self.named, self.frames, self.iters, self.warmup,
                take, json.dumps(self.kwargs, sort_keys=True, default=str))

    def call(self) -> BcastCall:
        return BcastCall(self.algorithm, self.size, **{k: self.kwargs[k] for k in CALL_FIELDS
                                                       if k in self.kwargs})

    def run_kwargs(self) -> dict[str, Any]:
        """run_bcast's arguments beside the call, hosts, repetitions and frames."""
        return {k: v for k, v in self.kwargs.items() if k not in CALL_FIELDS}

    def job_kwargs(self) -> dict[str, Any]:
        return {k: v for k, v in self.run_kwargs().items() if k in JOB_WIDE}

    def shared(self) -> str:
        """What the asks of one job must share: the hosts and the job-wide settings."""
        return json.dumps([self.named, self.job_kwargs()], sort_keys=True, default=str)

    def batched(self, index: int) -> Batched:
        rest = {k: v for k, v in self.run_kwargs().items() if k not in JOB_WIDE}
        unknown = set(rest) - {"naive", "late"}
        if unknown:
            raise ValueError(f"a batch cannot take {', '.join(sorted(unknown))}")
        return Batched(str(index), self.call(), repetitions=self.iters, frames=self.frames,
                       warmup=self.warmup, **rest)

    def label(self, take: int) -> str:
        kw = self.kwargs
        return f"{self.algorithm} {self.size} B on {self.count} hosts" + "".join(
            f", {k}={v}" for k, v in sorted(kw.get("options", {}).items())) + (
            f", completion {kw['completion']}" if kw.get("completion") else "") + (
            f", {kw['loss']:.0%} {kw.get('loss_scope', 'all')} lost"
            if kw.get("loss") else "") + (
            f", take {take + 1}" if take else "") + (
            ", timed back to back too" if kw.get("naive") else "") + (
            f", the {kw['late'][0]} {kw['late'][1]:g} ms late" if kw.get("late") else "")

    def point(self, r: Flagged, tries: int, take: int) -> dict[str, Any]:
        return claim_point(self.label(take), r, tries, algorithm=self.algorithm,
                           size=self.size, hosts=self.count)


@dataclass
class Network:
    name: str
    spec: str
    emu: Emulation
    rate: LinkRate
    progress: Callable[[str], None]
    points: dict[tuple, dict[str, Any]] = field(default_factory=dict)
    measured_params: dict[tuple, dict[str, Any]] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        return {"topology": self.spec, "rate": self.rate.text(),
                "link_rate": self.rate.to_dict(), "why": NETWORKS[self.name].why}

    def params(self, sizes: tuple[int, ...], hosts: int | None = None) -> dict[str, Any]:
        """t_hold/t_end measured at `sizes` as the broadcasts on the first `hosts` hosts
        (default all) meet them, once a run: t_hold from the first host (every claim's root)
        to each other in turn, kept for every count of back-to-back sends up to theirs (a
        broadcast's model takes its busiest node's), t_end with the host at the median hop
        count from it (testbed.measure.params.measure_params); 3 repeats of 1 MiB a
        size."""
        count = hosts or len(self.emu.topo.hosts)
        key = (sizes, count)
        if key not in self.measured_params:
            self.progress(f"reproduce: t_hold/t_end at {', '.join(map(str, sizes))} B on "
                          f"{count} hosts")
            names = [h.name for h in self.emu.topo.hosts][:count]
            self.measured_params[key] = measure_params(self.emu, list(sizes), repetitions=3,
                                                       dummy_max=0, budget_bytes=1 << 20,
                                                       hosts=names)
        return self.measured_params[key]

    def point(self, algorithm: str, size: int, hosts: int | list[str], frames: int = 0,
              iters: int | None = None, take: int = 0, **kwargs: Any) -> dict[str, Any]:
        """One broadcast of `size` bytes on the first `hosts` hosts, `iters` times (default
        ITERS, LONG_ITERS from LONG bytes on), as a
        point (label, ms, p10/p90, verified, flags, error, rank_done_s, rank_return_s,
        predicted_ms (the
        t_hold/t_end model's, given `params`), frames_sent, frames_data, frames_acks (per
        broadcast: every frame the hosts sent, those with data, TCP's pure ACKs), tries).
        `take` > 0: another job of the same broadcast (a claim that takes the median over
        jobs); `completion=` a scout broadcast's, `loss=` and `loss_scope=` (run_bcast);
        two-stage's Siebert repair rounds (`repair_rounds`, collectives.ipmc.rounds); the
        multicast algorithms' group sockets, their receive buffer and drops (`rcvbuf`,
        collectives.ipmc.sockbuf.summary); the
        point-to-point trees' sending queue at the root (`root_queue`, collectives.sent).
        A point `batch` measured is taken from there."""
        ask = Ask(algorithm, size, hosts, frames, iters, kwargs)
        key = ask.key(take)
        if key in self.points:
            return self.points[key]
        r = self._again(ask, take, None)
        self.points[key] = p = ask.point(r.flagged, r.tries, take)
        return p

    def batch(self, asks: Sequence[Ask], takes: int, rounds: int = 1) -> None:
        """Measure `asks` `takes` times each (an ask's own `takes` if fewer; the points that
        `point` then returns with take 0..takes-1): one MPI job per take for every ask on the
        same hosts with the
        same job-wide settings (params, loss), the asks one after the other in it, so each
        job's start-up is paid once (testbed.measure.bcast_batch); `rounds` > 1: their
        broadcasts taking turns in that many rounds (collectives.programs.bcast_bench
        .interleaved). A flagged point is
        measured once more in a job of its own, as `point` does."""
        groups: dict[str, list[Ask]] = {}
        for a in asks:
            groups.setdefault(a.shared(), []).append(a)
        for take in range(takes):
            for group in groups.values():
                todo = [a for a in group if a.key(take) not in self.points
                        and (a.takes is None or take < a.takes)]
                if not todo:
                    continue
                first = todo[0]
                self.progress(f"reproduce: {len(todo)} broadcasts on {first.count} hosts in "
                              f"one job" + (f", take {take + 1}" if take else ""))
                got = flagged_bcasts(self.emu, [a.batched(i) for i, a in enumerate(todo)],
                                     RunOptions(hosts=first.hosts, flow=False,
                                                timeout=POINT_TIMEOUT_S, **first.job_kwargs()),
                                     rounds)
                for i, a in enumerate(todo):
                    r = got[str(i)]
                    again = self._again(a, take, r) if r.result is not None and r.flags \
                        else Tried(r, 1)
                    self.points[a.key(take)] = a.point(again.flagged, again.tries, take)

    def _again(self, ask: Ask, take: int, first: Flagged | None) -> Tried:
        """The ask measured alone until it is not flagged, TRIES in all (counting `first`,
        an earlier try of it)."""
        tries, r = (1, first) if first is not None else (0, None)
        while tries < TRIES:
            tries += 1
            self.progress(f"reproduce: {ask.label(take)}" + (" (again: flagged)"
                                                            if tries > 1 else ""))
            r = flagged_bcast(self.emu, ask.call(), RunOptions(
                hosts=ask.hosts, repetitions=ask.iters, warmup=ask.warmup, flow=False,
                frames=ask.frames, timeout=POINT_TIMEOUT_S, **ask.run_kwargs()))
            if r.result is None or not r.flags:
                break
        assert r is not None
        return Tried(r, tries)

    def experiment(self, raw: dict[str, Any]) -> list[dict[str, Any]]:
        """The records of an experiment spec (a parsed spec table; its network is this one,
        at this run's rate) run on this network by the experiment runner
        (testbed.experiments.run: traffic, one MPI job a condition, fidelity flags)."""
        spec = from_dict({**raw, "network": {**raw.get("network", {}),
                                             "topology": f"{self.spec},bw={self.rate.mbit:g}"}})
        spec.topology = self.emu.topo
        with tempfile.TemporaryDirectory(prefix="mcastlab-reproduce-") as tmp:
            run = new_run(spec, Path(tmp), self.rate, self.emu.caps, self.progress)
            execute(run, emu=self.emu)
            return [json.loads(line) for line in run.records_file.read_text().splitlines()]


@contextlib.contextmanager
def running(name: str, caps: Any, progress: Callable[[str], None]) -> Iterator[Network]:
    kind = NETWORKS[name]
    spec, share = kind.spec, kind.share
    topo, rate = resolve(spec, progress)
    if rate.mbit is not None and (share != 1.0 or (kind.max_mbit or rate.mbit) < rate.mbit):
        mbit = round(min(rate.mbit * share, kind.max_mbit or rate.mbit), 1)
        how = f" x {share:.2g}" if share != 1.0 else ""
        how += f", at most {kind.max_mbit:g} Mbit/s" if mbit == kind.max_mbit else ""
        rate = LinkRate(rate.nominal_mbit, mbit, True, rate.source + how)
        topo = parse_spec(spec, bw=mbit)
    with Emulation(topo, caps=caps, **kind.options) as emu:
        yield Network(name, spec, emu, rate, progress)


UNMEASURED: dict[str, Any] = dict.fromkeys((
    "rank_done_s", "rank_return_s", "predicted_ms", "frames_sent", "frames_data",
    "frames_acks", "frames_medium", "naive_ms", "root_queue", "repair_rounds", "rcvbuf",
    "final_phase_ms", "iterations"))


def claim_point(label: str, r: Flagged, tries: int, **extra: Any) -> dict[str, Any]:
    """A measured broadcast as the claims judge it (reproduce.verdict.point)."""
    res = r.result
    if res is None:  # every field the claims read, none measured
        return point(label, None, verified=True, flags=r.flags,
                     error=r.error and r.error[:400], tries=tries, **extra,
                     **UNMEASURED)
    frames = res.frames or {}
    return point(label, res.t_mcast.to_dict(), verified=res.verified, flags=r.flags,
                 error=None, tries=tries, **extra, iterations=res.iterations,
                 rank_done_s=res.rank_done_s and list(res.rank_done_s),
                 rank_return_s=res.rank_return_s and list(res.rank_return_s),
                 predicted_ms=res.predicted_s * 1e3 if res.predicted_s else None,
                 frames_sent=frames.get("sent"), frames_data=frames.get("data"),
                 frames_acks=frames.get("acks"), frames_medium=frames.get("medium"),
                 naive_ms=res.naive_s * 1e3 if res.naive_s else None,
                 root_queue=res.root_queue,
                 repair_rounds=(res.datagrams or {}).get("repair_rounds"),
                 rcvbuf=(res.datagrams or {}).get("rcvbuf"),
                 final_phase_ms=res.final_phase_s * 1e3 if res.final_phase_s else None)
