"""Measure barriers on the hosts' shared clock (runs under mpiexec; rank 0 prints one JSON
object): the time from the last rank's entry to the last rank's exit, per algorithm.

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
from ..timing import idle_barrier


def measure(comm, algorithm: str, iters: int, warmup: int, **params) -> dict:
    samples, early = [], 0
    for i in range(warmup + iters):
        idle_barrier(comm)
        entered = time.time()
        barrier(comm, algorithm, **params)
        left = time.time()
        times = comm.gather((entered, left), root=0)
        if comm.Get_rank() == 0 and i >= warmup:
            last_in = max(e for e, _ in times)
            samples.append(max(x for _, x in times) - last_in)
            early += min(x for _, x in times) < last_in
    on_channel = barrier_algorithm(algorithm).family in ("multicast", "range")
    stats = peek_stats(comm) if on_channel else None
    released = comm.reduce(stats["repaired"] if stats else 0, root=0)
    return {"algorithm": algorithm, "ranks": comm.Get_size(), "iterations": iters,
            "t_barrier_s": summarize(samples) if samples else None,
            "released_early": early, "p2p_releases": released}


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
