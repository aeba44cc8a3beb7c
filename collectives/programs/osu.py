"""osu_bcast, osu_allgather and osu_barrier of the OSU micro-benchmarks (OMB 7.4: their
layout, their method) with any broadcast, Allgather or barrier of the registry (runs under
mpiexec; rank 0 prints).

The method of OMB 7.4's osu_bcast.c: for size = min, 2 min, ... <= max (default 1 to
1 MiB; --sizes, not OMB's: the sizes of a list instead), iterations + skip rounds
(1000 + 100 while size <= 8192, then 100 + 10 for the rest; -i sets both counts of
iterations, -x both of skip); a round reads MPI_Wtime, broadcasts
`size` bytes (MPI_CHAR, all 1) from rank 0, reads MPI_Wtime again, and enters an untimed
MPI barrier; the rounds after the first `skip` are summed. One more barrier after the loop;
each rank's latency = sum * 1e6 / iterations; rank 0 prints avg (the sum over the ranks /
ranks), min and max of them. osu_allgather.c is osu_bcast.c's loop around MPI_Allgather of
`size` bytes from every rank (MPI_CHAR, all 1) into a buffer of size x ranks, its timed
call followed by a barrier each round. osu_barrier.c times the barrier itself, 1000 + 100 rounds,
with no barrier between rounds. The untimed barriers here are MPICH's (the registry's
`mpich`), waited for as every wait of the project (collectives.waiting); the timed call is
`collectives.bcast` / `collectives.barrier` with the algorithm asked for.

Rank 0 prints the OSU lines, or with --records one JSON object a line instead (each with
the OSU lines it stands for, and the wall-clock window of each size's measured rounds:
testbed.fidelity.flags.Monitor judges each row by it).

    mpiexec -n 4 python -m collectives.programs.osu bcast --algorithm binomial -m 1:1024 -f
    mpiexec -n 4 python -m collectives.programs.osu barrier --algorithm mcast -i 100
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import mpi4py

from .. import waiting
from ..algorithms import NATIVE, allgather_algorithm, barrier_algorithm, bcast_algorithm
from ..executor import allgather, barrier, bcast
from ..timing import sched_self, sched_since, wait_per_turn
from . import command

VERSION = "7.4"  # OMB 7.4 (2024): the newest sources at hand; 7.2's layout is the same
BENCHMARKS = {"bcast": "Broadcast", "allgather": "Allgather", "barrier": "Barrier"}
# OMB's osu_util.h and configure.ac (FIELD_WIDTH 18, FLOAT_PRECISION 2 there)
MIN_MESSAGE_SIZE, MAX_MSG_SIZE_COLL, LARGE_MESSAGE_SIZE = 1, 1 << 20, 8192
COLL_LOOP_SMALL, COLL_SKIP_SMALL, COLL_LOOP_LARGE, COLL_SKIP_LARGE = 1000, 100, 100, 10
FIELD_WIDTH, FLOAT_PRECISION = 18, 2
LOOKUP = {"bcast": bcast_algorithm, "allgather": allgather_algorithm,
          "barrier": barrier_algorithm}  # each benchmark's registry


def preamble(bench: str) -> list[str]:
    """The lines before the header: print_preamble's blank line and title, and the datatype
    line of the benchmarks that move data."""
    lines = ["", f"# OSU MPI {BENCHMARKS[bench]} Latency Test v{VERSION}"]
    return lines + (["# Datatype: MPI_CHAR."] if bench != "barrier" else [])


def header(bench: str, full: bool = False) -> str:
    """print_only_header: a size column for osu_bcast and osu_allgather, none for
    osu_barrier; -f adds min, max and iterations."""
    text = (f"{'# Size':<10}{'Avg Latency(us)':>{FIELD_WIDTH}}" if bench != "barrier"
            else "# Avg Latency(us)")
    if full:
        text += (f"{'Min Latency(us)':>{FIELD_WIDTH}}{'Max Latency(us)':>{FIELD_WIDTH}}"
                 f"{'Iterations':>12}")
    return text


def row(size: int | None, avg_us: float, min_us: float, max_us: float, iterations: int,
        full: bool = False) -> str:
    """print_stats: one row (`size` None: osu_barrier's, without a size column)."""
    p = FLOAT_PRECISION
    text = (f"{size:<10d}{avg_us:{FIELD_WIDTH}.{p}f}" if size is not None
            else f"{avg_us:17.{p}f}")
    if full:
        text += f"{min_us:{FIELD_WIDTH}.{p}f}{max_us:{FIELD_WIDTH}.{p}f}{iterations:12d}"
    return text


def parse_sizes(text: str) -> tuple[int, int]:
    """-m as OMB reads it: MAX, MIN:MAX, MIN: or :MAX (the other bound at its default);
    ValueError unless 1 <= MIN <= MAX."""
    parts = text.split(":")
    if len(parts) > 2 or not any(p.strip() for p in parts):
        raise ValueError(f"-m takes MAX, MIN:MAX, MIN: or :MAX, got {text!r}")
    try:
        values = [int(p) if p.strip() else None for p in parts]
    except ValueError:
        raise ValueError(f"-m takes whole numbers of bytes, got {text!r}") from None
    lo, hi = values if len(values) == 2 else (None, values[0])
    lo = MIN_MESSAGE_SIZE if lo is None else lo
    hi = MAX_MSG_SIZE_COLL if hi is None else hi
    if lo <= 0:
        raise ValueError(f"-m {text}: the smallest size must be at least 1 byte, got {lo}")
    if hi < lo:
        raise ValueError(f"-m {text}: the largest size {hi} is below the smallest {lo}")
    return lo, hi


def plan(lo: int = MIN_MESSAGE_SIZE, hi: int = MAX_MSG_SIZE_COLL,
         iterations: int | None = None, skip: int | None = None) -> list[tuple[int, int, int]]:
    """(size, iterations, skip) of every row: sizes doubling from lo up to hi, each with
    the counts `listed` gives it (osu_bcast.c's)."""
    out, size = [], lo
    while size <= hi:
        out.append(size)
        size *= 2
    return listed(out, iterations, skip)


def listed(sizes: Sequence[int], iterations: int | None = None,
           skip: int | None = None) -> list[tuple[int, int, int]]:
    """(size, iterations, skip) of each of `sizes`, in their order (--sizes: a list in
    place of -m's doubling): above LARGE_MESSAGE_SIZE the large counts, as in osu_bcast.c.
    `iterations` / `skip` (-i / -x) replace the small and the large count."""
    small = (iterations or COLL_LOOP_SMALL, COLL_SKIP_SMALL if skip is None else skip)
    large = (iterations or COLL_LOOP_LARGE, COLL_SKIP_LARGE if skip is None else skip)
    return [(size, *(large if size > LARGE_MESSAGE_SIZE else small)) for size in sizes]


def parse_list(text: str) -> list[int]:
    """--sizes: whole numbers of bytes >= 1, comma-separated, each once; ValueError else."""
    try:
        sizes = [int(p) for p in text.split(",")]
    except ValueError:
        raise ValueError(f"--sizes takes whole numbers of bytes, comma-separated, got "
                         f"{text!r}") from None
    if min(sizes) < MIN_MESSAGE_SIZE or len(set(sizes)) != len(sizes):
        raise ValueError(f"--sizes: each size at least 1 byte and given once, got {text!r}")
    return sizes


def barrier_plan(iterations: int | None = None, skip: int | None = None) -> tuple[int, int]:
    """osu_barrier's (iterations, skip)."""
    return iterations or COLL_LOOP_SMALL, COLL_SKIP_SMALL if skip is None else skip


def _set_up(comm: Any, family: str) -> None:
    """Make what the timed calls would otherwise make on first use: MPI's connections
    (waiting.connect_all) and a multicast or range channel (joined collectively)."""
    waiting.connect_all(comm)
    if family == "multicast":
        # only in this branch (a rank's start-up: collectives.programs)
        from ..ipmc.channel import channel_for

        channel_for(comm)
    elif family == "range":
        # only in this branch (a rank's start-up: collectives.programs)
        from ..range_trees.channel import range_channel_for

        range_channel_for(comm)


def _rounds(comm: Any, call: Any, iterations: int, skip: int, separated: bool) -> dict:
    """osu_*.c's loop around `call`; with `separated` an untimed barrier after each round.
    Rank 0 gets the row's numbers (µs), the wall-clock window of the measured rounds and
    how long the ranks waited for a core each turn meanwhile; the others None."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    timer, began, sched0 = 0.0, None, sched_self()
    for i in range(iterations + skip):
        if i == skip:
            began, sched0 = time.time(), sched_self()
        t_start = MPI.Wtime()
        call()
        t_stop = MPI.Wtime()
        if separated:
            barrier(comm, NATIVE)
        if i >= skip:
            timer += t_stop - t_start
    barrier(comm, NATIVE)
    ended = time.time()
    latency = timer * 1e6 / iterations
    low = comm.reduce(latency, op=MPI.MIN, root=0)
    high = comm.reduce(latency, op=MPI.MAX, root=0)
    total = comm.reduce(latency, op=MPI.SUM, root=0)
    waits = comm.gather(sched_since(sched0), root=0)
    if comm.Get_rank() != 0:
        return {}
    return {"avg_us": total / comm.Get_size(), "min_us": low, "max_us": high,
            "iterations": iterations, "skip": skip, "window": [began or ended, ended],
            "wait_per_turn_s": wait_per_turn(waits)}


def _versions() -> dict[str, str]:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    return {"mpi4py": mpi4py.__version__,
            "mpi_library": " ".join(MPI.Get_library_version().splitlines()[0].split())}


def _emit(records: bool, lines: list[str], **record: Any) -> None:
    """Rank 0's output: the OSU lines, or (records) one JSON object carrying them."""
    print(json.dumps({**record, "lines": lines}) if records else "\n".join(lines),
          flush=True)


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.osu")
    ap.add_argument("bench", choices=tuple(BENCHMARKS))
    ap.add_argument("--algorithm", default=NATIVE,
                    help="a broadcast, Allgather or barrier of collectives.algorithms (default "
                         "mpich)")
    ap.add_argument("-m", "--message-size", default=None, metavar="[MIN:]MAX",
                    help="bcast, allgather: sizes (allgather: per rank) from MIN to MAX bytes, "
                         "doubling (default 1:1048576)")
    ap.add_argument("--sizes", metavar="B,B,...",
                    help="bcast, allgather: these sizes in bytes, in this order, in place of "
                         "-m's doubling")
    ap.add_argument("-i", "--iterations", type=int, help="measured rounds per size")
    ap.add_argument("-x", "--warmup", type=int, help="unmeasured rounds first")
    ap.add_argument("-f", "--full", action="store_true", help="min, max and iterations too")
    ap.add_argument("--params", help="the algorithm's parameters, a JSON object (nodes=, "
                                     "mesh=, fattree=, ...)")
    ap.add_argument("--timing", help="bcast: per size, more parameters (t_hold, t_end), a "
                                     "JSON object keyed by the size")
    ap.add_argument("--records", action="store_true",
                    help="JSON objects (with the OSU lines and each row's window) instead")
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.osu", parser(), **values)


def main(argv: list[str] | None = None) -> int:
    ap = parser()
    args = ap.parse_args(argv)
    try:
        lo, hi = parse_sizes(args.message_size or f"{MIN_MESSAGE_SIZE}:{MAX_MSG_SIZE_COLL}")
        if (args.iterations is not None and args.iterations < 1) or \
                (args.warmup is not None and args.warmup < 0):
            raise ValueError("-i must be >= 1 and -x >= 0")
        if args.bench == "barrier" and (args.message_size, args.sizes) != (None, None):
            raise ValueError("-m, --sizes: osu_barrier has no message sizes")
        if args.message_size is not None and args.sizes is not None:
            raise ValueError("-m or --sizes, not both")
        sizes = parse_list(args.sizes) if args.sizes is not None else None
        record = LOOKUP[args.bench](args.algorithm)
    except ValueError as exc:
        ap.error(str(exc))
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() < 2:
        if rank == 0:
            print("This test requires at least two processes", file=sys.stderr)
        return 1
    params = json.loads(args.params) if args.params else {}
    timing = json.loads(args.timing) if args.timing else {}
    _set_up(comm, record.family)
    if rank == 0:
        _emit(args.records, [*preamble(args.bench), header(args.bench, args.full)],
              record="head", benchmark=f"osu_{args.bench}", osu_version=VERSION,
              algorithm=args.algorithm, params=params, ranks=comm.Get_size(), **_versions())
    rounds: Sequence[tuple[int | None, int, int]]  # (size, iterations, skip); None: barrier
    if args.bench == "barrier":
        rounds = [(None, *barrier_plan(args.iterations, args.warmup))]
    elif sizes is not None:
        rounds = listed(sizes, args.iterations, args.warmup)
    else:
        rounds = plan(lo, hi, args.iterations, args.warmup)
    for size, iterations, skip in rounds:
        if size is None:
            call = functools.partial(barrier, comm, args.algorithm, **params)
        elif args.bench == "allgather":  # osu_allgather's: send all 1, receive size x ranks
            call = functools.partial(allgather, bytearray(b"\x01") * size,
                                     bytearray(size * comm.Get_size()), comm, args.algorithm,
                                     **params)
        else:  # a bytearray of `size` bytes, all 1 (osu_bcast's set_buffer)
            call = functools.partial(bcast, bytearray(b"\x01") * size, root=0, comm=comm,
                                     algorithm=args.algorithm,
                                     **{**params, **timing.get(str(size), {})})
        res = _rounds(comm, call, iterations, skip, separated=size is not None)
        if rank == 0:
            line = row(size, res["avg_us"], res["min_us"], res["max_us"], iterations, args.full)
            _emit(args.records, [line], record="row", size=size, **res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
