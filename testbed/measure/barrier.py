"""Barriers across the emulated hosts in one MPI job (collectives.programs.barrier_bench)
under the fidelity monitor: how long each took and, counted on the switches' ports, the
frames it put on the wire per barrier, those that carry data apart from TCP's pure ACKs
(testbed.emulation.frame_count), as run_bcast counts a broadcast's."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from collectives.call import BarrierCall
from collectives.programs import barrier_bench
from collectives.waiting import DEFAULT as DEFAULT_WAIT

from ..emulation.frame_count import FrameCounter
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed
from ..fidelity.flags import Monitor
from .job import rank_hosts
from .options import Defaults, RunOptions
from .rank_placement import node_params
from .times import Times

Row = tuple[str, Mapping[str, Any]]  # a barrier and its options (release=, timeout=, ...)


def calls_of(rows: Sequence[Row | BarrierCall]) -> list[BarrierCall]:
    """Each row as a call (made here: its name looked up once), RunFailed for a bad one."""
    try:
        return [r if isinstance(r, BarrierCall) else BarrierCall(r[0], dict(r[1]))
                for r in rows]
    except ValueError as e:
        raise RunFailed(str(e)) from None


@dataclass(frozen=True)
class BarrierResult:
    """One row of run_barriers (which says what each field means); `to_dict` is the record
    results folders hold (`t_barrier_s` the summary, `flags` the timed barriers')."""

    algorithm: str
    options: dict[str, Any]
    rank_hosts: tuple[str, ...]
    topology: str
    wait: str
    iterations: int
    t_barrier: Times | None
    released_early: int
    p2p_releases: int
    family: str
    release: str | None = None
    frame_iters: int = 0
    frames: dict[str, Any] | None = None
    fidelity: dict[str, Any] = field(default_factory=dict)  # {"timed": ..., "counted": ...}

    @property
    def label(self) -> str:
        return label(self.algorithm, self.options)

    @property
    def hosts(self) -> int:
        return len(self.rank_hosts)

    @property
    def flags(self) -> list[str]:
        """The fidelity flags over the timed barriers (what judges the point)."""
        return list((self.fidelity.get("timed") or {}).get("flags", []))

    @property
    def counted_flags(self) -> list[str] | None:
        """Over the barriers whose frames were counted (None: none counted)."""
        counted = self.fidelity.get("counted")
        return list(counted["flags"]) if counted else None

    def to_dict(self) -> dict[str, Any]:
        return {"algorithm": self.algorithm, "options": self.options, "label": self.label,
                "release": self.release, "hosts": self.hosts,
                "rank_hosts": list(self.rank_hosts), "topology": self.topology,
                "wait": self.wait, "iterations": self.iterations,
                "t_barrier_s": self.t_barrier and self.t_barrier.to_dict(),
                "released_early": self.released_early, "p2p_releases": self.p2p_releases,
                "frame_iters": self.frame_iters, "frames": self.frames,
                "fidelity": self.fidelity, "flags": self.flags,
                "counted_flags": self.counted_flags, "family": self.family}


def row_spec(algorithm: str, options: Mapping[str, Any]) -> str:
    """barrier_bench's NAME[:OPTION=VALUE...] of a row (text values bare, others JSON)."""
    return ":".join([algorithm, *(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                                  for k, v in sorted(options.items()))])


def label(algorithm: str, options: Mapping[str, Any]) -> str:
    return algorithm + "".join(f", {k} {v}" for k, v in sorted(options.items()))


BARRIER = Defaults(repetitions=20, warmup=5, timeout=300)


def run_barriers(emu: Emulation, rows: Sequence[Row | BarrierCall],
                 options: RunOptions | None = None) -> list[BarrierResult]:
    """The barriers of `rows` one after the other in one job on the `options`' hosts (the
    first so many, or these host names in rank order; default all), `repetitions` timed
    after `warmup` (its defaults here: BARRIER; loss, params and the broadcast's own fields
    are not used), then with
    `frames` > 0 the frames of that many back-to-back barriers of each row counted. Per row
    a BarrierResult (the names below are its record's keys):
    algorithm, options, label, release (the multicast barrier's, else None), hosts,
    t_barrier_s (from the last entry to the last exit: median, p10, p90, ...), released_early
    (barriers some rank left before the last entered), p2p_releases (multicast releases made
    good point to point), frames (per barrier: sent, delivered, acks, data; None without
    `frames` or when a mark went unread), and the fidelity monitor's verdict over the timed
    barriers (`flags`, as run_bcast's point is judged over its timed broadcasts) and, with
    `frames`, over the counted ones (`counted_flags`, recorded: a count does not depend on
    keeping up, and a frame lost and sent again would show in it). RunFailed when the job
    printed no result."""
    repetitions, warmup, timeout = BARRIER.of(options := options or RunOptions())
    frames, wait = options.frames, options.wait
    if options.loss:
        raise RunFailed("run_barriers sets no loss (RunOptions.loss is 0 here)")
    names = rank_hosts(emu, options.hosts)
    calls = calls_of(rows)
    placed = next((p for c in calls if (p := node_params(emu.topo, c.record, names, "barrier"))),
                  {})
    args = barrier_bench.argv(calls=json.dumps([c.to_dict() for c in calls],
                                               separators=(",", ":")), iters=repetitions,
                              warmup=warmup, nodes=placed.get("nodes"),
                              fattree=placed.get("fattree"))
    pids = [emu.host(n).pid for n in names]
    countable = emu.controller is not None or emu.hub  # a hub's counters are the kernel's
    counter = FrameCounter(emu, pids) if frames > 0 and countable else None
    if counter is not None:
        args += ["--mark-dir", str(counter.dir), "--frame-iters", str(frames)]
    with Monitor(emu.topo, emu.spread) as mon, counter or contextlib.nullcontext():
        res = run_mpi(emu, args, hosts=names, timeout=timeout,
                      env={"MCASTLAB_WAIT": wait or DEFAULT_WAIT}, check=False, together=True)
    lines = [ln for ln in res.rank_output.get(0, "").splitlines() if ln.startswith("{")]
    if not lines:
        error = " ".join((res.stderr or res.stdout or "no output").split())[-400:]
        raise RunFailed(f"barrier_bench printed no result: {error}")
    out = json.loads(lines[-1])
    counted = None
    if out.get("frames_window"):
        counted = mon.window(*out["frames_window"],
                             host_wait_s=out["frames_cpu"]["wait_per_turn_s"])
    got = []
    for c, r in zip(calls, out["rows"], strict=True):
        fid = mon.window(*r["window"], host_wait_s=r["cpu"]["wait_per_turn_s"])
        per = (counter.per_iteration(frames, r["bracket"])
               if counter is not None and out.get("frames_marked") else None)
        summary = r["t_barrier_s"]
        got.append(BarrierResult(
            algorithm=c.algorithm, options=dict(c.options), rank_hosts=tuple(names),
            topology=emu.topo.name,
            wait=wait or DEFAULT_WAIT, iterations=repetitions,
            t_barrier=Times.of(summary) if summary else None,
            released_early=r["released_early"], p2p_releases=r["p2p_releases"],
            family=c.record.family, release=r.get("release"),
            frame_iters=frames if per else 0, frames=per,
            fidelity={"timed": fid, "counted": counted}))
    return got
