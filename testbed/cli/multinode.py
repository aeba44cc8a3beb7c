"""`mcastlab multinode`: Tseng2001's multi-node multicast measured on an emulated torus or
mesh, as `mcastlab bcast` measures one broadcast: many sources at once, each to its own
destination set (drawn by the hot-spot model, or given with --sets), by U-torus trees (U-mesh
on a mesh) used directly or by the partitioned scheme (random or balanced choice of DDN). The
job runner is the benchmarks' (testbed.experiments.multinode_run.measured_rows), so the
command, `mcastlab bench --suite multinode` and `mcastlab reproduce` measure alike; every
row carries the fidelity monitor's verdict over its own window and the link rate."""

from __future__ import annotations

import argparse
import json
import tomllib
from pathlib import Path
from typing import Any

from collectives.partitioning import (
    FORM,
    TITLES,
    Grid,
    Pairs,
    parse_sets,
    scheme_names,
    sets_of_mapping,
    sets_text,
)
from collectives.waiting import DEFAULT as DEFAULT_WAIT
from collectives.waiting import MODES as WAIT_MODES

from ..emulation.network import Emulation
from ..errors import RunFailed, UsageError
from ..experiments.multinode_run import DESTS, DILATION, SEED, measured_rows
from ..experiments.multinode_spec import check_plans, grid_of, schemes_of
from ..results import text_table
from .arguments import (
    BW_HELP,
    NON_NEGATIVE,
    POSITIVE,
    add_link_options,
    add_out,
    network,
    progress,
    rate,
    seconds,
    topology,
)
from .values import SIZE_SPELLINGS, SIZES, share

TOPO = "torus:rows=4,cols=4"
SOURCES, FACTOR, SIZE, REPETITIONS = 4, 0.25, 65536, 8
DRAW = ("sources", "dests", "factor")  # what --sets replaces


def cmd_multinode(args: argparse.Namespace) -> int:
    grid = grid_of(args.topo, "--topo")
    names = scheme_names(grid)
    words = args.scheme.split(",") if args.scheme is not None else list(names.values())
    schemes = schemes_of((w.strip() for w in words if w.strip()), grid, "--scheme")
    sizes: list[int] = args.size
    sets = given_sets(args, grid)
    sources = len(sets) if sets is not None else args.sources or SOURCES
    dests = None if sets is not None else args.dests or DESTS
    factor = None if sets is not None else FACTOR if args.factor is None else args.factor
    check_plans(grid, schemes, sources, dests or 0, factor or 0.0, args.dilation, args.seed,
                sets)
    topo, link = network(args)
    with Emulation(topo, progress=progress) as emu:
        if args.loss:
            emu.set_loss(args.loss)
        what = f"{len(sets)} given sets" if sets is not None else \
            f"{sources} sources x {dests} destinations"
        progress(f"multi-node multicast on {emu.topo.name}: {what}, "
                 f"{', '.join(names[s] for s in schemes)}")
        rows, res = measured_rows(emu, sources=sources, sizes=sizes, schemes=schemes,
                                  factors=factor, reps=args.repetitions, seed=args.seed,
                                  torus=(grid.rows, grid.cols), dilation=args.dilation,
                                  dests=dests, timeout=args.timeout, wait=args.wait,
                                  kind=grid.kind, sets=sets)
        name = emu.topo.name
    if not rows:
        tail = " ".join((res.stderr or res.stdout or "no output").split())[-400:]
        raise RunFailed(f"multinode_bench printed no result: {tail}")
    correct = all(r["correct"] for r in rows)
    used = rows[0].get("sets")
    if args.json:
        print(json.dumps({"topology": name, grid.kind: [grid.rows, grid.cols],
                          "sources": sources, "dests": dests, "factor": factor,
                          "sets": used, "given": sets is not None,
                          "dilation": args.dilation, "seed": args.seed,
                          "repetitions": args.repetitions, "wait": args.wait,
                          "link_rate": link.to_dict(), "rows": rows}))
        return 0 if correct else 4
    workload = (f"{len(sets)} sets given" if sets is not None else
                f"{sources} sources x {dests} destinations, hot-spot factor p {factor:g}")
    print(f"multi-node multicast (Tseng2001) on {name}, one rank per node: {workload}, "
          f"dilation {args.dilation}, draw {args.seed}; medians of {args.repetitions} runs")
    if used:
        print(f"  sets (source:destinations): {sets_text(used)}")
    print(text_table(["scheme", "bytes", "median ms", "min ms", "max ms", "steps",
                      "max contention", "correct", "fidelity"],
                     [[r["scheme"], r["size"], f"{r['t_s']['median'] * 1e3:.2f}",
                       f"{r['t_s']['min'] * 1e3:.2f}", f"{r['t_s']['max'] * 1e3:.2f}",
                       r["steps"], r["max_contention"], "yes" if r["correct"] else "NO",
                       "; ".join(r["fidelity"]["flags"]) or "kept up"] for r in rows]))
    for line in gains(rows, names["direct"]):
        print(line)
    if any(r["fidelity"]["flags"] for r in rows):
        print("  a flagged row is not a result: the emulator did not keep up")
    print(f"  links at {link.text()}")
    return 0 if correct else 4


def given_sets(args: argparse.Namespace, grid: Grid) -> Pairs | None:
    """--sets, as text or a TOML file, checked; None for the hot-spot draw. It replaces the
    draw, so --sources, --dests and --factor beside it are refused rather than ignored."""
    if args.sets is None:
        return None
    drawn = [f"--{k}" for k in DRAW if getattr(args, k) is not None]
    if drawn:
        raise UsageError(f"--sets gives the sets; {', '.join(drawn)} draw them: give one or "
                         "the other")
    try:
        if args.sets.strip().endswith(".toml"):
            return sets_of_mapping(_sets_table(Path(args.sets.strip())), grid)
        return parse_sets(args.sets, grid)
    except ValueError as exc:
        raise UsageError(f"--sets: {exc}") from None


def _sets_table(path: Path) -> dict[str, Any]:
    """The [sets] table of a TOML file, source = [destinations, ...]."""
    try:
        raw = tomllib.loads(path.read_text())
    except OSError as exc:
        raise UsageError(f"--sets: cannot read {path}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"--sets: {path} is not TOML: {exc}") from None
    table = raw.get("sets")
    if set(raw) != {"sets"} or not isinstance(table, dict):
        raise UsageError(f"--sets: {path} holds one table, [sets], with a line per source: "
                         'h0 = ["h1", "h2"] or 3 = [4, 6, 7]')
    return table


def gains(rows: list[dict[str, Any]], direct: str = "u-torus") -> list[str]:
    """The direct scheme (U-torus, or U-mesh on a mesh) over the best partitioned scheme, per
    size (> 1: partitioning faster)."""
    label = TITLES.get(direct, direct)
    out = []
    for size in dict.fromkeys(r["size"] for r in rows):
        t = {r["scheme"]: r["t_s"]["median"] for r in rows if r["size"] == size}
        parts = [v for k, v in t.items() if k != direct]
        first = t.get(direct)
        if first and parts:
            out.append(f"  {size} B: {label} / best partitioned {first / min(parts):.2f} "
                       "(> 1: partitioning faster)")
    return out


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("multinode", help="Tseng2001's multi-node multicast on an emulated "
                                         "torus or mesh: U-torus (U-mesh) against the "
                                         "partitioned scheme")
    p.add_argument("--topo", default=TOPO, type=topology,
                   help="a torus or mesh, torus:rows=R,cols=C[,bw=...] or mesh:rows=R,cols=C "
                        "(default %(default)s); one rank per node; without bw= at this "
                        "machine's calibrated rate")
    p.add_argument("--bw", type=rate, help=BW_HELP)
    add_link_options(p)
    p.add_argument("--sources", type=POSITIVE,
                   help=f"sources multicasting at once, drawn (default {SOURCES})")
    p.add_argument("--dests", type=POSITIVE,
                   help=f"destinations of each source, drawn (default {DESTS})")
    p.add_argument("--factor", type=share, metavar="P",
                   help="hot-spot factor: the share of every destination set common to all "
                        f"(default {FACTOR})")
    p.add_argument("--sets", metavar="TEXT|FILE.toml",
                   help=f"the sets by hand in place of the draw: {FORM}, or a TOML file "
                        'with a [sets] table, h0 = ["h1", "h2"]')
    p.add_argument("--dilation", type=POSITIVE, default=DILATION,
                   help="the partition's dilation h: DDNs of links h hops long, h x h blocks; "
                        "it divides both sides (default %(default)s)")
    p.add_argument("--size", "--sizes", default=str(SIZE), metavar="B,B,...", type=SIZES,
                   help=f"message sizes of every multicast, {SIZE_SPELLINGS} (default "
                        "%(default)s)")
    p.add_argument("--scheme", metavar="S,S,...",
                   help="u-torus (direct; u-mesh on a mesh), partitioned-random, "
                        "partitioned-balanced (default: all three)")
    p.add_argument("--repetitions", type=POSITIVE, default=REPETITIONS, metavar="N",
                   help="measured runs of every scheme and size (default %(default)s)")
    p.add_argument("--seed", type=NON_NEGATIVE, default=SEED,
                   help="draw of the sources and destination sets, and of the random DDN "
                        "choice (default %(default)s)")
    p.add_argument("--wait", choices=WAIT_MODES, default=DEFAULT_WAIT,
                   help="how ranks wait for messages (default %(default)s)")
    p.add_argument("--timeout", type=seconds, default=600.0,
                   help="seconds for the whole job (default %(default)s)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    add_out(p)
    p.set_defaults(func=cmd_multinode)
