"""Measure an Allgather (runs under mpiexec on every rank; rank 0 prints one JSON object per
block size).

The hosts of the testbed share one clock, so an Allgather's time is read straight off it:
from the instant every rank, idle until then, goes (a start gun outside the emulated
network: start_gun) to the last rank's return; back from it, every rank waits asleep until
every rank is back (`measure`). Every start alike, as a broadcast's (bcast_bench: the root
calls once every rank is in). Timed from the first rank's call after a barrier over MPI, as
before 2026-12-07, a run under loss of every packet measured the barrier: a message of it
lost on its way to one rank kept that rank asleep a TCP retransmission timeout (200 ms at
least) while the others went (mcast-concurrent, 1 KiB on 8 hosts, 5 % of every packet: a
median of 256 ms, 7.2 times its lossless one; the calls 224 ms apart at the median);
timed from the last rank's call it gave the early ranks a head start (13 ms of
mcast-concurrent's 21 ms lossless: 8 ranks waking on 2 cores). How long after the start
each run's last rank called is kept (`entry_spread_s`). Every rank checks every block after
every measured run (block i is rank i's own pattern). With --mark-dir, --frame-iters
back-to-back Allgathers of each size are bracketed for the frame counter
(collectives.programs.marks).

    mpiexec -n N python -m collectives.programs.allgather_bench \\
        --call '{"algorithm": "ring"}' --sizes 1024,65536 --iters 10    (argv() builds it)

The Allgather is a collectives.call.AllgatherCall, one JSON line (its algorithm looked up
once, as the line is read; the executor is handed the record).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from typing import Any

from .. import waiting
from ..algorithms import Named
from ..call import AllgatherCall
from ..executor import allgather
from ..ipmc.sockbuf import summary as socket_buffers
from ..stats import summarize
from ..timing import idle_barrier, sched_self, sched_since, wait_per_turn
from . import command, peek_stats
from .marks import count_frames
from .start_gun import StartGun, sleep_until


def pattern(rank: int, size: int) -> bytes:
    """Rank `rank`'s block, unlike every other rank's: a block at the wrong offset fails."""
    seed = zlib.crc32(f"allgather block {rank}".encode()).to_bytes(4, "little")
    return (seed * (size // 4 + 1))[:size]


def measure(comm: Any, algorithm: Named, size: int, iters: int, warmup: int,
            options: dict[str, Any], gun: StartGun | None = None) -> dict[str, Any]:
    """`iters` measured Allgathers of `size`-byte blocks after `warmup` unmeasured ones: the
    samples (rank 0; empty elsewhere), whether every block arrived whole, when the measured
    runs went (wall clock), how long the ranks waited for a core each turn meanwhile, and
    for the multicast ones the group sockets' receive buffer and drops over the measured
    runs (`rcvbuf`: ipmc.sockbuf.summary; None for the others) and the group round trip
    their end markers repeat by (`grtt_s`, ipmc.grtt: measured when the channel was set
    up; None for the others).

    Each run starts alike: every rank idle, then all at one instant (`gun`'s, start_gun),
    nothing between a rank's start and its call. A rank back from the Allgather does
    nothing until every rank is (asleep in the gun's join): a rank that checked its blocks
    or sent its times on (MPICH's gather polls, 100 % of a core) while the last ranks still
    worked took their cores, 8 ranks sharing 2. The blocks are checked after that; the
    times gathered once, after the last run. Without a gun, sleeping barriers over MPI
    (idle_barrier) stand in and a run starts at the first rank's call."""
    rank, p = comm.Get_rank(), comm.Get_size()
    mine = pattern(rank, size)
    want = b"".join(pattern(r, size) for r in range(p))
    recv = bytearray(size * p)
    spans: list[tuple[float, float, float]] = []
    verified = True
    began = sched0 = buf0 = None
    for i in range(warmup + iters):
        recv[:] = bytes(len(recv))
        if i == warmup:
            began, sched0, buf0 = time.time(), sched_self(), _buffer(comm)
        at = _go(comm, gun)
        t0 = time.perf_counter()
        allgather(mine, recv, comm, algorithm, **options)
        t1 = time.perf_counter()
        if gun is not None:  # every rank is back before any does anything
            gun.join()
        else:
            idle_barrier(comm)
        verified &= recv == want
        if i >= warmup:
            spans.append((t0 if at is None else at, t0, t1))
    ended = time.time()
    waits = comm.gather(sched_since(sched0) if sched0 else (0, 0, 0), root=0)
    buffers = comm.gather((buf0, _buffer(comm)), root=0)
    every = comm.gather((spans, verified), root=0)
    return {"samples_s": samples(every) if rank == 0 else [],
            "entry_spread_s": spreads(every) if rank == 0 else [],
            "start": "start gun" if gun is not None else "first call",
            "verified": all(ok for _, ok in every) if every else verified,
            "window": [began or ended, ended],
            "grtt_s": (peek_stats(comm) or {}).get("grtt_s"),
            "cpu": {"wait_per_turn_s": wait_per_turn(waits) if rank == 0 else None},
            "rcvbuf": socket_buffers([b for b, _ in buffers], [a for _, a in buffers])
            if buffers else None}


def _go(comm: Any, gun: StartGun | None) -> float | None:
    """Every rank idle, then go: the gun's instant (slept until), or None after a barrier."""
    if gun is None:
        idle_barrier(comm)
        return None
    at = gun.start()
    sleep_until(at)
    return at


Spans = list[tuple[list[tuple[float, float, float]], bool]]  # per rank: (start, call, return)


def samples(every: Spans) -> list[float]:
    """Each run's time from every rank's (start, call, return) of it (`every[r][0][i]`:
    rank r's of run i; the hosts share one clock): the last rank's return less the start
    (the gun's instant, the same on every rank; without a gun the first rank's call)."""
    runs = zip(*(spans for spans, _ in every), strict=True)
    return [max(e for _, _, e in run) - min(s for s, _, _ in run) for run in runs]


def spreads(every: Spans) -> list[float]:
    """Each run's last call less its start: how long after it the last rank called."""
    runs = zip(*(spans for spans, _ in every), strict=True)
    return [max(c for _, c, _ in run) - min(s for s, _, _ in run) for run in runs]


def _buffer(comm: Any) -> dict[str, Any] | None:
    stats = peek_stats(comm)
    return stats and stats["rcvbuf"]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.allgather_bench")
    ap.add_argument("--call", type=AllgatherCall.from_json,
                    default=AllgatherCall("ring"),
                    help="the Allgather: a collectives.call.AllgatherCall as one JSON line")
    ap.add_argument("--sizes", default="1024", help="block bytes per rank, comma-separated")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
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
    except ValueError as e:
        print(f"collectives.programs.allgather_bench: {e}", file=sys.stderr)
        return 2
    call: AllgatherCall = args.call
    options = call.params()
    waiting.connect_all(comm)  # no measured run pays for MPI's first contacts
    if call.record.family == "multicast":
        # only in this branch (a rank's start-up: collectives.programs)
        from ..ipmc.channel import channel_for

        # its set-up (collective) before any Allgather, even with --warmup 0
        channel_for(comm, timeout=options.get("timeout"))
    gun = StartGun.open(comm)
    for size in sizes:
        row = measure(comm, call.record, size, args.iters, args.warmup, options, gun)
        frames = None
        if args.mark_dir and args.frame_iters:
            mine, recv = pattern(comm.Get_rank(), size), bytearray(size * comm.Get_size())

            def once(mine: bytes = mine, recv: bytearray = recv) -> None:
                allgather(mine, recv, comm, call.record, **options)

            frames = count_frames(comm, 0, args.mark_dir,
                                  [(f"allgather-{size}", args.frame_iters, once)])
        if comm.Get_rank() == 0:
            print(json.dumps({"algorithm": call.algorithm, "size": size,
                              "ranks": comm.Get_size(), **row,
                              "t_s": summarize(row["samples_s"]) if row["samples_s"] else None,
                              "frames_marked": frames}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
