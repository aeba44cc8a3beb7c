"""`mcastlab algorithms`: every broadcast, barrier and allgather of the registry with its
family, paper, options and their defaults, and its names in MPICH, Open MPI and SimGrid
(collectives.catalog says it all; this prints it). No root, no network."""

from __future__ import annotations

import argparse
import json

from collectives.algorithms import ELSEWHERE, FAMILIES, LIBRARIES, Algorithm
from collectives.catalog import COLLECTIVES, entry, known_as, lookup, options, table

from ..errors import UsageError

LIBRARY_TITLES = {"mpich": "MPICH", "openmpi": "Open MPI", "simgrid": "SimGrid"}
OPTIONS_WIDTH = 50  # the options column wraps at this width
CLOSEST = "~"  # before a name in another library that is only the closest there is


def elsewhere(alg: Algorithm, library: str) -> str:
    """Its name in `library` for a table's cell: '~name' when only the closest, '-' if none."""
    e = ELSEWHERE.get((alg.collective, alg.name), {}).get(library)
    return "-" if e is None else ("" if e.same else CLOSEST) + e.name


def columns(header: list[str], rows: list[list[str]]) -> str:
    """Left-aligned columns, the last one free to run long."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]

    def line(r: list[str]) -> str:
        return "  ".join([*(c.ljust(w) for c, w in zip(r, widths, strict=False)), r[-1]]).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths] + ["-" * 7]),
                      *(line(r) for r in rows)])


def wrap(items: list[str], width: int = OPTIONS_WIDTH) -> list[str]:
    """`items` joined by commas into lines of about `width`, never breaking one."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + 2 + len(item) <= width:
            lines[-1] += ", " + item
        else:
            if lines:
                lines[-1] += ","
            lines.append(item)
    return lines


def overview(algs: list[Algorithm]) -> str:
    """One row per algorithm; its options one per line below the first."""
    rows: list[list[str]] = []
    for a in algs:
        opts = wrap([f"{o.name}={o.short}" for o in options(a)]) or ["-"]
        rows.append([a.name, a.collective, a.family, a.paper or "-",
                     *(elsewhere(a, lib) for lib in LIBRARIES), opts[0]])
        rows.extend([""] * (4 + len(LIBRARIES)) + [o] for o in opts[1:])
    return columns(["name", "collective", "family", "paper",
                    *(LIBRARY_TITLES[lib] for lib in LIBRARIES), "options (default)"], rows)


def detail(a: Algorithm) -> list[str]:
    """Everything of one algorithm, a line a field."""
    lines = [f"{a.name} ({a.collective}): {a.summary}",
             f"  family    {a.family}: {FAMILIES[a.family]}",
             f"  paper     {a.paper or '- (not from the five papers)'}"
             + (" (docs/references.md)" if a.paper else "")]
    opts = options(a)
    lines.append("  options" + ("   none" if not opts else ""))
    lines.extend(f"    {o.name} = {o.shown}: {o.meaning}" for o in opts)
    there = ELSEWHERE.get((a.collective, a.name), {})
    for lib in LIBRARIES:
        e = there.get(lib)
        text = "-" if e is None else (e.name + ("" if e.same else " (closest)")
                                      + (f": {e.note}" if e.note else ""))
        lines.append(f"  {LIBRARY_TITLES[lib]:<9} {text}")
    return lines


def _as(name: str, a: Algorithm) -> list[str]:
    """A line saying whose name `name` is, where it is another library's for `a`."""
    return [f"{name}: {LIBRARY_TITLES[f.library]}'s "
            f"{WHAT[f.what].replace('<COLL>', a.collective.upper())} for ours, {a.name}"
            + ("" if f.elsewhere.same else " (only the closest there is)")
            for f in known_as(name, a)]


WHAT = {"value": "value of MPIR_CVAR_<COLL>_INTRA_ALGORITHM", "function": "function",
        "name": "name"}  # collectives.algorithms.Foreign.what
# where the options are given, alike at every entry point
ENTRY_POINTS = ("Options are taken alike by collectives.bcast/barrier/allgather (keywords), "
                "collectives.Intracomm(**options) and\n  python -m collectives.use / mcastlab "
                "mpirun (-o NAME=VALUE): there one set serves the three, each given those\n  "
                "listed here for it. Unnamed, a collective is MPICH's own everywhere "
                "(docs/dropin.md).")


def cmd_algorithms(args: argparse.Namespace) -> int:
    try:
        algs = lookup(args.name, args.collective) if args.name else table(args.collective)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({"libraries": LIBRARIES, "algorithms": [entry(a) for a in algs]},
                         indent=1))
        return 0
    if args.name:
        print("\n\n".join("\n".join(_as(args.name, a) + detail(a)) for a in algs))
        return 0
    print(overview(algs))
    print(f"\n{CLOSEST}name: only the closest algorithm there; -: none. One in full: "
          "mcastlab algorithms NAME. The names select, in")
    print("\n".join(f"  {text}" for text in LIBRARIES.values()))
    print(ENTRY_POINTS)
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("algorithms", help="every broadcast, barrier and allgather: family, paper, "
                                          "options and defaults, MPICH/Open MPI/SimGrid names")
    p.add_argument("name", nargs="?", metavar="NAME",
                   help="show this one in full: our name, or MPICH's (CVAR value or MPIR_ "
                        "function), Open MPI's or SimGrid's, e.g. flattree, binomial_tree, "
                        "MPIR_Bcast_intra_binomial")
    p.add_argument("--collective", choices=COLLECTIVES,
                   help="only the broadcasts, the barriers or the allgathers (default all)")
    p.add_argument("--json", action="store_true", help="everything, as JSON")
    p.set_defaults(func=cmd_algorithms)
