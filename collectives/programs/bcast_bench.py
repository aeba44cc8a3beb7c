"""Measure a broadcast the way Nupairoj1998 says a multicast must be measured (runs under
mpiexec on every rank; rank 0 of the world prints one JSON object).

- direct: the hosts of the testbed share one clock, so t_mcast is read straight off it: the
  root enters last (a reduce to the root first), t_mcast = last rank's return - root's call.
- naive (--naive-loop N): Algorithm 3.3.1, the benchmark chapter 3 warns against: the
  root's wall time for N broadcasts called back to back, over N (t_root). The root returns
  when its sends are handed over, so the broadcasts overlap down the tree: the root's rate,
  not t_mcast. Measured after the direct iterations, inside the run's window.
- flow: Algorithm 3.3.2, which needs no shared clock: for every responder the root times
  broadcast + 1-byte acknowledgement (the responder first waits t_dummy >= the worst
  latency, so iterations cannot overlap), subtracts the acknowledgement's own latency, finds
  the critical responder, and measures it once more without the dummy loop.
Every rank checks its bytes after every direct iteration.

    mpiexec -n N python -m collectives.programs.bcast_bench \
        --call '{"algorithm": "binomial", "size": 1024}'    (argv() builds it)
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from .. import held, outqueue, sent, waiting
from ..algorithms import DEFAULT_BCAST, resolve
from ..call import BcastCall
from ..executor import bcast
from ..ipmc.accounting import columns as repair_columns
from ..ipmc.rounds import summary as repair_summary
from ..ipmc.sockbuf import summary as socket_buffers
from ..stats import summarize
from ..timing import (
    busy_fraction,
    busy_wait,
    cpu_jiffies,
    idle_barrier,
    sched_self,
    sched_since,
    wait_per_turn,
)
from . import command, peek_arrivals, peek_repair, peek_stats
from .marks import count_frames, root_says


def _one_byte_latency(comm, root: int, peer: int, reps: int = 20) -> float:
    """One-way 1-byte latency root<->peer (PingPong / 2), used to deduct the ack: the
    fastest of `reps`, as Nupairoj keeps the minimum of his measurements. A median took in
    the scheduling delays of a busy machine (two cores, ranks spinning), deducted more than
    the ack's own path, and gave a negative flow latency once (load average 5)."""
    rank, b = comm.Get_rank(), bytearray(1)
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        if rank == root:
            comm.Send(b, dest=peer, tag=21)
            comm.Recv(b, source=peer, tag=21)
        elif rank == peer:
            comm.Recv(b, source=root, tag=21)
            comm.Send(b, dest=root, tag=21)
        times.append((time.perf_counter() - t0) / 2)
    return min(times)


def direct(comm, buf, want: bytes, root: int, iters: int, warmup: int,
           budget_s: float | None = None, rank_times: dict | None = None,
           late: str | None = None, late_s: float = 0.0, **alg) -> tuple:
    """direct_steps run to its end: (t_mcast samples, verified, cpu)."""
    return finished(direct_steps(comm, buf, want, root, iters, warmup, budget_s, rank_times,
                                 late, late_s, **alg))


def finished(steps: Generator[None, None, Any]) -> Any:
    """What a generator of steps (direct_steps, turns) returns, its steps all taken."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def direct_steps(comm, buf, want: bytes, root: int, iters: int, warmup: int,
                 budget_s: float | None = None, rank_times: dict | None = None,
                 late: str | None = None, late_s: float = 0.0,
                 **alg) -> Generator[None, None, tuple]:
    """One broadcast a step (a generator: `interleaved` lets several calls take turns),
    returning (t_mcast samples, verified, cpu): cpu holds the whole machine's busy share over the
    measured iterations (read at the root), `on_cpu`, the share of their time inside the
    broadcast that the ranks spent running (CPU time / wall time, over all ranks): with more
    ranks than cores, a rank that has work waits for a core that other ranks and the
    software switches also want; and `wait_per_turn_s`, how long a rank waited for a core
    each time it got one, over the measured iterations.

    Each iteration: the root says go (every rank waits asleep), a reduce to the root (so the
    root enters last, after every rank has finished the previous broadcast), the broadcast;
    times are gathered once at the end, so that under loss the measuring costs few
    messages. With `budget_s` the root stops measuring after that long (one measured
    broadcast at least): the record says how many it got. The root fills `rank_times` (if
    given) with every rank's completion times (rank_completion) and, for DYN-Tree, the tree
    of every measured broadcast (`dyn_parents`: per broadcast, each rank's parent, None at
    the root), for the point-to-point trees the root's sending queue (`root_queue`:
    collectives.sent.summary; the root looks when its last message has left once it has
    returned, outside the times measured), and for the broadcasts with completion reports
    (nack, the report scouts) what each measured broadcast's repair cost the root
    (`repairs`: ipmc.accounting.columns, in the order of the samples).

    `late` ("root" or "receivers") makes that side call the broadcast `late_s` after the
    others (Siebert2006's root last and root first); the root then also reports the final
    phase, the median time from the last rank's call to the last return (`final_phase_s`)."""
    rank = comm.Get_rank()
    ok = True
    delay = late_s if late and (rank == root) == (late == "root") else 0.0
    one = bytearray(1)
    stat0 = counters0 = sched0 = None
    starts: list[float] = []
    mine: list[tuple[float, float, float, float | None]] = []
    parents: list[int | None] = []
    queues: list[list[tuple[float, float | None]]] = []  # its sends, per broadcast
    record = resolve("bcast", alg.get("algorithm", DEFAULT_BCAST))  # a call's: no look-up
    dynamic = record.name == "dyn-tree"
    accounts: list[Any] = []  # the root's repair account of each measured broadcast
    accounted = rank == root and record.family == "multicast"
    t_first = None
    for i in range(warmup + iters):
        over = (budget_s is not None and t_first is not None and i > warmup
                and time.perf_counter() - t_first > budget_s)
        if not root_says(comm, root, not over if rank == root else True):
            break
        if rank != root:
            buf[:] = bytes(len(buf))
        if i == warmup:
            t_first = time.perf_counter()
            counters0 = peek_stats(comm)
            sched0 = sched_self()
            if rank == root:
                stat0 = cpu_jiffies()
        # root last; asleep, as MPI_Reduce would keep the early ranks spinning
        waiting.wait([comm.Ireduce(one, bytearray(1) if rank == root else None, root=root)],
                     mode="block")
        if delay:
            time.sleep(delay)
        c0, t0 = time.process_time(), time.time()
        bcast(buf, root=root, comm=comm, **alg)
        t1, c1 = time.time(), time.process_time()
        if rank == root and sent.unseen():
            outqueue.wait_sent()
            sent.left()
        ok &= bytes(buf) == want
        if i >= warmup:
            starts.append(t0)
            mine.append((t1, c1 - c0, t1 - t0, held.at()))
            queues.append(sent.since_call())
            if accounted:
                accounts.append(peek_repair(comm))
            if dynamic:
                # only in this branch (a rank's start-up: collectives.programs)
                from ..trees.dyn_bcast import last_parent

                parents.append(last_parent(comm))
        yield
    stat1 = cpu_jiffies() if rank == root else None
    waited = sched_since(sched0) if sched0 else (0, 0, 0)
    # asleep until the last broadcast is over everywhere: a rank back from it early would
    # spin in the gathers below (MPICH polls) while the others still work, and the last
    # sample was a point's largest (nack, 1 KiB on 8 hosts: 30-36 ms against a p99.9 of
    # 6-11, 2026-12-06; a loop that a budget ended had said so asleep: root_says)
    idle_barrier(comm)
    waits = comm.gather(waited, root=root)
    every = comm.gather(mine, root=root)
    trees = comm.gather(parents, root=root) if dynamic else None
    samples, rank_cpu = [], []
    if rank == root:
        for i, start in enumerate(starts):
            ends = [m[i] for m in every]
            samples.append(max(e[0] for e in ends) - start)
            rank_cpu.append((sum(e[1] for e in ends), sum(e[2] for e in ends)))
        if rank_times is not None:
            rank_times.update(rank_completion(starts, every, root))
            rank_times["root_queue"] = sent.summary(queues)
            rank_times["repairs"] = repair_columns(accounts)
            if late:
                rank_times["final_phase_s"] = statistics.median(
                    max(m[i][0] for m in every) - max(m[i][0] - m[i][2] for m in every)
                    for i in range(len(starts))) if starts else None
            if trees is not None:
                rank_times["dyn_parents"] = [list(t) for t in zip(*trees, strict=True)]
    cpu = {"cores": os.cpu_count(), "ranks": comm.Get_size(),
           "busy": busy_fraction(stat0, stat1) if rank == root else None,
           "on_cpu": _ratio(sum(c for c, _ in rank_cpu), sum(w for _, w in rank_cpu)),
           # how long a rank waited for a core each time it got one (testbed.fidelity.flags)
           "wait_per_turn_s": wait_per_turn(waits) if rank == root else None}
    cpu["datagrams"] = _datagram_totals(comm, counters0, peek_stats(comm), len(mine))
    rounds = _repair_rounds(comm, root, counters0)
    if cpu["datagrams"] is not None and rounds is not None:
        cpu["datagrams"]["repair_rounds"] = rounds
    return samples, all(comm.allgather(ok)), cpu


def rank_completion(starts: list[float], every: list[list[tuple]], root: int) -> dict:
    """Per rank, the median time from the root's call of each broadcast to the moment that
    rank held the whole message (`rank_done_s`) and to its return from the broadcast
    (`rank_return_s`); `every[r][i]` is rank r's (return, cpu, wall, held) of broadcast i
    (the hosts share one clock). Where a receiver's algorithm does not say when it held the
    message (MPICH's own MPI_Bcast), its return stands in: `rank_done_from` is "held",
    "return" or "mixed" (over the receivers)."""
    done: list[float | None] = []
    back: list[float | None] = []
    said: set[bool] = set()
    for r, mine in enumerate(every):
        pairs = list(zip(mine, starts, strict=False))
        if r != root:
            said.update(m[3] is not None for m, _ in pairs)
        done.append(statistics.median((m[0] if m[3] is None else m[3]) - t0
                                      for m, t0 in pairs) if pairs else None)
        back.append(statistics.median(m[0] - t0 for m, t0 in pairs) if pairs else None)
    source = (None if not said else "held" if said == {True} else
              "return" if said == {False} else "mixed")
    return {"rank_done_s": done, "rank_return_s": back, "rank_done_from": source}


def _ratio(a: float, b: float) -> float | None:
    return a / b if b > 0 else None


COUNTERS = ("sent", "received", "delivered", "duplicate", "stale", "early", "rejected",
            "repaired")


def _datagram_totals(comm, before: dict | None, after: dict | None, iters: int) -> dict | None:
    """Datagram counters of the multicast channel over the measured iterations, summed over
    every rank (None for the point-to-point algorithms), the root's pace and group round
    trip at the end (`pace_bps`, `grtt_s`: nack's, ipmc.rate and ipmc.grtt), and the group
    sockets' receive buffer, asked for and got, with the datagrams they dropped meanwhile
    (`rcvbuf`: ipmc.sockbuf.summary)."""
    mine = None
    if after is not None:
        before_counts = before or dict.fromkeys(COUNTERS, 0)
        mine = {key: after[key] - before_counts[key] for key in COUNTERS}
    every = [m for m in comm.allgather(mine) if m is not None]
    buffers = comm.allgather((before and before["rcvbuf"], after and after["rcvbuf"]))
    if not every:
        return None
    total = {key: sum(m[key] for m in every) for key in COUNTERS}
    root = comm.allgather(after and (after.get("pace_bps"), after["grtt_s"]))
    pace, grtt = next(((p, g) for p, g in filter(None, root) if p), (None, None))
    return {**total, "per_broadcast": {k: v / max(iters, 1) for k, v in total.items()},
            "pace_bps": pace, "grtt_s": grtt,
            "rcvbuf": socket_buffers([b for b, _ in buffers], [a for _, a in buffers])}


def _repair_rounds(comm, root: int, before: dict | None) -> dict | None:
    """Siebert's repair rounds over the measured two-stage broadcasts (ipmc.rounds), at
    the root; None where the broadcasts were not two-stage on every rank."""
    mine = peek_arrivals(comm, before["bid"] if before else 0)
    every = comm.gather(mine, root=root)
    if comm.Get_rank() != root:
        return None
    bids = sorted(set.intersection(*(set(m) for m in every)))
    return repair_summary([[m[b] for m in every] for b in bids], root) if bids else None


def flow(comm, buf, root: int, iters: int, t_dummy: float, **alg) -> dict:
    rank, k = comm.Get_rank(), comm.Get_size()
    one = bytearray(1)

    def run(responder: int, dummy: float) -> float:
        t_ack = _one_byte_latency(comm, root, responder)
        idle_barrier(comm)
        comm.Reduce(bytearray(1), bytearray(1) if rank == root else None, root=root)
        t0 = time.perf_counter()
        for _ in range(iters):
            bcast(buf, root=root, comm=comm, **alg)
            if rank == root:
                comm.Recv(one, source=responder, tag=22)
            elif rank == responder:
                busy_wait(dummy)
                comm.Send(one, dest=root, tag=22)
        t_m = (time.perf_counter() - t0) / iters
        return t_m - dummy - t_ack

    per = {d: run(d, t_dummy) for d in range(k) if d != root}  # meaningful at the root only
    critical = comm.bcast(max(per, key=per.__getitem__) if per else root, root=root)
    final = run(critical, 0.0) if per else 0.0
    return {"t_mcast_s": final, "critical": critical, "t_dummy_s": t_dummy,
            "per_responder_s": {str(d): v for d, v in per.items()}}


def naive(comm, buf, root: int, iters: int, repeats: int, **alg) -> list[float]:
    """Per repeat: the root's wall time for `iters` back-to-back broadcasts / iters."""
    out = []
    for _ in range(repeats):
        idle_barrier(comm)
        t0 = time.perf_counter()
        for _ in range(iters):
            bcast(buf, root=root, comm=comm, **alg)
        out.append((time.perf_counter() - t0) / iters)
    idle_barrier(comm)
    return out


MODULE = "collectives.programs.bcast_bench"
NAIVE_REPEATS = 1  # back-to-back loops a --naive-loop point times (their median is kept)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.bcast_bench")
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument("--call", type=BcastCall.from_json,
                      help="the broadcast: a collectives.call.BcastCall as one JSON line")
    what.add_argument("--calls", type=json.loads,
                      help="several broadcasts measured one after the other in this job, a "
                           "JSON list of {key, call, iters?, warmup?, naive_loop?, late?, "
                           "frame_iters?} (call: a BcastCall's dict; late: [side, ms]); one "
                           "JSON line each, with its key, as soon as it is measured")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=1,
                    help="--calls: their measured broadcasts in this many rounds, the calls "
                         "taking turns in each (1: one call's all, then the next's)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--flow-iters", type=int, default=5)
    ap.add_argument("--no-flow", dest="flow", action="store_false")
    ap.add_argument("--mark-dir", help="count frames: the marks of collectives.programs.marks "
                    "around --frame-iters back-to-back broadcasts")
    ap.add_argument("--frame-iters", type=int, default=10)
    ap.add_argument("--naive-loop", type=int, default=0,
                    help="also time Algorithm 3.3.1: broadcasts per back-to-back loop")
    # one loop: a job's loops lay within 1 % of each other (binomial; the chain's within 1
    # ms of 5, against binomial's 20-28 ms) in 5 loops a job on 8 and 16 hosts, 2026-12-06
    ap.add_argument("--naive-repeats", type=int, default=NAIVE_REPEATS)
    ap.add_argument("--late", choices=("root", "receivers"),
                    help="this side calls each broadcast --late-ms after the others")
    ap.add_argument("--late-ms", type=float, default=0.0)
    return ap


def argv(call: BcastCall, *, late: tuple[str, float] | None = None,
         **values: Any) -> list[str]:
    """The python arguments that run this program on `call` (its parser reads them back);
    `late` is (side, ms), the rest by the parser's names (iters, flow, mark_dir, ...)."""
    return command(MODULE, parser(), call=call.to_json(), late=late and late[0],
                   late_ms=late and float(late[1]), **values)


def batch_argv(calls: list[dict[str, Any]], **values: Any) -> list[str]:
    """The python arguments that measure several broadcasts in one job (--calls: each
    {key, call: BcastCall dict, and optionally iters, warmup, naive_loop, late, frame_iters});
    the rest by the parser's names (flow, flow_iters, mark_dir, ...)."""
    return command(MODULE, parser(), calls=json.dumps(calls), **values)


def bracket(index: int) -> str:
    """The frame-counting bracket of the `index`-th broadcast of a --calls job."""
    return f"bcast.{index}"


@dataclass
class Taken:
    """A call's direct iterations as measured (direct_steps), with its buffer and when it
    began."""

    samples: list[float]
    verified: bool
    cpu: dict[str, Any]
    ranks: dict[str, Any]
    buf: bytearray
    began: float


def turns(comm: Any, call: BcastCall, iters: int, warmup: int, late: str | None = None,
          late_ms: float = 0.0) -> Generator[None, None, Taken]:
    """`call`'s direct iterations, one broadcast a step, returning its Taken."""
    alg = call.run_kwargs()  # the record looked up when the call was read: not again
    if call.record.family == "multicast":
        # only in this branch (a rank's start-up: collectives.programs)
        from ..ipmc.channel import channel_for

        # its set-up (collective) before any broadcast, so that no broadcast, not even the
        # first with --warmup 0, has every rank meet in it (verify does the same)
        channel_for(comm, timeout=alg.get("timeout"))
    want = random.Random(call.size).randbytes(call.size)
    buf = bytearray(want)
    ranks: dict = {}
    began = time.time()
    samples, verified, cpu = yield from direct_steps(comm, buf, want, call.root, iters,
                                                     warmup, rank_times=ranks, late=late,
                                                     late_s=late_ms / 1e3, **alg)
    return Taken(samples, verified, cpu, ranks, buf, began)


def shares(iters: int, rounds: int) -> list[int]:
    """`iters` measured broadcasts over `rounds` rounds, as evenly as they go (the first
    rounds one more where they do not divide)."""
    return [iters // rounds + (r < iters % rounds) for r in range(rounds)]


def steps(iters: int, warmup: int, rounds: int) -> list[int]:
    """A call's steps (broadcasts) in each of `rounds` rounds: its warm-up and its share of
    the `iters` measured ones in the first, its shares in the others."""
    return [warmup * (r == 0) + n for r, n in enumerate(shares(iters, rounds))]


def interleaved(steps: Sequence[Generator[None, None, Any]], counts: Sequence[list[int]]
                ) -> list[Any]:
    """Several calls' steps (turns) taking turns: in round r each call takes counts[i][r]
    steps, call after call; then each is run to its end (its gathers, every rank in the
    same order). A slow spell of the machine's 2 shared cores then falls on every call
    alike instead of on the one whose block it met (binomial against OPT-Tree at 1 KiB on 16
    hosts, blocks of 30 one after the other: their ratio 1.04-1.53 over 5 jobs, 2026-12-06).
    Every rank drives them alike (the root's go of each step is collective)."""
    rounds = {len(c) for c in counts}
    if len(counts) != len(steps) or len(rounds) > 1:
        raise ValueError("every call needs a count of steps for every round")
    out: list[Any] = [None] * len(steps)
    over = [False] * len(steps)
    for r in range(rounds.pop() if rounds else 0):
        for i, g in enumerate(steps):
            for _ in range(counts[i][r]):
                if over[i]:
                    break
                try:
                    next(g)
                except StopIteration as done:  # a budget ran out: it is over early
                    out[i], over[i] = done.value, True
    return [out[i] if over[i] else finished(g) for i, g in enumerate(steps)]


def measure(comm: Any, call: BcastCall, iters: int, warmup: int, *, late: str | None = None,
            late_ms: float = 0.0, naive_loop: int = 0, naive_repeats: int = NAIVE_REPEATS,
            timed_flow: bool = True, flow_iters: int = 5, mark_dir: str | None = None,
            frame_iters: int = 0, frame_bracket: str = "bcast",
            taken: Taken | None = None) -> dict[str, Any]:
    """One broadcast measured: the direct samples (`taken`: already measured, interleaved
    with other calls'), Algorithm 3.3.1 (`naive_loop` > 0), the
    flow latency (`timed_flow`) and the frames of `frame_iters` back-to-back broadcasts
    between `frame_bracket`'s marks (`mark_dir`); the record (the root's is the one)."""
    alg = call.run_kwargs()
    root = call.root
    got = taken if taken is not None else finished(turns(comm, call, iters, warmup, late,
                                                         late_ms))
    samples, verified, cpu, ranks, buf, began = (got.samples, got.verified, got.cpu,
                                                 got.ranks, got.buf, got.began)
    loops = (naive(comm, buf, root, naive_loop, naive_repeats, **alg)
             if naive_loop > 0 else None)
    ended = time.time()
    worst = comm.bcast(max(samples) if samples else 0.0, root=root)
    out = {"algorithm": call.algorithm, "size": call.size, "ranks": comm.Get_size(),
           "root": root, "iterations": iters, "verified": verified,
           "params": {k: v for k, v in alg.items() if k != "algorithm"},
           "datagrams": cpu.pop("datagrams"),
           "t_mcast_s": summarize(samples) if samples else None, "cpu": cpu,
           "window": [began, ended], **ranks}  # when the broadcasts ran (not the start-up)
    if loops is not None:
        out |= {"naive_loop": naive_loop, "naive_loops_s": loops,
                "naive_s": statistics.median(loops)}
    if timed_flow and comm.Get_size() > 1:
        out["flow"] = flow(comm, buf, root, flow_iters, 1.5 * worst, **alg)
    if mark_dir and frame_iters > 0:
        out["frame_iters"] = frame_iters
        out["frames_marked"] = count_frames(comm, root, mark_dir, [
            (frame_bracket, frame_iters, lambda: bcast(buf, root=root, comm=comm, **alg))])
    if comm.Get_rank() == root and out.get("flow") and out["t_mcast_s"]:
        med = out["t_mcast_s"]["median"]
        out["flow_vs_direct"] = out["flow"]["t_mcast_s"] / med - 1 if med else None
    return out


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    waiting.connect_all(comm)
    common = {"naive_repeats": args.naive_repeats, "timed_flow": args.flow,
              "flow_iters": args.flow_iters, "mark_dir": args.mark_dir}
    if args.call is not None:
        out = measure(comm, args.call, args.iters, args.warmup, late=args.late,
                      late_ms=args.late_ms, naive_loop=args.naive_loop,
                      frame_iters=args.frame_iters, **common)
        if comm.Get_rank() == args.call.root:
            print(json.dumps(out), flush=True)
        return 0 if out["verified"] else 1
    calls = [BcastCall.from_dict(entry["call"]) for entry in args.calls]
    lates = [entry.get("late") or (None, 0.0) for entry in args.calls]
    iters = [entry.get("iters", args.iters) for entry in args.calls]
    warmups = [entry.get("warmup", args.warmup) for entry in args.calls]
    taken: list[Taken | None] = [None] * len(calls)
    if args.rounds > 1:  # the calls' broadcasts take turns, their warm-ups first
        taken = interleaved(
            [turns(comm, c, n, w, late[0], late[1])
             for c, n, w, late in zip(calls, iters, warmups, lates, strict=True)],
            [steps(n, w, args.rounds) for n, w in zip(iters, warmups, strict=True)])
    for i, entry in enumerate(args.calls):
        call, late = calls[i], lates[i]
        out = measure(comm, call, iters[i], warmups[i], late=late[0], late_ms=late[1],
                      naive_loop=entry.get("naive_loop", 0),
                      frame_iters=entry.get("frame_iters", 0), frame_bracket=bracket(i),
                      taken=taken[i], **common)
        if comm.Get_rank() == call.root:
            print(json.dumps({"key": entry["key"], **out}), flush=True)
    return 0  # a wrong result is in its record (verified false), not a failed job


if __name__ == "__main__":
    sys.exit(main())
