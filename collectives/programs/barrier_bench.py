"""Measure barriers on the hosts' shared clock (runs under mpiexec; rank 0 prints one JSON
object): the time from the last rank's entry to the last rank's exit, per algorithm, with
when the measured barriers ran (`window`, the root's clock) and how long the ranks waited
for a core each turn meanwhile (`cpu.wait_per_turn_s`): what testbed.fidelity.flags.Monitor
judges a stretch of a run by, as for bcast_bench.

    mpiexec -n N python -m collectives.programs.barrier_bench --algorithms mpich,tree,mcast
    mpiexec -n 7 python -m collectives.programs.barrier_bench --algorithms range-tree \
        --nodes 0,1,2,4,5,6,7 --fattree 4,8
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from ..algorithms import barrier_algorithm
from ..executor import barrier
from ..ipmc.channel import peek_stats
from ..range_trees.channel import add_layout_arguments, layout_arguments
from ..stats import summarize
from ..timing import idle_barrier, sched_self, sched_since, wait_per_turn


def measure(comm, algorithm: str, iters: int, warmup: int, **params) -> dict:
    samples, early = [], 0
    began = sched0 = None
    for i in range(warmup + iters):
        idle_barrier(comm)
        if i == warmup:
            began, sched0 = time.time(), sched_self()
        entered = time.time()
        barrier(comm, algorithm, **params)
        left = time.time()
        times = comm.gather((entered, left), root=0)
        if comm.Get_rank() == 0 and i >= warmup:
            last_in = max(e for e, _ in times)
            samples.append(max(x for _, x in times) - last_in)
            early += min(x for _, x in times) < last_in
    ended = time.time()
    waits = comm.gather(sched_since(sched0) if sched0 else (0, 0, 0), root=0)
    on_channel = barrier_algorithm(algorithm).family in ("multicast", "range")
    stats = peek_stats(comm) if on_channel else None
    released = comm.reduce(stats["repaired"] if stats else 0, root=0)
    return {"algorithm": algorithm, "ranks": comm.Get_size(), "iterations": iters,
            "t_barrier_s": summarize(samples) if samples else None,
            "released_early": early, "p2p_releases": released,
            "window": [began or ended, ended],  # the measured barriers, not the warm-up
            "cpu": {"wait_per_turn_s": wait_per_turn(waits) if comm.Get_rank() == 0
                    else None}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="collectives.programs.barrier_bench")
    ap.add_argument("--algorithms", default="mpich,mcast")
    ap.add_argument("--iters", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    add_layout_arguments(ap)
    args = ap.parse_args(argv)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    where = layout_arguments(args)
    rows = [measure(comm, a, args.iters, args.warmup,
                    **(where if barrier_algorithm(a).nodes else {}))
            for a in args.algorithms.split(",")]
    if comm.Get_rank() == 0:
        print(json.dumps({"rows": rows}), flush=True)
    return 1 if any(r["released_early"] for r in rows if comm.Get_rank() == 0) else 0


if __name__ == "__main__":
    sys.exit(main())
