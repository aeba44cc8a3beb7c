"""Check that broadcasts deliver the right bytes (runs under mpiexec): every algorithm, every
root, several sizes, the whole world and subset communicators. Prints one JSON line per
communicator from its rank 0 and exits non-zero on any wrong byte.

    mpiexec -n N python -m collectives.verify --sizes 0,1,1000 --algorithms binomial,chain
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import zlib

from .executor import bcast
from .schedules import ALGORITHMS, NATIVE


def payload(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="collectives.verify")
    ap.add_argument("--sizes", default="0,1,1000,65539")
    ap.add_argument("--algorithms", default=",".join((NATIVE, *ALGORITHMS)))
    ap.add_argument("--roots", default="all", help="'all' or comma-separated ranks")
    ap.add_argument("--t-hold", type=float, default=30e-6)
    ap.add_argument("--t-end", type=float, default=90e-6)
    ap.add_argument("--fragment", type=int, default=4096)
    ap.add_argument("--subsets", action="store_true",
                    help="also split the world into even and odd ranks")
    args = ap.parse_args(argv)

    from mpi4py import MPI

    world = MPI.COMM_WORLD
    comms = [("world", world)]
    if args.subsets and world.Get_size() >= 3:
        comms.append((f"parity{world.Get_rank() % 2}", world.Split(world.Get_rank() % 2)))
    bad = 0
    for name, comm in comms:
        k, checked = comm.Get_size(), 0
        roots = range(k) if args.roots == "all" else [int(r) for r in args.roots.split(",")
                                                       if int(r) < k]
        for algorithm in args.algorithms.split(","):
            for n in (int(s) for s in args.sizes.split(",")):
                for root in roots:
                    seed = zlib.crc32(f"{algorithm}/{n}/{root}/{name}".encode())
                    want = payload(n, seed)
                    buf = bytearray(want) if comm.Get_rank() == root else bytearray(n)
                    bcast(buf, root=root, comm=comm, algorithm=algorithm,
                          t_hold=args.t_hold, t_end=args.t_end, fragment=args.fragment)
                    ok = bytes(buf) == want
                    oks = comm.allgather(ok)
                    checked += 1
                    if not all(oks):
                        bad += 1
                        if comm.Get_rank() == 0:
                            print(json.dumps({"error": "wrong bytes", "comm": name,
                                              "algorithm": algorithm, "size": n, "root": root,
                                              "ranks": [r for r, o in enumerate(oks) if not o],
                                              "sha": hashlib.sha1(want).hexdigest()[:8]}),
                                  flush=True)
        if comm.Get_rank() == 0:
            print(json.dumps({"comm": name, "size": k, "broadcasts": checked,
                              "all_correct": bad == 0}), flush=True)
    return 1 if world.allreduce(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
