"""Measure many broadcasts (algorithm x message size) in one MPI job: an experiment's points
that share a condition, so the job's start-up is paid once (runs under mpiexec on every
rank; the root prints one JSON line per point as soon as the point is done, so an
interrupted job keeps what it finished).

Two ways to inject broadcasts:
- interval 0: Nupairoj1998's default, the root starts a broadcast when the previous one has
  completed everywhere (programs.bcast_bench.direct: the root enters last, latency off the shared
  clock of the emulated hosts);
- interval > 0: Nupairoj1998 section 6.4.3, the root injects a broadcast every `interval`
  seconds without waiting for completion; a broadcast's latency runs from the root's call to
  the last rank's return (the hosts share one clock).

Rank 0 talks to whoever launched the job over its standard streams only, since it may run
on another server than the launcher (testbed.cluster): it reads the points (a JSON list, one
line) from its input, prints "MCASTLAB-POINT <key>" as each point starts and the point's record
(one JSON line) as soon as it is done; with --armed it reads a line from its input after each
"MCASTLAB-POINT" (the launcher's faults due at time zero are in effect). With --flow every point
is also timed with Nupairoj's flow latency (bcast_bench.flow), which needs no shared clock.
With --rounds R the points take turns: R rounds, each point measuring its share of --iters
in every round (its warm-up in the first), so points compared with each other meet the same
stretches of a varying background; each point's record comes after the last round.

    mpiexec -n N python -m collectives.programs.sweep_bench --points points.json | grep '^{'
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

from .. import waiting
from ..call import BcastCall
from ..executor import bcast
from ..ipmc.accounting import joined
from ..stats import summarize
from ..timing import (
    busy_fraction,
    cpu_jiffies,
    idle_barrier,
    sched_self,
    sched_since,
    wait_per_turn,
)
from . import bcast_bench, command
from .bcast_bench import direct, flow

POINT_SAID = "MCASTLAB-POINT "


def injected(comm, buf, want: bytes, root: int, iters: int, warmup: int, interval: float,
             **alg: Any) -> tuple[list[float], bool, dict[str, Any]]:
    """(latency samples, verified, extra) with the root injecting every `interval` s."""
    rank = comm.Get_rank()
    idle_barrier(comm)
    base = comm.bcast(time.time() + 0.02, root=root)
    starts, ends, ok = [], [], True
    stat0 = cpu_jiffies() if rank == root else None
    sched0 = sched_self()
    for i in range(warmup + iters):
        if rank == root:
            delay = base + i * interval - time.time()
            if delay > 0:
                time.sleep(delay)
        else:
            buf[:] = bytes(len(buf))
        starts.append(time.time())
        bcast(buf, root=root, comm=comm, **alg)
        ends.append(time.time())
        ok &= bytes(buf) == want
    idle_barrier(comm)  # no rank polls in the gathers while others finish (direct_steps)
    busy = busy_fraction(stat0, cpu_jiffies()) if rank == root else None
    waits = comm.gather(sched_since(sched0), root=root)
    every = comm.gather(ends, root=root)
    samples, late = [], 0
    if rank == root:
        for i in range(warmup, warmup + iters):
            samples.append(max(e[i] for e in every) - starts[i])
            late += starts[i] - (base + i * interval) > interval / 2
    extra = {"cpu": {"cores": os.cpu_count(), "ranks": comm.Get_size(), "busy": busy,
                     "wait_per_turn_s": wait_per_turn(waits) if rank == root else None},
             "late_injections": late}
    return samples, all(comm.allgather(ok)), extra


def run_point(comm, point: dict[str, Any], root: int, iters: int, warmup: int,
              interval: float, budget_s: float | None = None,
              nodes: list[int] | None = None, flow_iters: int = 0) -> dict[str, Any]:
    call = BcastCall.from_dict(point["call"])
    if call.root != root:
        raise ValueError(f"a sweep's broadcasts are from rank {root}, not {call.root}")
    if nodes is not None and call.record.nodes:
        call = call.with_options(nodes=nodes)
    alg = call.run_kwargs()  # the record looked up when the call was read: not again
    size = call.size
    want = random.Random(size).randbytes(size)
    buf = bytearray(want)
    t0 = time.time()
    if interval > 0:
        samples, verified, extra = injected(comm, buf, want, root, iters, warmup, interval,
                                            **alg)
    else:
        ranks: dict[str, Any] = {}
        samples, verified, cpu = direct(comm, buf, want, root, iters, warmup,
                                        budget_s=budget_s, rank_times=ranks, **alg)
        extra = {"datagrams": cpu.pop("datagrams"), "cpu": cpu,
                 "root_queue": ranks.get("root_queue"), "repairs": ranks.get("repairs")}
    if flow_iters and comm.Get_size() > 1:  # the dummy wait outlasts the worst broadcast
        worst = comm.bcast(max(samples, default=0.0), root=root)
        extra["flow"] = flow(comm, buf, root, flow_iters, 1.5 * worst, **alg)
    return {"key": point["key"], "ranks": comm.Get_size(), "root": root,
            "iterations": iters, "verified": verified, "samples_s": samples,
            "t_mcast_s": summarize(samples) if samples else None,
            "start": t0, "end": time.time(), **extra}


def shares(iters: int, rounds: int) -> list[int]:
    """How many of a point's `iters` measured broadcasts each of `rounds` rounds takes (the
    first ones one more where they do not divide; never a round of none): bcast_bench's
    split over at most `iters` rounds."""
    return bcast_bench.shares(iters, max(1, min(rounds, iters)))


def merged(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """One point's records of several rounds as one: every sample (and its repair account),
    verified only if every round was, from the first round's start to the last one's end;
    the rest (the CPU figures, the root's queue) the last round's."""
    samples = [s for r in recs for s in r["samples_s"]]
    repairs = joined([r.get("repairs") for r in recs], [len(r["samples_s"]) for r in recs])
    return {**recs[-1], "iterations": sum(r["iterations"] for r in recs), "repairs": repairs,
            "verified": all(r["verified"] for r in recs), "samples_s": samples,
            "t_mcast_s": summarize(samples) if samples else None, "start": recs[0]["start"],
            "rounds": len(recs)}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.sweep_bench")
    ap.add_argument("--points", default="-",
                    help="JSON list of {key, call} (call: a collectives.call.BcastCall): a "
                         "file, or - for one line of rank 0's input (default)")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--interval", type=float, default=0.0,
                    help="root's inter-injection time, s (0: wait for completion)")
    ap.add_argument("--budget", type=float,
                    help="stop measuring a point after this many seconds (interval 0)")
    ap.add_argument("--armed", action="store_true",
                    help="after saying a point starts, rank 0 waits for a line of input")
    ap.add_argument("--flow", type=int, default=0, metavar="ITERS",
                    help="also time each point by flow latency, ITERS broadcasts per "
                         "responder (interval 0)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="the points take turns in this many rounds, each measuring its "
                         "share of --iters a round (interval 0, not --armed, not --flow)")
    ap.add_argument("--label", default="", help="added to every record (e.g. the group)")
    ap.add_argument("--nodes", help="the network node of every rank, comma-separated (for "
                                    "the algorithms told where the ranks sit)")
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.sweep_bench", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    nodes = [int(n) for n in args.nodes.split(",")] if args.nodes else None
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm, root = MPI.COMM_WORLD, 0
    is_root = comm.Get_rank() == root
    waiting.connect_all(comm)
    text = None
    if is_root:
        text = sys.stdin.readline() if args.points == "-" else Path(args.points).read_text()
    points = json.loads(comm.bcast(text, root=root))
    if args.rounds > 1 and not (args.armed or args.interval or args.flow):
        return in_rounds(comm, points, root, args, nodes)
    for point in points:
        if is_root:
            print(POINT_SAID + point["key"], flush=True)
            if args.armed:
                sys.stdin.readline()
        rec = run_point(comm, point, root, args.iters, args.warmup, args.interval,
                        args.budget, nodes, args.flow if not args.interval else 0)
        if is_root:
            print(json.dumps({**rec, "label": args.label}), flush=True)
    return 0  # a wrong result is in the record (verified false), not a failed job


def in_rounds(comm, points: list[dict[str, Any]], root: int, args: argparse.Namespace,
               nodes: list[int] | None) -> int:
    """main's loop with the points taking turns (--rounds)."""
    got: dict[str, list[dict[str, Any]]] = {}
    for r, share in enumerate(shares(args.iters, args.rounds)):
        for point in points:
            if comm.Get_rank() == root:
                print(POINT_SAID + point["key"], flush=True)  # the heartbeat goes on
            got.setdefault(point["key"], []).append(
                run_point(comm, point, root, share, args.warmup if r == 0 else 0, 0.0,
                          args.budget, nodes))
    if comm.Get_rank() == root:
        for point in points:
            print(json.dumps({**merged(got[point["key"]]), "label": args.label}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
