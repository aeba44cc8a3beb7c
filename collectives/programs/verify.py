"""Check that broadcasts deliver the right bytes (runs under mpiexec): every algorithm, every
root, several sizes, the whole world and subset communicators. Prints one JSON line per
communicator from its rank 0 and exits non-zero on any wrong byte.

    mpiexec -n N python -m collectives.programs.verify --sizes 0,1,1000 --algorithms binomial,chain
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
import zlib
from typing import Any

from ..algorithms import BARRIERS, BCASTS, Algorithm, lookup
from ..executor import barrier, bcast
from ..ipmc.accounting import columns as repair_columns
from ..ipmc.acktree import ACKS
from . import add_layout_arguments, command, layout_arguments, peek_repair, peek_stats


def payload(n: int, seed: int) -> bytes:
    return random.Random(seed).randbytes(n)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.verify")
    ap.add_argument("--sizes", default="0,1,1000,65539")
    ap.add_argument("--algorithms", default=",".join(BCASTS))
    ap.add_argument("--roots", default="all", help="'all' or comma-separated ranks")
    ap.add_argument("--t-hold", type=float, default=30e-6)
    ap.add_argument("--t-end", type=float, default=90e-6)
    ap.add_argument("--fragment", type=int, default=4096)
    ap.add_argument("--mcast-fragment", type=int,
                    help="datagram payload of the multicast algorithms (default: fits the MTU)")
    ap.add_argument("--acks", choices=ACKS,
                    help="nack's completion: direct or up a tree (ipmc.acktree; default tree)")
    ap.add_argument("--ack-fanout", type=int, help="children per rank in the tree of acks")
    ap.add_argument("--skew", type=float, default=0.0,
                    help="rank 1 enters every broadcast this many seconds late")
    ap.add_argument("--repeat", type=int, default=1, help="run every case this many times")
    ap.add_argument("--barriers", default="",
                    help=f"also check these barriers ({', '.join(BARRIERS)}) with "
                         "random skew")
    ap.add_argument("--barrier-rounds", type=int, default=20,
                    help="barriers checked one after the other, per barrier algorithm")
    ap.add_argument("--subsets", action="store_true",
                    help="also split the world into even and odd ranks")
    ap.add_argument("--setup-timeout", type=float,
                    help="range-tree: how long the first use of a tree waits for its ranges "
                         "to arrive (default 10 s)")
    add_layout_arguments(ap)
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.verify", parser(), **values)


def records(names: str, collective: str) -> dict[str, Algorithm]:
    """Each comma-separated name's record, looked up once, as the program starts (the
    registry's one wording for an unknown one: the program's usage error)."""
    try:
        return {n: lookup(collective, n) for n in filter(None, names.split(","))}
    except ValueError as e:
        raise SystemExit(f"collectives.programs.verify: {e}") from None


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    bcasts, barriers = records(args.algorithms, "bcast"), records(args.barriers, "barrier")

    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    world = MPI.COMM_WORLD
    comms: list[tuple[str, MPI.Comm]] = [("world", world)]
    if args.subsets and world.Get_size() >= 3:
        comms.append((f"parity{world.Get_rank() % 2}", world.Split(world.Get_rank() % 2)))
    bad = 0
    for name, comm in comms:
        k = comm.Get_size()
        where = _layout(comm, args)
        if args.setup_timeout is not None:
            where["setup_timeout"] = args.setup_timeout
        roots = range(k) if args.roots == "all" else [int(r) for r in args.roots.split(",")
                                                       if int(r) < k]
        cases = [(a, int(n), r) for _ in range(args.repeat) for a in args.algorithms.split(",")
                 for n in args.sizes.split(",") for r in roots]
        if any(a.family == "multicast" for a in bcasts.values()):
            # only in this branch (a rank's start-up: collectives.programs)
            from ..ipmc.channel import channel_for

            channel_for(comm)  # its set-up (collective) outside the timed broadcasts
        # back to back: no synchronisation between broadcasts, results compared at the end
        mine, took, accounts = [], [], []
        for algorithm, n, root in cases:
            want = payload(n, zlib.crc32(f"{algorithm}/{n}/{root}/{name}".encode()))
            buf = bytearray(want) if comm.Get_rank() == root else bytearray(n)
            if args.skew and comm.Get_rank() == 1 % k:
                time.sleep(args.skew)
            t0 = time.perf_counter()
            alg = bcasts[algorithm]
            bcast(buf, root=root, comm=comm, algorithm=alg, **_params(alg, args, where))
            took.append(time.perf_counter() - t0)
            mine.append(bytes(buf) == want)
            # the root's repair account (ipmc.accounting), read outside the timed call
            accounts.append(peek_repair(comm) if comm.Get_rank() == root
                            and alg.family == "multicast" else None)
        checked = len(cases)
        every = comm.allgather(mine)
        for i, (algorithm, n, root) in enumerate(cases):
            wrong = [r for r, oks in enumerate(every) if not oks[i]]
            if wrong:
                bad += 1
                if comm.Get_rank() == 0:
                    want = payload(n, zlib.crc32(f"{algorithm}/{n}/{root}/{name}".encode()))
                    print(json.dumps({"error": "wrong bytes", "comm": name,
                                      "algorithm": algorithm, "size": n, "root": root,
                                      "ranks": wrong, "sha": hashlib.sha1(want).hexdigest()[:8]}),
                          flush=True)
        for record in barriers.values():
            bad += _check_barrier(comm, record, name, where if record.nodes else {},
                                  args.barrier_rounds)
        stats = comm.gather(peek_stats(comm), root=0)
        rooted = comm.gather(accounts, root=0)
        slowest = [max(ts) for ts in zip(*comm.allgather(took), strict=True)]
        if comm.Get_rank() == 0:
            assert stats is not None and rooted is not None  # gathered at rank 0
            out = {"comm": name, "size": k, "broadcasts": checked, "all_correct": bad == 0,
                   "seconds": slowest}  # per case, the slowest rank's time in it
            repairs = repair_columns([rooted[r][i] for i, (_a, _n, r) in enumerate(cases)])
            if repairs is not None:  # only broadcasts with completion reports keep one
                out["repairs"] = repairs
            if any(stats):
                out["datagrams"] = {key: sum(s[key] for s in stats if s)
                                    for key in ("sent", "delivered", "duplicate", "stale",
                                                "rejected", "repaired")}
                out["group"] = next(f"{s['group']}:{s['port']}" for s in stats if s)
                out["grtt_s"] = max(s["grtt_s"] for s in stats if s)
                out["pace_bps"] = stats[0]["pace_bps"] if stats[0] else None  # rank 0's
            print(json.dumps(out), flush=True)
    return 1 if world.allreduce(bad) else 0


def _layout(comm, args: argparse.Namespace) -> dict:
    """nodes= and fattree= of the range tree on this communicator (its ranks' nodes)."""
    given = layout_arguments(args)
    world = given.get("nodes")
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    mine = world[MPI.COMM_WORLD.Get_rank()] if world else MPI.COMM_WORLD.Get_rank()
    out: dict = {"nodes": comm.allgather(mine)}
    if "fattree" in given:
        out["fattree"] = given["fattree"]
    elif not world:
        out["fattree"] = [4, MPI.COMM_WORLD.Get_size()]
    return out


def _params(algorithm: Algorithm, args: argparse.Namespace, where: dict) -> dict:
    family = algorithm.family
    if family == "range":
        return dict(where, **({"fragment": args.mcast_fragment} if args.mcast_fragment else {}))
    if family == "multicast":
        given = {"fragment": args.mcast_fragment, "acks": args.acks,
                 "ack_fanout": args.ack_fanout}
        return {k: v for k, v in given.items() if v is not None}
    return {"t_hold": args.t_hold, "t_end": args.t_end, "fragment": args.fragment}


def _check_barrier(comm, algorithm: Algorithm, name: str, params: dict, rounds: int = 20
                   ) -> int:
    """No rank may leave a barrier before the last one entered (the hosts share a clock);
    ranks enter after random delays of up to 20 ms, one barrier after the other. The times
    are compared once all rounds are over (an allgather after each round cost a TCP
    retransmission timeout now and then under loss)."""
    rng = random.Random(comm.Get_rank())
    mine = []
    for _ in range(rounds):
        time.sleep(rng.random() * 0.02)
        entered = time.time()
        barrier(comm, algorithm, **params)
        mine.append((entered, time.time()))
    wrong = 0
    for times in zip(*comm.allgather(mine), strict=True):  # one round, every rank's times
        if max(e for e, _ in times) > min(x for _, x in times):
            wrong += 1
    if wrong and comm.Get_rank() == 0:
        print(json.dumps({"error": "barrier released early", "comm": name,
                          "algorithm": algorithm.name, "rounds": wrong}), flush=True)
    return wrong


if __name__ == "__main__":
    sys.exit(main())
