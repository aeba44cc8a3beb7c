"""Point-to-point ping-pong between rank 0 and every other rank (runs under mpiexec).

For each peer: latency = half the median round trip of a small message; bandwidth = message
bytes over half the median round trip of a large one. Rank 0 writes one JSON line per peer.

    mpiexec -n N python -m collectives.programs.pingpong --out records.jsonl
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import time
from typing import Any

from ..stats import summarize
from ..timing import idle_barrier
from ..waiting import recv, send
from . import command


def _round_trips(comm, peer: int, nbytes: int, reps: int, warmup: int) -> list[float]:
    rank = comm.Get_rank()
    buf = bytearray(max(nbytes, 1))
    view = memoryview(buf)[:nbytes]
    times = []
    for i in range(warmup + reps):
        t0 = time.perf_counter()
        if rank == 0:
            send(comm, view, peer, 1)
            recv(comm, view, peer, 2)
        else:
            recv(comm, view, 0, 1)
            send(comm, view, 0, 2)
        if i >= warmup:
            times.append(time.perf_counter() - t0)
    return times


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.pingpong")
    ap.add_argument("--out", help="JSON-lines file (rank 0); default standard output")
    ap.add_argument("--lat-bytes", type=int, default=1)
    ap.add_argument("--bw-bytes", type=int, default=1 << 20)
    ap.add_argument("--reps", type=int, default=50, help="measured round trips (latency)")
    ap.add_argument("--bw-reps", type=int, default=5, help="measured round trips (bandwidth)")
    ap.add_argument("--warmup", type=int, default=5)
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.pingpong", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)

    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    hosts = comm.gather(socket.gethostname(), root=0)
    records = []
    for peer in range(1, size):
        idle_barrier(comm)
        if rank not in (0, peer):
            continue
        lat = _round_trips(comm, peer, args.lat_bytes, args.reps, args.warmup)
        bw = _round_trips(comm, peer, args.bw_bytes, args.bw_reps, 1)
        if rank == 0:
            assert hosts is not None  # gathered at rank 0
            lat_s = summarize([t / 2 for t in lat])
            bw_s = summarize([args.bw_bytes * 8 / (t / 2) / 1e6 for t in bw])
            rec = {"kind": "pingpong", "src": 0, "dst": peer, "src_host": hosts[0],
                   "dst_host": hosts[peer], "lat_bytes": args.lat_bytes,
                   "latency_us": {k: v * 1e6 if k != "n" else v for k, v in lat_s.items()},
                   "bw_bytes": args.bw_bytes, "bandwidth_mbit": bw_s}
            records.append(json.dumps(rec))
    idle_barrier(comm)
    if rank == 0:
        text = "".join(r + "\n" for r in records)
        if args.out:
            with open(args.out, "a") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
