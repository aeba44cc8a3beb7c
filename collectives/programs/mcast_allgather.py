"""Check and time the multicast allgathers (runs under mpiexec): every algorithm at every
block size, each case `--repeat` times after a barrier, every block of every rank compared
byte for byte. A size "vN" is an Allgatherv: rank r's block N r / (p-1) bytes (rank 0's
empty, the last rank's N), each in its own slot. Prints one JSON line per case from rank 0
(`correct`, the slowest rank's `seconds` per repetition, the datagram counters, the group
sockets' receive buffer and drops: `rcvbuf`, ipmc.sockbuf.summary) and exits
non-zero on any wrong byte.

With `--ready FILE --go FILE` the cases run twice: once, then (rank 0 having written the
first file) again once the second exists, with "phase": 2 (a test sets loss in between,
on ranks already up and connected).

    mpiexec -n 4 python -m collectives.programs.mcast_allgather --sizes 0,1000 \\
        --algorithms mcast-sequential,mcast-concurrent
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import statistics
import sys
import time
from typing import Any

from ..ipmc.allgather import ALGORITHMS, allgather, allgather_slots
from ..ipmc.channel import channel_for, peek_stats
from ..ipmc.concurrent import REPORTS
from ..ipmc.sockbuf import summary as socket_buffers
from ..slots import of_counts
from . import command

COUNTERS = ("sent", "delivered", "duplicate", "rejected", "repaired", REPORTS)


def block(size: int, rank: int, case: int) -> bytes:
    return random.Random(f"{case}/{rank}/{size}").randbytes(size)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.mcast_allgather")
    ap.add_argument("--sizes", default="0,1,1000,65536",
                    help="block sizes, bytes (vN: an Allgatherv of 0 to N bytes a rank)")
    ap.add_argument("--algorithms", default=",".join(ALGORITHMS))
    ap.add_argument("--repeat", type=int, default=1, help="runs of every case")
    ap.add_argument("--timeout", type=float, default=60.0, help="each allgather's deadline")
    ap.add_argument("--ready", help="phase 2: rank 0 writes this file after phase 1")
    ap.add_argument("--go", help="phase 2 starts once this file exists")
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.mcast_allgather", parser(), **values)


def counts_of(size: str, p: int) -> list[int]:
    """Each rank's block in bytes: "N" N each, "vN" N r / (p-1) for rank r."""
    if size.startswith("v"):
        return [int(size[1:]) * r // max(1, p - 1) for r in range(p)]
    return [int(size)] * p


def gather_case(comm: Any, algorithm: str, size: str, counts: list[int], mine: bytes,
                timeout: float) -> bytearray:
    """One allgather of `mine` (an Allgatherv's slots for a "vN" size); the receive buffer."""
    recv = bytearray(sum(counts))
    if not size.startswith("v"):
        allgather(channel_for(comm), mine, recv, algorithm, timeout=timeout)
        return recv
    view = memoryview(recv)
    slots = [view[o:o + n] for o, n in of_counts(counts, None, len(counts), len(recv))]
    slots[comm.Get_rank()][:] = mine
    allgather_slots(channel_for(comm), slots, algorithm, timeout=timeout)
    return recv


def run_cases(comm: Any, args: argparse.Namespace, phase: int) -> int:
    """Every (algorithm, size) case; the number that were wrong on some rank."""
    rank, p, wrong = comm.Get_rank(), comm.Get_size(), 0
    for n, (algorithm, size) in enumerate((a, s) for a in args.algorithms.split(",")
                                          for s in args.sizes.split(",")):
        lengths = counts_of(size, p)
        want = b"".join(block(lengths[r], r, n) for r in range(p))
        before = dict(peek_stats(comm) or {})
        took, ok = [], True
        for _ in range(args.repeat):
            comm.Barrier()
            t0 = time.perf_counter()
            recv = gather_case(comm, algorithm, size, lengths, block(lengths[rank], rank, n),
                               args.timeout)
            took.append(time.perf_counter() - t0)
            ok &= recv == want
        after = peek_stats(comm) or {}
        counts = {k: after.get(k, 0) - before.get(k, 0) for k in COUNTERS}
        every = comm.gather((ok, took, counts), root=0)
        buffers = comm.gather((before.get("rcvbuf"), after.get("rcvbuf")), root=0)
        bad: list[int] = []
        if rank == 0:
            assert every is not None and buffers is not None  # gathered at rank 0
            bad = [r for r, (good, _, _) in enumerate(every) if not good]
            slowest = [max(ts) for ts in zip(*(t for _, t, _ in every), strict=True)]
            print(json.dumps({"phase": phase, "algorithm": algorithm,
                              "size": int(size) if size.isdigit() else size,
                              "counts": lengths, "ranks": p, "correct": not bad, "wrong_ranks": bad,
                              "seconds": slowest, "median_s": statistics.median(slowest),
                              "datagrams": {k: sum(c[k] for _, _, c in every)
                                            for k in COUNTERS},
                              "rcvbuf": socket_buffers([b for b, _ in buffers],
                                                       [a for _, a in buffers])}), flush=True)
        wrong += int(comm.bcast(bool(bad), root=0))
    return wrong


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    channel_for(comm)  # its set-up (collective) outside the timed allgathers
    wrong = run_cases(comm, args, 1)
    if args.ready and args.go:
        comm.Barrier()
        if comm.Get_rank() == 0:
            pathlib.Path(args.ready).write_text("ready")
        go, end = pathlib.Path(args.go), time.monotonic() + 60
        while not go.exists() and time.monotonic() < end:
            time.sleep(0.01)
        if not go.exists():
            raise SystemExit("phase 2: the go file did not appear within 60 s")
        wrong += run_cases(comm, args, 2)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
