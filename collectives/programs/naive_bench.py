"""The naive broadcast benchmark beside the honest one (lab 2; Nupairoj1998, section 3.3).

naive: the root times `iters` broadcasts called back to back and divides by `iters`. The
root returns as soon as its own sends are handed over, so successive broadcasts overlap in
the tree: the figure is the root's rate, not the time until every rank holds the message.
direct: t_mcast read off the shared clock (collectives.programs.bcast_bench.direct: the root enters
last, the last rank's return counts). Rank 0 prints one JSON object.

    mpiexec -n 4 python -m collectives.programs.naive_bench --algorithm chain --size 65536
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from typing import Any

from . import command
from .bcast_bench import direct, naive


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.naive_bench")
    ap.add_argument("--algorithm", default="chain")
    ap.add_argument("--size", type=int, default=65536)
    ap.add_argument("--loop", type=int, default=50,
                    help="broadcasts per naive timed loop (enough to fill every buffer on "
                         "the way, so the loop runs at the pipeline's steady rate)")
    ap.add_argument("--repeats", type=int, default=3, help="naive loops (median reported)")
    ap.add_argument("--iters", type=int, default=10, help="broadcasts timed directly")
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.naive_bench", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    want = random.Random(args.size).randbytes(args.size)
    buf = bytearray(want)
    alg = {"algorithm": args.algorithm}
    loops = naive(comm, buf, 0, args.loop, args.repeats, **alg)
    samples, verified, _cpu = direct(comm, buf, want, 0, args.iters, 1, **alg)
    if comm.Get_rank() == 0:
        med = statistics.median(samples)
        nv = statistics.median(loops)
        print(json.dumps({"algorithm": args.algorithm, "size": args.size,
                          "ranks": comm.Get_size(), "loop": args.loop,
                          "iterations": args.iters,
                          "naive_s": nv, "naive_loops_s": loops, "t_mcast_s": med,
                          "naive_over_true": nv / med if med else None,
                          "verified": verified}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
