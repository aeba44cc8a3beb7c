"""The networks the measured claims share, each brought up once per run at this machine's
calibrated rate (bw=auto) or a stated share of it, and its measured points: a broadcast
under the fidelity monitor, taken once more when the emulator did not keep up (as the labs
do), and kept for the run so that two claims asking for the same broadcast share one
measurement."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collectives.call import BcastCall
from controller.config import ControllerConfig
from topologies import parse_spec

from ..bench.points import Flagged, flagged_bcast
from ..emulation.network import Emulation
from ..experiments.bcast import measure_params
from ..experiments.calibration import resolve
from ..experiments.run import execute, new_run
from ..experiments.spec import from_dict
from ..fidelity.link_rate import LinkRate
from .verdict import point

CALL_FIELDS = ("send_order", "completion", "options")  # the call's; the rest run_bcast's


@dataclass(frozen=True)
class Kind:
    """A network the claims share: its topology spec, the share of the calibrated rate it
    runs at (and at most `max_mbit`), and what else Emulation is told (controller mode,
    flooding bridges)."""

    spec: str
    share: float = 1.0
    max_mbit: float | None = None
    options: dict[str, Any] = field(default_factory=dict)


NETWORKS: dict[str, Kind] = {
    "star16": Kind("star:hosts=16"),
    # two-stage's second stage (a fragmented chain over TCP) keeps every rank busy at once,
    # which the calibration's probes do not: on 16 hosts at 15 of a calibrated 30 Mbit/s the
    # hosts waited 197 % of a frame time for a core (flagged), at 10 they kept up (64 KiB,
    # 2026-11-25). Its claims run at a third of the calibrated rate.
    "star16-busy": Kind("star:hosts=16", 1 / 3),
    # Nupairoj1998's chapter 6 at this machine's scale: a 4x4 mesh whose other 8 hosts run
    # the background generators; at most 10 Mbit/s, the rate up to which the Python
    # generators offer the loads asked (docs/experiments.md)
    "mesh16-load": Kind("mesh:rows=4,cols=4", max_mbit=10.0),
    # Chen2000's 9 PCs on a switch and on a hub: the same star (one calibration, so one
    # rate), its bridge once under the controller (snooping) and once a hub
    # (testbed.emulation.hub): every frame, unicast too, to every port through one medium
    # at the hub's rate; no collisions, and no cut-through. Both at half the calibrated
    # rate: at the whole of it (50 Mbit/s) the scouts on the hub's 9 hosts were flagged in
    # 3 of 3 jobs (hosts waited for a core 160-243 % of a frame time a turn, 2026-11-27):
    # the medium's path (testbed.emulation.one_way) costs cores the calibration's probes
    # do not see
    "star9": Kind("star:hosts=9", 1 / 2),
    "star9-hub": Kind("star:hosts=9", 1 / 2, options={"switch": "hub"}),
    # Tseng2001's torus at this machine's scale: 4x4, one rank per node, the controller's
    # shortest-way X-then-Y routing (testbed.reproduce.tseng)
    "torus16": Kind("torus:rows=4,cols=4"),
    # Coll2003's quaternary fat tree (16 nodes) whose switches multicast to contiguous node
    # ranges only: around failed nodes a broadcast is a tree of range multicasts. Strict
    # (contiguous-strict, controller.lane): as on Elite, range multicasts that request one
    # output port take turns there at its link rate, and go side by side otherwise (each
    # switch's range lane, a class per port that queues without loss:
    # testbed.emulation.lane). Binomial and the barriers' point-to-point messages never
    # enter a lane: all of Coll2003's claims share this network
    "fattree16-strict": Kind("fattree:k=4,n=2", options={
        "controller_config": ControllerConfig(mode="contiguous-strict")}),
}
TRIES = 2  # a flagged point is measured once more (labs.runner does the same)
# broadcasts a point times (after bcast_bench's 3 warm-up ones): 10, or 6 from LONG bytes
# on, where each lasts tens of milliseconds or more and the run's time goes into them
# (10 at every size until 2026-11-27; cut to keep `make reproduce` within 25 minutes)
ITERS, LONG_ITERS, LONG = 10, 6, 65536
POINT_TIMEOUT_S = 240.0


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
                "link_rate": self.rate.to_dict()}

    def params(self, sizes: tuple[int, ...]) -> dict[str, Any]:
        """t_hold/t_end measured at `sizes` (Ping and PingPong on the most distant pair,
        3 repeats of 1 MiB a size), once a run."""
        if sizes not in self.measured_params:
            self.progress(f"reproduce: t_hold/t_end at {', '.join(map(str, sizes))} B")
            self.measured_params[sizes] = measure_params(self.emu, list(sizes), repetitions=3,
                                                         dummy_max=0, budget_bytes=1 << 20)
        return self.measured_params[sizes]

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
        point-to-point trees' sending queue at the root (`root_queue`, collectives.sent)."""
        # `hosts` may also be host names in rank order (failed nodes left out)
        named = tuple(hosts) if isinstance(hosts, list) else hosts
        if iters is None:
            iters = LONG_ITERS if size >= LONG else ITERS
        key = (algorithm, size, named, frames, iters, take,
               json.dumps(kwargs, sort_keys=True))
        if key in self.points:
            return self.points[key]
        run_kwargs = dict(kwargs)
        call = BcastCall(algorithm, size, **{k: run_kwargs.pop(k) for k in CALL_FIELDS
                                             if k in run_kwargs})
        count = len(hosts) if isinstance(hosts, list) else hosts
        label = f"{algorithm} {size} B on {count} hosts" + "".join(
            f", {k}={v}" for k, v in sorted(kwargs.get("options", {}).items())) + (
            f", completion {kwargs['completion']}" if kwargs.get("completion") else "") + (
            f", {kwargs['loss']:.0%} {kwargs.get('loss_scope', 'all')} lost"
            if kwargs.get("loss") else "") + (
            f", take {take + 1}" if take else "") + (
            ", timed back to back too" if kwargs.get("naive") else "") + (
            f", the {kwargs['late'][0]} {kwargs['late'][1]:g} ms late" if kwargs.get("late")
            else "")
        for tries in range(1, TRIES + 1):
            self.progress(f"reproduce: {label}" + (" (again: flagged)" if tries > 1 else ""))
            r = flagged_bcast(self.emu, call, hosts=hosts, repetitions=iters, flow=False,
                              frames=frames, timeout=POINT_TIMEOUT_S, **run_kwargs)
            if r.result is None or not r.flags:
                break
        self.points[key] = p = claim_point(label, r, tries, algorithm=algorithm,
                                           size=size, hosts=count)
        return p

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
    "frames_acks", "frames_medium", "naive_ms", "root_queue", "repair_rounds",
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
                 final_phase_ms=res.final_phase_s * 1e3 if res.final_phase_s else None)
