"""Barriers across the emulated hosts in one MPI job (collectives.programs.barrier_bench)
under the fidelity monitor: how long each took and, counted on the switches' ports, the
frames it put on the wire per barrier, those that carry data apart from TCP's pure ACKs
(testbed.emulation.frame_count), as run_bcast counts a broadcast's."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from collectives.algorithms import known
from collectives.programs import barrier_bench
from collectives.waiting import DEFAULT as DEFAULT_WAIT

from ..emulation.frame_count import FrameCounter
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed
from ..fidelity.flags import Monitor
from .rank_placement import node_params

Row = tuple[str, Mapping[str, Any]]  # a barrier and its options (release=, timeout=, ...)


def row_spec(algorithm: str, options: Mapping[str, Any]) -> str:
    """barrier_bench's NAME[:OPTION=VALUE...] of a row (text values bare, others JSON)."""
    return ":".join([algorithm, *(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                                  for k, v in sorted(options.items()))])


def label(algorithm: str, options: Mapping[str, Any]) -> str:
    return algorithm + "".join(f", {k} {v}" for k, v in sorted(options.items()))


def run_barriers(emu: Emulation, rows: Sequence[Row], *, hosts: int | list[str] | None = None,
                 iters: int = 20, warmup: int = 5, frames: int = 0, timeout: float = 300,
                 wait: str | None = None) -> list[dict[str, Any]]:
    """The barriers of `rows` one after the other in one job on the first `hosts` hosts
    (or these host names in rank order; default all), `iters` timed after `warmup`, then with
    `frames` > 0 the frames of that many back-to-back barriers of each row counted. Per row:
    algorithm, options, label, release (the multicast barrier's, else None), hosts,
    t_barrier_s (from the last entry to the last exit: median, p10, p90, ...), released_early
    (barriers some rank left before the last entered), p2p_releases (multicast releases made
    good point to point), frames (per barrier: sent, delivered, acks, data; None without
    `frames` or when a mark went unread), and the fidelity monitor's verdict over the timed
    barriers (`flags`, as run_bcast's point is judged over its timed broadcasts) and, with
    `frames`, over the counted ones (`counted_flags`, recorded: a count does not depend on
    keeping up, and a frame lost and sent again would show in it). RunFailed when the job
    printed no result."""
    names = (list(hosts) if isinstance(hosts, list)
             else [h.name for h in emu.topo.hosts][: hosts or len(emu.topo.hosts)])
    placed = next((p for a, _ in rows if (p := node_params(emu.topo, a, names, "barrier"))),
                  {})
    args = barrier_bench.argv(algorithms=[row_spec(a, o) for a, o in rows], iters=iters,
                              warmup=warmup, nodes=placed.get("nodes"),
                              fattree=placed.get("fattree"))
    pids = [emu.host(n).pid for n in names]
    counted = emu.controller is not None or emu.hub  # a hub's counters are the kernel's
    counter = FrameCounter(emu, pids) if frames > 0 and counted else None
    if counter is not None:
        args += ["--mark-dir", str(counter.dir), "--frame-iters", str(frames)]
    with Monitor(emu.topo, emu.spread) as mon, counter or contextlib.nullcontext():
        res = run_mpi(emu, args, hosts=names, timeout=timeout,
                      env={"MCASTLAB_WAIT": wait or DEFAULT_WAIT}, check=False)
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
    for (a, opts), r in zip(rows, out["rows"], strict=True):
        fid = mon.window(*r["window"], host_wait_s=r["cpu"]["wait_per_turn_s"])
        per = (counter.per_iteration(frames, r["bracket"])
               if counter is not None and out.get("frames_marked") else None)
        got.append({"algorithm": a, "options": dict(opts), "label": label(a, opts),
                    "release": r.get("release"), "hosts": len(names), "rank_hosts": names,
                    "topology": emu.topo.name, "wait": wait or DEFAULT_WAIT,
                    "iterations": iters, "t_barrier_s": r["t_barrier_s"],
                    "released_early": r["released_early"], "p2p_releases": r["p2p_releases"],
                    "frame_iters": frames if per else 0, "frames": per,
                    "fidelity": {"timed": fid, "counted": counted}, "flags": fid["flags"],
                    "counted_flags": counted["flags"] if counted else None,
                    "family": known(a, "barrier").family})
    return got
