"""Multi-node multicast on real ranks (Tseng2001): every rank builds the same plans
(`partitioning.plans`: U-torus direct, U-mesh on a mesh, or partitioned with a random or
balanced choice of DDN) for hot-spot workloads (`partitioning.hotspot_sets`) or the sets
given with --sets (`partitioning.sets`) and carries out its part; run under MPI, one rank per
torus (--torus) or mesh (--mesh) node, rank i on node i::

    python -m collectives.programs.multinode_bench --torus 4,4 --sources 4 --dests 6 \\
        --factors 0.25,0.5,0.8,1 --sizes 4096,65536 --schemes direct,random,balanced
    python -m collectives.programs.multinode_bench --mesh 4,4 --sets "0:1,2,5;3:4,6,7"

One JSON line per (factor, size, scheme) on rank 0 (factor null for given sets): median
latency (first entry to last exit, the hosts share a clock) over --reps runs, whether every
destination got the bytes of every multicast it is in, the sets measured, and the plan's
steps and the model's link contention; with when
the measured runs went (`window`, wall clock of rank 0) and how long the ranks waited for a
core each turn meanwhile (`cpu.wait_per_turn_s`): what testbed.fidelity.flags.Monitor judges
a stretch of a run by, as for bcast_bench.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from typing import Any

from .. import waiting
from ..partitioning.grid import GRIDS, Partition
from ..partitioning.hotspot_sets import HOT_SPOT_FACTORS, hotspot_multicasts
from ..partitioning.plans import CHOICES, MultinodePlan
from ..partitioning.schemes import SCHEMES, plan_for, scheme_name
from ..partitioning.sets import Pairs, parse_sets
from ..partitioning.step_model import plan_cost
from ..stats import summarize
from ..timing import idle_barrier, sched_self, sched_since, wait_per_turn
from . import command

TAG = 0x4D4E  # + multicast index


def payload(index: int, size: int) -> bytes:
    seed = zlib.crc32(f"multicast {index}".encode()).to_bytes(4, "little")
    return (seed * (size // 4 + 1))[:size]


def execute(plan: MultinodePlan, node: int, bufs: dict[int, bytearray], comm: Any) -> None:
    """This node's part of `plan`: `bufs[i]` holds multicast i's message (filled at its
    source, filled here at every other node the plan reaches). Receives are posted at once;
    sends go one at a time in the plan's step order (one port), each after its message has
    arrived. Deadlock-free: a send only waits for receives of earlier steps."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    recvs = {t.multicast: comm.Irecv([bufs[t.multicast], MPI.BYTE], source=t.sender,
                                     tag=TAG + t.multicast)
             for t in plan.program(node) if t.receiver == node}
    for t in plan.program(node):
        if t.sender != node:
            continue
        if t.multicast in recvs:
            waiting.wait([recvs[t.multicast]])
        waiting.wait([comm.Isend([bufs[t.multicast], MPI.BYTE], dest=t.receiver,
                          tag=TAG + t.multicast)])
    waiting.wait(list(recvs.values()))


def run_point(comm: Any, plan: MultinodePlan, size: int, reps: int) -> dict[str, Any]:
    node = comm.Get_rank()
    mine = {i for i, mc in enumerate(plan.multicasts)
            if node == mc.source or node in mc.destinations}
    relays = {t.multicast for t in plan.program(node)} - mine
    bufs = {i: bytearray(size) for i in mine | relays}
    times, correct = [], True
    began = sched0 = None
    for rep in range(reps + 1):  # the first run warms the connections up, unmeasured
        for i in bufs:
            bufs[i][:] = payload(i, size) if plan.multicasts[i].source == node else bytes(size)
        idle_barrier(comm)
        if rep == 1:  # the measured runs, not the warm-up
            began, sched0 = time.time(), sched_self()
        t0 = time.perf_counter()
        execute(plan, node, bufs, comm)
        t1 = time.perf_counter()
        ok = all(bufs[i] == payload(i, size) for i in mine)
        starts_ends = comm.gather((t0, t1, ok), root=0)
        if node == 0:
            correct &= all(o for _, _, o in starts_ends)
            if rep:
                times.append(max(e for _, e, _ in starts_ends)
                             - min(s for s, _, _ in starts_ends))
    ended = time.time()
    waits = comm.gather(sched_since(sched0) if sched0 else (0, 0, 0), root=0)
    if node:
        return {}
    cost = plan_cost(plan)
    return {"scheme": scheme_name(plan.choice or "direct", plan.grid),
            "size": size, "reps": reps, "correct": correct,
            "t_s": summarize(times), "samples_s": times,
            "steps": cost.steps, "sends": cost.sends, "link_crossings": cost.link_crossings,
            "max_contention": cost.max_contention, "contention": list(cost.contention),
            "window": [began or ended, ended],
            "cpu": {"wait_per_turn_s": wait_per_turn(waits)}}


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.multinode_bench")
    where = ap.add_mutually_exclusive_group()
    where.add_argument("--torus", help="rows,cols of the torus (default 4,4)")
    where.add_argument("--mesh", help="rows,cols of the mesh")
    ap.add_argument("--dilation", type=int, default=2)
    ap.add_argument("--sources", type=int, default=4)
    ap.add_argument("--dests", type=int, default=6, help="destinations per source")
    ap.add_argument("--factors", default=",".join(map(str, HOT_SPOT_FACTORS)),
                    help="hot-spot factors p (default %(default)s)")
    ap.add_argument("--sizes", default="4096,65536")
    ap.add_argument("--schemes", default=",".join(SCHEMES))
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sets", help="the sets by hand, 0:1,2,5;3:4,6,7, in place of the "
                                   "hot-spot draw (--sources, --dests, --factors)")
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.multinode_bench", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    ap = parser()
    args = ap.parse_args(argv)
    comm = MPI.COMM_WORLD
    try:
        kind = "mesh" if args.mesh else "torus"
        rows, cols = (int(x) for x in (args.mesh or args.torus or "4,4").split(","))
        grid = GRIDS[kind](rows, cols)
        if comm.Get_size() != grid.size:
            raise ValueError(f"run one rank per {kind} node: {grid.size} ranks, not "
                             f"{comm.Get_size()}")
        sizes = [int(s) for s in args.sizes.split(",")]
        schemes = args.schemes.split(",")
        for s in schemes:
            if s not in SCHEMES:
                raise ValueError(f"unknown scheme {s!r}; choose from {', '.join(SCHEMES)}")
        if set(schemes) & set(CHOICES):  # the direct scheme needs no partition
            Partition(grid, args.dilation)
        workloads: dict[float | None, Pairs]
        if args.sets:
            workloads = {None: parse_sets(args.sets, grid)}
        else:
            workloads = {p: hotspot_multicasts(grid, args.sources, args.dests, p, args.seed)
                         for p in _floats(args.factors)}
    except ValueError as e:  # every rank says it: whichever ends first is the one reported
        print(f"collectives.programs.multinode_bench: {e}", file=sys.stderr)
        return 2
    for p, pairs in workloads.items():
        given = {"sources": len(pairs), "dests": None} if p is None else {
            "sources": args.sources, "dests": args.dests}
        for size in sizes:
            for scheme in schemes:
                plan = plan_for(scheme, grid, args.dilation, pairs, args.seed)
                row = run_point(comm, plan, size, args.reps)
                if row:
                    print(json.dumps({"factor": p, **given, kind: [rows, cols],
                                      "dilation": args.dilation, "seed": args.seed,
                                      "sets": [[s, list(d)] for s, d in pairs], **row}),
                          flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
