"""Measure barriers on the hosts' shared clock (runs under mpiexec; rank 0 prints one JSON
object): the time from the last rank's entry to the last rank's exit, per algorithm, with
when the measured barriers ran (`window`, the root's clock) and how long the ranks waited
for a core each turn meanwhile (`cpu.wait_per_turn_s`): what testbed.fidelity.flags.Monitor
judges a stretch of a run by, as for bcast_bench.

An algorithm is NAME or NAME:OPTION=VALUE[:OPTION=VALUE...] (the value JSON or text), so
one job measures a barrier with and without an option (`mcast` and
`mcast:release=multicast`). With --mark-dir the frames of --frame-iters back-to-back
barriers of every row are counted too, in the bracket bcast_bench uses (marks.count_frames;
row i's is `barrier<i>`, its name in the row's `bracket`), after every row was timed.

    mpiexec -n N python -m collectives.programs.barrier_bench --algorithms mpich,tree,mcast
    mpiexec -n 7 python -m collectives.programs.barrier_bench --algorithms range-tree \\
        --nodes 0,1,2,4,5,6,7 --fattree 4,8
    mpiexec -n 4 python -m collectives.programs.barrier_bench \\
        --algorithms pairwise,mcast:release=multicast --mark-dir DIR --frame-iters 40
    mpiexec -n 4 python -m collectives.programs.barrier_bench \\
        --calls '[{"algorithm": "mcast", "options": {"release": "multicast"}}]'

A row is a collectives.call.BarrierCall: NAME[:OPTION=VALUE...] read into one, or --calls,
the testbed's spelling, a JSON list of their dicts on one line (argv() builds it). Its name
is looked up once, as the row is read; the executor is handed the record.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from typing import Any

from ..algorithms import DEFAULT_RELEASE
from ..call import BarrierCall
from ..executor import barrier
from ..stats import summarize
from ..timing import idle_barrier, sched_self, sched_since, wait_per_turn
from ..use import option
from . import add_layout_arguments, command, layout_arguments, peek_stats
from .marks import count_frames


def measure(comm, call: BarrierCall, iters: int, warmup: int, **params) -> dict:
    samples, early = [], 0
    began = sched0 = None
    for i in range(warmup + iters):
        idle_barrier(comm)
        if i == warmup:
            began, sched0 = time.time(), sched_self()
        entered = time.time()
        barrier(comm, call.record, **params)
        left = time.time()
        times = comm.gather((entered, left), root=0)
        if comm.Get_rank() == 0 and i >= warmup:
            last_in = max(e for e, _ in times)
            samples.append(max(x for _, x in times) - last_in)
            early += min(x for _, x in times) < last_in
    ended = time.time()
    waits = comm.gather(sched_since(sched0) if sched0 else (0, 0, 0), root=0)
    on_channel = call.record.family in ("multicast", "range")
    stats = peek_stats(comm) if on_channel else None
    released = comm.reduce(stats["repaired"] if stats else 0, root=0)
    return {"algorithm": call.algorithm, "ranks": comm.Get_size(), "iterations": iters,
            "t_barrier_s": summarize(samples) if samples else None,
            "released_early": early, "p2p_releases": released,
            "window": [began or ended, ended],  # the measured barriers, not the warm-up
            "cpu": {"wait_per_turn_s": wait_per_turn(waits) if comm.Get_rank() == 0
                    else None}}


def parse_row(text: str) -> BarrierCall:
    """NAME[:OPTION=VALUE...] as a BarrierCall; ValueError for an unknown barrier (the
    registry's words), an option it does not take or a value it refuses."""
    name, *given = text.split(":")
    options: dict[str, Any] = {}
    for item in given:
        try:
            key, value = option(item)
        except argparse.ArgumentTypeError as e:
            raise ValueError(f"{text}: {e}") from None
        options[key] = value
    try:
        return BarrierCall(name, options)
    except ValueError as e:
        raise ValueError(f"{text}: {e}") from None


def calls(text: str) -> list[BarrierCall]:
    """--calls: a JSON list of BarrierCall dicts."""
    rows = json.loads(text)
    if not isinstance(rows, list) or not rows:
        raise ValueError("--calls is a JSON list of barrier calls, at least one")
    return [BarrierCall.from_dict(r) for r in rows]


def frames(comm, rows: list[tuple[BarrierCall, dict[str, Any]]], iters: int, mark_dir: str
           ) -> dict[str, Any]:
    """Count the frames of `iters` back-to-back barriers of every row (bracket barrier<i>),
    and say when that ran and how long the ranks waited for a core each turn meanwhile
    (`frames_window`, `frames_cpu`: the fidelity monitor judges the counted stretch too)."""
    began, sched0 = time.time(), sched_self()
    marked = count_frames(comm, 0, mark_dir, [
        (f"barrier{i}", iters, functools.partial(barrier, comm, c.record, **p))
        for i, (c, p) in enumerate(rows)])
    waits = comm.gather(sched_since(sched0), root=0)
    return {"frame_iters": iters, "frames_marked": marked,
            "frames_window": [began, time.time()],
            "frames_cpu": {"wait_per_turn_s": wait_per_turn(waits) if comm.Get_rank() == 0
                           else None}}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.barrier_bench")
    ap.add_argument("--algorithms", default="mpich,mcast",
                    help="comma-separated NAME[:OPTION=VALUE...]")
    ap.add_argument("--calls", type=calls, help="instead of --algorithms: a JSON list of "
                    "collectives.call.BarrierCall dicts, one line")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--mark-dir", help="count frames: see frames()")
    ap.add_argument("--frame-iters", type=int, default=40)
    add_layout_arguments(ap)
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.barrier_bench", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    try:
        specs = args.calls or [parse_row(t) for t in args.algorithms.split(",")]
    except ValueError as e:
        ap.error(str(e))
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    where = layout_arguments(args)
    rows = [(c, {**c.params(), **(where if c.record.nodes else {})}) for c in specs]
    out: dict[str, Any] = {"rows": []}
    for i, (c, params) in enumerate(rows):
        row = measure(comm, c, args.iters, args.warmup, **params)
        row["options"] = dict(c.options)
        row["release"] = (c.options.get("release", DEFAULT_RELEASE)
                          if c.record.release else None)
        if args.mark_dir:
            row["bracket"] = f"barrier{i}"
        out["rows"].append(row)
    if args.mark_dir and args.frame_iters > 0:
        out |= frames(comm, rows, args.frame_iters, args.mark_dir)
    if comm.Get_rank() == 0:
        print(json.dumps(out), flush=True)
    return 1 if any(r["released_early"] for r in out["rows"] if comm.Get_rank() == 0) else 0


if __name__ == "__main__":
    sys.exit(main())
