"""Run an unmodified mpi4py program with our broadcasts, barriers and allgathers on
``MPI.COMM_WORLD``:

    mpiexec -n 4 python -m mpi4py -m collectives.use --bcast nack --barrier mcast -- prog.py ARGS
    mcastlab mpirun -- -m collectives.use --bcast opt-tree -o t_hold=2e-5 -o t_end=5e-5 -- prog.py
    mcastlab mpirun -- -m collectives.use --bcast opt-tree --report -- prog.py  # measured
    mcastlab mpirun -- -m collectives.use --allgather bruck -- prog.py

``MPI.COMM_WORLD`` becomes a ``collectives.Intracomm`` before the program starts, so its
``Bcast``/``bcast``/``Barrier``/``barrier``/``Allgather``/``Allgatherv``/``allgather`` and those of
communicators made from it (Dup, Split, ...) run the chosen algorithms (the allgather is
MPICH's own unless chosen). The program is a script (run as ``python prog.py``
would: its directory first on sys.path) or ``-m module``. Without ``--bcast``/``--barrier``/
``--allgather``/``-o`` the environment decides: MCASTLAB_BCAST, MCASTLAB_BARRIER,
MCASTLAB_ALLGATHER and MCASTLAB_OPTIONS (a JSON object), read when this module starts the
program; a collective named nowhere is MPICH's own (collectives.algorithms.DEFAULTS).
OPT-Tree, DYN-Tree and the other algorithms that take t_hold and t_end, given none, measure
them on first use (collectives.measured); ``--report`` lists what was measured.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import runpy
import sys
from typing import Any

from .algorithms import DEFAULT_ALLGATHER, DEFAULT_BARRIER, DEFAULT_BCAST

ENV_BCAST, ENV_BARRIER, ENV_OPTIONS = "MCASTLAB_BCAST", "MCASTLAB_BARRIER", "MCASTLAB_OPTIONS"
ENV_ALLGATHER = "MCASTLAB_ALLGATHER"
# unnamed, a collective is MPICH's own, as in collectives.bcast and Intracomm: a program's
# collectives change only where one is named (collectives.algorithms.DEFAULTS)
__all__ = ["DEFAULT_ALLGATHER", "DEFAULT_BARRIER", "DEFAULT_BCAST", "install", "main", "option",
           "parse"]


def option(text: str) -> tuple[str, Any]:
    """NAME=VALUE, the value read as JSON when it is JSON (2e-5, [4, 4], null), else text."""
    name, eq, value = text.partition("=")
    if not eq or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"an option is NAME=VALUE, got {text!r}")
    try:
        return name, json.loads(value)
    except ValueError:
        return name, value


def parse(argv: list[str]) -> tuple[argparse.Namespace, list[str]]:
    """(the choice, the program's command line: script or -m module, then its arguments)."""
    ap = argparse.ArgumentParser(
        prog="python -m collectives.use",
        description="run an mpi4py program with MPI.COMM_WORLD's broadcasts and barriers "
                    "by the algorithms of collectives.algorithms")
    ap.add_argument("--bcast", default=os.environ.get(ENV_BCAST, DEFAULT_BCAST),
                    help=f"broadcast algorithm (default ${ENV_BCAST} or {DEFAULT_BCAST}: "
                         "MPICH's own)")
    ap.add_argument("--barrier", default=os.environ.get(ENV_BARRIER, DEFAULT_BARRIER),
                    help=f"barrier algorithm (default ${ENV_BARRIER} or {DEFAULT_BARRIER}: "
                         "MPICH's own)")
    ap.add_argument("--allgather", default=os.environ.get(ENV_ALLGATHER, DEFAULT_ALLGATHER),
                    help=f"allgather algorithm (default ${ENV_ALLGATHER} or "
                         f"{DEFAULT_ALLGATHER}: MPICH's own)")
    ap.add_argument("-o", "--option", type=option, action="append", default=[],
                    metavar="NAME=VALUE", help="an option of the algorithms (repeatable; "
                    f"default ${ENV_OPTIONS}, a JSON object)")
    ap.add_argument("--report", action="store_true",
                    help="at exit, print one JSON line: how many broadcasts (and bytes), "
                         "barriers and allgathers this rank ran by which algorithm, and the "
                         "t_hold/t_end measured on first use")
    ap.add_argument("program", nargs=argparse.REMAINDER,
                    help="after '--': the script and its arguments, or -m MODULE ARGS")
    args = ap.parse_args(argv)
    prog = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not prog or prog[0] == "-m" and len(prog) < 2:
        ap.error("give the program after '--': a script, or -m MODULE")
    if not args.option and os.environ.get(ENV_OPTIONS):
        try:
            args.options = dict(json.loads(os.environ[ENV_OPTIONS]))
        except (ValueError, TypeError):
            ap.error(f"${ENV_OPTIONS} must be a JSON object, got {os.environ[ENV_OPTIONS]!r}")
    else:
        args.options = dict(args.option)
    return args, prog


def install(bcast: str, barrier: str, allgather: str = DEFAULT_ALLGATHER,
            **options: Any) -> None:
    """Make MPI.COMM_WORLD (and MPI.COMM_SELF, whose collectives move nothing) a
    collectives.Intracomm with this choice."""
    # collectives.intracomm imports mpi4py.MPI, which starts MPI: in ranks only
    from .intracomm import install as stand_in

    for name in ("COMM_WORLD", "COMM_SELF"):
        stand_in(name, bcast, barrier, allgather, **options)


def report() -> None:
    """One JSON line: this rank's broadcasts (and bytes), barriers and allgathers by
    algorithm, and the t_hold and t_end it measured on first use (collectives.measured; the
    same on every rank), one record per message size of the grid."""
    # collectives.intracomm imports mpi4py.MPI, which starts MPI: in ranks only
    from . import intracomm

    calls = {f"{kind} {name}": n for (kind, name), n in sorted(intracomm.CALLS.items())}
    print(json.dumps({"collectives.use": {"calls": calls, "bytes": dict(intracomm.BYTES),
                                          "measured": intracomm.MEASURED}}), flush=True)


def main(argv: list[str] | None = None) -> int:
    args, prog = parse(sys.argv[1:] if argv is None else argv)
    try:
        install(args.bcast, args.barrier, args.allgather, **args.options)
    except ValueError as e:
        print(f"collectives.use: {e}", file=sys.stderr)
        return 2
    if args.report:
        atexit.register(report)
    if prog[0] == "-m":
        sys.argv = [prog[1], *prog[2:]]
        runpy.run_module(prog[1], run_name="__main__", alter_sys=True)
    else:
        script = os.path.abspath(prog[0])
        if not os.path.isfile(script):
            print(f"collectives.use: no such program file {prog[0]}", file=sys.stderr)
            return 2
        sys.argv = list(prog)
        sys.path[0] = os.path.dirname(script)
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
