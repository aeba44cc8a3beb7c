"""Measure an Allgather (runs under mpiexec on every rank; rank 0 prints one JSON object per
block size).

The hosts of the testbed share one clock, so an Allgather's time is read straight off it:
from the moment every rank is in (the last rank's call) to the last rank's return, every
rank entering after a sleeping barrier (collectives.timing.idle_barrier) and, back from it,
asleep in another until every rank is back (`measure`). The start is the broadcast's
(bcast_bench: the root enters last, once every rank has finished the last one): under loss
of every packet a barrier message lost on its way to one rank keeps that rank asleep for a
TCP retransmission timeout (200 ms at least) while the others start, and timed from the
first rank's call that wait was the sample (mcast-concurrent's median at 5 % loss 256 ms,
7.2 times its lossless one, 2026-12-07). How far apart the calls were is kept
(`entry_spread_s`, each run's): the time from the first call is the sample plus it. Every
rank checks every block after every measured run (block i is rank i's own pattern). With
--mark-dir, --frame-iters back-to-back Allgathers of each size are bracketed for the frame
counter (collectives.programs.marks).

    mpiexec -n N python -m collectives.programs.allgather_bench --algorithm ring \\
        --sizes 1024,65536 --iters 10          (argv() builds it)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from typing import Any

from .. import waiting
from ..algorithms import allgather_algorithm
from ..executor import allgather
from ..ipmc.sockbuf import summary as socket_buffers
from ..stats import summarize
from ..timing import idle_barrier, sched_self, sched_since, wait_per_turn
from . import command, peek_stats
from .marks import count_frames


def pattern(rank: int, size: int) -> bytes:
    """Rank `rank`'s block, unlike every other rank's: a block at the wrong offset fails."""
    seed = zlib.crc32(f"allgather block {rank}".encode()).to_bytes(4, "little")
    return (seed * (size // 4 + 1))[:size]


def measure(comm: Any, algorithm: str, size: int, iters: int, warmup: int,
            options: dict[str, Any]) -> dict[str, Any]:
    """`iters` measured Allgathers of `size`-byte blocks after `warmup` unmeasured ones: the
    samples (rank 0; empty elsewhere), whether every block arrived whole, when the measured
    runs went (wall clock), how long the ranks waited for a core each turn meanwhile, and
    for the multicast ones the group sockets' receive buffer and drops over the measured
    runs (`rcvbuf`: ipmc.sockbuf.summary; None for the others).

    Each run starts alike: every rank asleep in a barrier (idle_barrier), nothing between
    its wake-up and its call. A rank back from the Allgather does nothing until every rank
    is (asleep in a second barrier): a rank that checked its blocks or sent its times on
    (MPICH's gather polls, 100 % of a core) while the last ranks still worked took their
    cores, 8 ranks sharing 2. The blocks are checked after that barrier; the times gathered
    once, after the last run."""
    rank, p = comm.Get_rank(), comm.Get_size()
    mine = pattern(rank, size)
    want = b"".join(pattern(r, size) for r in range(p))
    recv = bytearray(size * p)
    spans: list[tuple[float, float]] = []
    verified = True
    began = sched0 = buf0 = None
    for i in range(warmup + iters):
        recv[:] = bytes(len(recv))
        if i == warmup:
            began, sched0, buf0 = time.time(), sched_self(), _buffer(comm)
        idle_barrier(comm)
        t0 = time.perf_counter()
        allgather(mine, recv, comm, algorithm, **options)
        t1 = time.perf_counter()
        idle_barrier(comm)  # every rank is back before any does anything
        verified &= recv == want
        if i >= warmup:
            spans.append((t0, t1))
    ended = time.time()
    waits = comm.gather(sched_since(sched0) if sched0 else (0, 0, 0), root=0)
    buffers = comm.gather((buf0, _buffer(comm)), root=0)
    every = comm.gather((spans, verified), root=0)
    return {"samples_s": samples(every) if rank == 0 else [],
            "entry_spread_s": spreads(every) if rank == 0 else [],
            "verified": all(ok for _, ok in every) if every else verified,
            "window": [began or ended, ended],
            "cpu": {"wait_per_turn_s": wait_per_turn(waits) if rank == 0 else None},
            "rcvbuf": socket_buffers([b for b, _ in buffers], [a for _, a in buffers])
            if buffers else None}


Spans = list[tuple[list[tuple[float, float]], bool]]  # per rank: its (call, return) per run


def samples(every: Spans) -> list[float]:
    """Each run's time from every rank's (call, return) of it (`every[r][0][i]`: rank r's
    of run i; the hosts share one clock): the last rank's return less the last rank's
    call."""
    runs = zip(*(spans for spans, _ in every), strict=True)
    return [max(e for _, e in run) - max(s for s, _ in run) for run in runs]


def spreads(every: Spans) -> list[float]:
    """Each run's spread of the calls: the last rank's call less the first's."""
    runs = zip(*(spans for spans, _ in every), strict=True)
    return [max(s for s, _ in run) - min(s for s, _ in run) for run in runs]


def _buffer(comm: Any) -> dict[str, Any] | None:
    stats = peek_stats(comm)
    return stats and stats["rcvbuf"]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.allgather_bench")
    ap.add_argument("--algorithm", default="ring")
    ap.add_argument("--sizes", default="1024", help="block bytes per rank, comma-separated")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--options", default="{}", help="the algorithm's options (JSON)")
    ap.add_argument("--mark-dir", help="bracket --frame-iters Allgathers for the frame counter")
    ap.add_argument("--frame-iters", type=int, default=0)
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.allgather_bench", parser(), **values)


def main(args_in: list[str] | None = None) -> int:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    args = parser().parse_args(args_in)
    comm = MPI.COMM_WORLD
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
        options = json.loads(args.options)
    except ValueError as e:
        print(f"collectives.programs.allgather_bench: {e}", file=sys.stderr)
        return 2
    waiting.connect_all(comm)  # no measured run pays for MPI's first contacts
    if allgather_algorithm(args.algorithm).family == "multicast":
        # only in this branch (a rank's start-up: collectives.programs)
        from ..ipmc.channel import channel_for

        # its set-up (collective) before any Allgather, even with --warmup 0
        channel_for(comm, timeout=options.get("timeout"))
    for size in sizes:
        row = measure(comm, args.algorithm, size, args.iters, args.warmup, options)
        frames = None
        if args.mark_dir and args.frame_iters:
            mine, recv = pattern(comm.Get_rank(), size), bytearray(size * comm.Get_size())

            def once(mine: bytes = mine, recv: bytearray = recv) -> None:
                allgather(mine, recv, comm, args.algorithm, **options)

            frames = count_frames(comm, 0, args.mark_dir,
                                  [(f"allgather-{size}", args.frame_iters, once)])
        if comm.Get_rank() == 0:
            print(json.dumps({"algorithm": args.algorithm, "size": size,
                              "ranks": comm.Get_size(), **row,
                              "t_s": summarize(row["samples_s"]) if row["samples_s"] else None,
                              "frames_marked": frames}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
