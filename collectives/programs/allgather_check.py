"""Check that allgathers deliver every rank's block to every rank (runs under mpiexec):
every algorithm of the registry's allgathers at several block sizes, each rank's block its
own random bytes, once with a send buffer and once in place; and a receive buffer that is
not p blocks refused on every rank with the executor's one message, before any message.
Prints one JSON line from rank 0 and exits non-zero on any wrong byte.

    mpiexec -n 5 python -m collectives.programs.allgather_check --sizes 0,1,1000
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import zlib
from typing import Any

from ..algorithms import ALLGATHERS
from ..executor import allgather
from . import command

FORMS = ("sent", "in place")


def block(algorithm: str, size: int, rank: int, form: str) -> bytes:
    """Rank `rank`'s block of `size` bytes in one case: its own bytes, none like another's."""
    seed = zlib.crc32(f"{algorithm}/{size}/{rank}/{form}".encode())
    return random.Random(seed).randbytes(size)


def wrong_blocks(got: bytes, algorithm: str, size: int, ranks: int, form: str) -> list[int]:
    """The ranks whose block in `got` (every rank's, in rank order) is not theirs."""
    return [r for r in range(ranks)
            if got[r * size:(r + 1) * size] != block(algorithm, size, r, form)]


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="collectives.programs.allgather_check")
    ap.add_argument("--sizes", default="0,1,1000,65536,1048576", help="block sizes, bytes")
    ap.add_argument("--algorithms", default=",".join(ALLGATHERS))
    return ap


def argv(**values: Any) -> list[str]:
    """The python arguments that run this program (its parser reads them back)."""
    return command("collectives.programs.allgather_check", parser(), **values)


def main(args_in: list[str] | None = None) -> int:
    args = parser().parse_args(args_in)

    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    p, rank = comm.Get_size(), comm.Get_rank()
    cases = [(a, int(n), form) for a in args.algorithms.split(",")
             for n in args.sizes.split(",") for form in FORMS]
    wrong: list[list[int]] = []  # per case, the blocks this rank got wrong
    took: list[float] = []
    for algorithm, n, form in cases:
        mine = block(algorithm, n, rank, form)
        out = bytearray(p * n)
        t0 = time.perf_counter()
        if form == "sent":
            allgather(mine, out, comm, algorithm)
        else:
            out[rank * n:(rank + 1) * n] = mine
            allgather(None, out, comm, algorithm)
        took.append(time.perf_counter() - t0)
        wrong.append(wrong_blocks(bytes(out), algorithm, n, p, form))
    refused = []  # a receive buffer one byte short of p blocks: the message, on every rank
    for algorithm in args.algorithms.split(","):
        try:
            allgather(bytes(4), bytearray(4 * p - 1), comm, algorithm)
            refused.append("")
        except ValueError as e:
            refused.append(str(e))
    every = comm.gather((wrong, took, refused), root=0)
    bad = 0
    if rank == 0:
        assert every is not None  # gathered at rank 0
        errors = [{"algorithm": a, "size": n, "form": form, "rank": r, "wrong": w}
                  for r, (ws, _t, _f) in enumerate(every)
                  for (a, n, form), w in zip(cases, ws, strict=True) if w]
        bad = len(errors)
        for error in errors:
            print(json.dumps({"error": "wrong bytes", **error}), flush=True)
        print(json.dumps({
            "size": p, "allgathers": len(cases), "all_correct": not errors,
            "cases": [f"{a}/{n}/{form}" for a, n, form in cases],
            "seconds": [max(ts) for ts in zip(*(t for _w, t, _f in every), strict=True)],
            "refused": sorted({m for _w, _t, ms in every for m in ms})}), flush=True)
    return 1 if comm.allreduce(bad) else 0


if __name__ == "__main__":
    sys.exit(main())
