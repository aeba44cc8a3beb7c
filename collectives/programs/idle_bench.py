"""What waiting costs: the CPU share of a rank that waits about a second for a message, and
how much later than a spinning rank it notices the message (the wake-up).

Rank 0 sleeps WAIT_S, notes the time and sends; rank 1 waits, in one of:
`recv`/`barrier`/`bcast` (MPI_Recv, MPI_Barrier, MPI_Bcast: MPI's own waits),
`irecv`/`ibarrier`/`ibcast` (the non-blocking call, then collectives.waiting.wait in the
MCASTLAB_WAIT mode: the project's loops), or `nack` (a multicast broadcast whose root comes
late: the multicast collectives' own loop, waiting on its socket and MPI's). Rank 1's CPU
time (all its threads, getrusage) over its wall time is the share; its return time less
rank 0's send time (one clock: the emulated hosts share it) is the latency. Under mpiexec,
on two ranks:

    python -m collectives.programs.idle_bench --ops recv,irecv --iters 5
prints one JSON object: {op: {"cpu_share": median, "latency_s": median, ...}}.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import resource
import statistics
import sys
import time
from typing import Any

from .. import waiting
from ..executor import bcast
from . import command

WAIT_S = 1.0
OPS = ("recv", "barrier", "bcast", "irecv", "ibarrier", "ibcast", "nack")


def _cpu() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def _wait_once(comm, op: str, buf: bytearray) -> None:
    """Rank 1's side of one round."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if op == "recv":
        comm.Recv([buf, MPI.BYTE], source=0, tag=1)
    elif op == "barrier":
        comm.Barrier()
    elif op == "bcast":
        comm.Bcast([buf, MPI.BYTE], root=0)
    elif op == "irecv":
        waiting.wait([comm.Irecv([buf, MPI.BYTE], source=0, tag=1)])
    elif op == "ibarrier":
        waiting.wait([comm.Ibarrier()])
    elif op == "ibcast":
        waiting.wait([comm.Ibcast([buf, MPI.BYTE], root=0)])
    else:
        bcast(buf, root=0, comm=comm, algorithm=op, timeout=10 * WAIT_S)


def _send_once(comm, op: str, buf: bytearray) -> None:
    """Rank 0's side: the matching call, completed by spinning (its time is not measured)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if op in ("recv", "irecv"):
        comm.Send([buf, MPI.BYTE], dest=1, tag=1)
    elif op == "barrier":
        comm.Barrier()
    elif op == "ibarrier":
        comm.Ibarrier().Wait()
    elif op == "bcast":
        comm.Bcast([buf, MPI.BYTE], root=0)
    elif op == "ibcast":
        comm.Ibcast([buf, MPI.BYTE], root=0).Wait()
    else:
        bcast(buf, root=0, comm=comm, algorithm=op, timeout=10 * WAIT_S)


def measure(comm, op: str, iters: int, wait_s: float = WAIT_S) -> dict[str, float]:
    """Medians over `iters` rounds (after one warm-up round) at rank 1; {} at rank 0."""
    rank = comm.Get_rank()
    buf = bytearray(8)
    shares, latencies = [], []
    for i in range(iters + 1):
        waiting.wait([comm.Ibarrier()], mode="spin")
        if rank == 0:
            time.sleep(wait_s)
            sent = time.time()
            _send_once(comm, op, buf)
            comm.send(sent, dest=1, tag=2)
            continue
        c0, t0 = _cpu(), time.time()
        _wait_once(comm, op, buf)
        t1, c1 = time.time(), _cpu()
        sent = comm.recv(source=0, tag=2)
        if i:
            shares.append((c1 - c0) / (t1 - t0))
            latencies.append(t1 - sent)
    if rank == 0:
        return {}
    return {"cpu_share": statistics.median(shares), "cpu_share_max": max(shares),
            "latency_s": statistics.median(latencies), "rounds": iters}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.idle_bench")
    ap.add_argument("--ops", default=",".join(OPS), help=f"some of {', '.join(OPS)}")
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--wait", type=float, default=WAIT_S, help="seconds rank 1 waits")
    ap.add_argument("--timer-slack-us", type=float, metavar="US",
                    help="this process's timer slack (prctl PR_SET_TIMERSLACK), set before "
                         "MPI starts: with MPIR_CVAR_ENABLE_HEAVY_YIELD=1, MPICH's waits "
                         "sleep about this long between polls")
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.idle_bench", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.timer_slack_us is not None:
        ctypes.CDLL(None).prctl(29, int(args.timer_slack_us * 1000), 0, 0, 0)
    ops = args.ops.split(",")
    bad = [o for o in ops if o not in OPS]
    if bad:
        ap.error(f"unknown op(s) {', '.join(bad)} (one of {', '.join(OPS)})")
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if comm.Get_size() != 2:
        print("collectives.programs.idle_bench runs on exactly 2 ranks", file=sys.stderr)
        return 2
    out = {op: measure(comm, op, args.iters, args.wait) for op in ops}
    if comm.Get_rank() == 1:
        comm.send(out, dest=0, tag=3)
    else:
        print(json.dumps({"mode": waiting.MODE, "wait_s": args.wait,
                          "results": comm.recv(source=1, tag=3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
