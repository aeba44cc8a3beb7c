"""Measure the point-to-point parameters of Nupairoj1998, chapter 2, as a broadcast uses them
(runs under mpiexec, 2 ranks or more): t_hold(m), t_end(m) with PingPong, and t_send,
t_net, t_recv with the dummy-loop procedure (Algorithm 2.3.3); then start-up + per-byte lines
fitted to each. Rank 0 prints one JSON object. Medians of repeated runs (the paper took
minima on a reserved machine; here the machine is shared, and medians are what the testbed
reports; minima are kept too).

t_hold is what a tree node pays per send: rank 0 (the broadcast's root: the testbed puts
it first) sends `--hold-sends` messages back to back, one to each other rank in turn (as a
node sends to its children), in the broadcast's send order (fifo: each send starts once the
previous message has left the host), from an idle start; t_hold is the time until the last
has left, over their number. On an emulated link a lone frame leaves at once and every
later one after its predecessor's wire time, so t_hold depends on how many sends a node
makes: it is kept for every count up to `--hold-sends` (t_hold_sends_s), and the model takes
the count of the broadcast's busiest node (collectives.trees.inputs). Rank 0 and
`--partner` (a rank at the hop count the broadcast's messages travel) time PingPong and the
dummy loop while every other rank waits in a receive, as a broadcast's ranks wait: t_end
with all ranks present. The old streaming t_hold (up to 200
messages to one peer, timed to its acknowledgement) is kept as t_hold_stream_s.

    mpiexec -n 16 python -m collectives.programs.params --sizes 1,1024,65536
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

from ..algorithms import DEFAULT_SEND_ORDER, SEND_ORDERS

# The timed rounds are collectives.measured's, which the drop-in communicator measures with
# on first use: both measure the same t_hold and t_end. Their sends and receives wait as the
# broadcasts' own do (collectives.waiting): the model's t_hold and t_end then hold the
# wake-up that a broadcast's ranks pay.
from ..measured import departures, hold, hold_rounds, pingpong, reps, software
from ..timing import fit_line, idle_barrier
from ..waiting import recv, send
from . import command

DEFAULT_SIZES = "1,1024,16384,65536,262144,1048576"
# t_dummy in units of t_end (Algorithm 2.3.3's sweep): enough past the knee t_idle = t_net +
# t_end to fit the rising part's intercept
DUMMY_FRACTIONS = (0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0)
DUMMY_RUNS = 3


def _ping(comm, buf, k: int, t_ack: float) -> tuple[float, float]:
    """(t_hold, t_return) at the sender. t_return is the mean time for a send to return; a
    send of a large message returns once the data sits in the socket buffer, so t_return
    can be shorter than the wire time. t_hold is the sustained rate: from the first send
    to the receiver's acknowledgement of the last message, less that acknowledgement's
    own one-way latency, over k (never below t_return). A node's next send can start no
    sooner on average, which is what the model needs for a node sending many times."""
    rank = comm.Get_rank()
    idle_barrier(comm)
    t0 = time.perf_counter()
    for _ in range(k):
        if rank == 0:
            send(comm, buf, 1, 7)
        else:
            recv(comm, buf, 0, 7)
    t_return = (time.perf_counter() - t0) / k
    if rank == 1:
        send(comm, buf[:1], 0, 8)
        return t_return, t_return
    recv(comm, buf[:1], 1, 8)
    sustained = (time.perf_counter() - t0 - t_ack) / k
    return max(t_return, sustained), t_return


def measure(comm, sizes: list[int], repeats: int, dummy_max: int,
            budget_bytes: int = 8 << 20, hold_sends: int | None = None,
            send_order: str = DEFAULT_SEND_ORDER, partner: int = 1,
            dummy_fractions: tuple[float, ...] = DUMMY_FRACTIONS,
            dummy_runs: int = 3, pin_pair: bool = False) -> dict:
    """Every rank calls it; rank 0 sends the hold rounds, ranks 0 and `partner` time the
    pair's figures (rank 0's result counts). Per size: t_hold over `hold_sends` back-to-back
    sends (t_hold_s) and over every count S up to it (t_hold_sends_s[i][S - 1], from the same
    rounds: a round's first S sends are a round of S), the share of a send its call holds
    the sender (t_hold_software_s, section 6.3's t_hs + m t_hd), t_end between 0 and
    `partner`; the dummy-loop sweep up to `dummy_max` bytes, at `dummy_fractions` of t_end,
    each point the median of `dummy_runs` runs. With `pin_pair`, rank 0 and `partner` each
    keep a core of their own while they time the pair's figures (own_core; `pinned` says
    whether they could)."""
    rank, n = comm.Get_rank(), comm.Get_size()
    if not 0 < partner < n:
        raise ValueError(f"the ping-pong partner must be a rank in 1..{n - 1}, got {partner}")
    sends = hold_sends or n - 1
    fifo = send_order == "fifo"
    paired = rank in (0, partner)
    pair = comm.Split(0 if paired else 1, 0 if rank == 0 else 1 if paired else rank)
    out: dict = {"sizes": sizes, "repeats": repeats, "ranks": n, "hold_sends": sends,
                 "send_order": send_order, "partner": partner, "t_hold_s": [],
                 "t_end_s": [], "t_hold_min_s": [], "t_end_min_s": [],
                 "t_hold_sends_s": [], "t_hold_software_s": [], "t_hold_return_s": [],
                 "t_hold_stream_s": [], "dummy": []}
    warm = bytearray(max(sizes) or 1)
    for m in sorted({1, *sizes}):  # first messages set up connections: not measured
        hold(comm, memoryview(warm)[:m], n - 1, fifo)
        if paired:
            pingpong(pair, memoryview(warm)[:m], 3)
    mask = own_core(pair.Get_rank()) if paired and pin_pair else None
    out["pinned"] = mask is not None
    t_ack = statistics.median(pingpong(pair, memoryview(warm)[:1], 20)
                              for _ in range(5)) if paired else 0.0
    out["t_ack_s"] = t_ack
    for m in sizes:
        buf = bytearray(max(m, 1))
        view = memoryview(buf)[:m] if m else memoryview(buf)[:0]
        rounds = [departures(comm, view, sends, fifo) for _ in range(hold_rounds(m, repeats))]
        if not paired:
            continue
        k = reps(m, budget_bytes)
        pings = [_ping(pair, view, k, t_ack) for _ in range(repeats)]
        ends = [pingpong(pair, view, k) for _ in range(repeats)]
        # both ranks of the pair loop (rank 0 spinning its dummy loop), rank 0's t_end counts
        sweep = dummy_sweep(pair, view, k, statistics.median(ends), dummy_fractions,
                            dummy_runs) if m <= dummy_max else None
        if rank != 0:
            continue
        by_count = [statistics.median(r[s - 1][1] / s for r in rounds)
                    for s in range(1, sends + 1)]
        out["t_hold_sends_s"].append(by_count)
        out["t_hold_s"].append(by_count[-1])
        out["t_hold_min_s"].append(min(r[-1][1] / sends for r in rounds))
        out["t_hold_software_s"].append(statistics.median(software(r) for r in rounds))
        out["t_hold_stream_s"].append(statistics.median(h for h, _ in pings))
        out["t_hold_return_s"].append(statistics.median(r for _, r in pings))
        out["t_end_s"].append(statistics.median(ends))
        out["t_end_min_s"].append(min(ends))
        if sweep is not None:
            out["dummy"].append(sweep)
    if mask is not None:
        os.sched_setaffinity(0, mask)
    pair.Free()
    return out


def own_core(index: int) -> set[int] | None:
    """Run this process on the `index`-th of the CPUs it may use, alone of the pair: as the
    paper's nodes each have a processor. Without it the kernel may wake the partner on the
    core where rank 0 spins its dummy loop (the waker's), and the reply waits for that core:
    unpinned, t_est rose a sixth over t_end for dummy loops of 0.8-1.4 t_end and fell back
    past them, in all 5 jobs (1 B on the star, 2026-12-06 12:54); pinned, it stayed flat
    there. The mask before (to restore), or None where there are fewer than two CPUs."""
    before = os.sched_getaffinity(0)
    cpus = sorted(before)
    if len(cpus) < 2:
        return None
    try:
        os.sched_setaffinity(0, {cpus[index % len(cpus)]})
    except OSError:
        return None
    return before


def dummy_sweep(comm, view, k: int, t_end: float,
                fractions: tuple[float, ...] = DUMMY_FRACTIONS, runs: int = DUMMY_RUNS) -> dict:
    """t_est against t_dummy = each of `fractions` x t_end (Algorithm 2.3.3, ranks 0 and 1 of
    `comm`: `points`, (t_dummy, t_est) in seconds, each the median of `runs` runs of k / 4
    round trips); beyond the knee t_est = (t_send + t_dummy + t_recv) / 2, so the knee
    t_idle = 2 t_end - (t_send + t_recv) comes from the rising points' intercept. The runs
    go round the fractions (each round one run of each): a stretch of time when the
    machine's other work slows the pair falls on one run of many points, which their
    medians drop, not on every run of a few neighbouring points (a step in the curve).
    `least`: each point's fastest run (the paper's figure: section 2.4 took the minimum of
    1000 measurements "to reduce the overhead due to network contention from other
    programs")."""
    got: list[list[float]] = [[] for _ in fractions]
    for _ in range(runs):
        for i, f in enumerate(fractions):
            got[i].append(pingpong(comm, view, max(3, k // 4), f * t_end))
    points = [(f * t_end, statistics.median(ts)) for f, ts in zip(fractions, got, strict=True)]
    least = [(f * t_end, min(ts)) for f, ts in zip(fractions, got, strict=True)]
    rising = [(d, t) for d, t in points if t > 1.25 * t_end and d > 0]
    if not rising:
        return {"m": len(view), "points": points, "least": least, "t_idle_s": None}
    half_sum = statistics.median(t - d / 2 for d, t in rising)  # (t_send + t_recv) / 2
    t_idle = max(t_end, 2 * t_end - 2 * half_sum)
    return {"m": len(view), "points": points, "least": least, "t_idle_s": t_idle}


def derive(meas: dict) -> dict:
    """t_net, t_send, t_recv per size where the dummy loop ran, and every fitted line."""
    sizes, holds, ends = meas["sizes"], meas["t_hold_s"], meas["t_end_s"]
    fits = {"t_hold": fit_line(sizes, holds, relative=True),
            "t_end": fit_line(sizes, ends, relative=True)}
    rows = []
    for d in meas["dummy"]:
        if d["t_idle_s"] is None:
            continue
        i = sizes.index(d["m"])
        t_send = holds[i]  # the paper's assumption: t_send = t_hold
        t_net = max(0.0, d["t_idle_s"] - ends[i])
        rows.append({"m": d["m"], "t_send_s": t_send, "t_net_s": t_net,
                     "t_recv_s": max(0.0, ends[i] - t_send - t_net)})
    if rows:
        ms = [r["m"] for r in rows]
        for key in ("t_send", "t_net", "t_recv"):
            fits[key] = fit_line(ms, [r[f"{key}_s"] for r in rows], relative=True)
    return {"system": rows, "fits": {k: {"start_s": a, "per_byte_s": b}
                                     for k, (a, b) in fits.items()}}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.params")
    ap.add_argument("--sizes", default=DEFAULT_SIZES)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--dummy-max", type=int, default=65536,
                    help="run the dummy-loop sweep for sizes up to this many bytes")
    ap.add_argument("--dummy-fractions", default=",".join(map(str, DUMMY_FRACTIONS)),
                    help="the dummy loop's lengths, in units of t_end, comma-separated")
    ap.add_argument("--dummy-runs", type=int, default=DUMMY_RUNS,
                    help="runs of k / 4 round trips a dummy-loop point, their median taken")
    ap.add_argument("--pin-pair", action="store_true",
                    help="rank 0 and the partner each on a core of their own (the first two "
                         "CPUs they may use) while they time PingPong and the dummy loop")
    ap.add_argument("--budget-bytes", type=int, default=8 << 20,
                    help="bytes per timed run of each size (messages = this / size, 3 to "
                         "200): less on slow links")
    ap.add_argument("--hold-sends", type=int, default=None,
                    help="messages rank 0 sends back to back for t_hold, to the other ranks "
                         "in turn (default: one to each other rank)")
    ap.add_argument("--send-order", choices=SEND_ORDERS, default=DEFAULT_SEND_ORDER,
                    help="how those sends follow each other (as the trees' option)")
    ap.add_argument("--partner", type=int, default=1,
                    help="the rank that ping-pongs with rank 0 for t_end (default 1): one at "
                         "the hop count the broadcast's messages travel")
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.params", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    if args.hold_sends is not None and args.hold_sends < 1:
        ap.error("--hold-sends must be at least 1")
    if args.partner < 1:
        ap.error("--partner must be a rank of 1 or more")
    try:
        fractions = tuple(float(f) for f in args.dummy_fractions.split(","))
    except ValueError:
        ap.error(f"--dummy-fractions: not numbers: {args.dummy_fractions!r}")
    if any(not 0 <= f <= 100 for f in fractions):
        ap.error("--dummy-fractions: each must be in 0..100 (units of t_end)")
    if args.dummy_runs < 1:
        ap.error("--dummy-runs must be at least 1")
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    if comm.Get_size() < 2:
        print("collectives.programs.params needs at least 2 ranks", file=sys.stderr)
        return 2
    if args.partner >= comm.Get_size():
        print(f"collectives.programs.params: --partner {args.partner} is not a rank of "
              f"{comm.Get_size()}", file=sys.stderr)
        return 2
    meas = measure(comm, [int(s) for s in args.sizes.split(",")], args.repeats,
                   args.dummy_max, args.budget_bytes, args.hold_sends, args.send_order,
                   args.partner, fractions, args.dummy_runs, args.pin_pair)
    if comm.Get_rank() == 0:
        print(json.dumps({**meas, **derive(meas)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
