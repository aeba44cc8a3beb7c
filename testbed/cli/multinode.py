"""`mcastlab multinode`: Tseng2001's multi-node multicast measured on an emulated torus, as
`mcastlab bcast` measures one broadcast: many sources at once, each to its own destination
set, by U-torus trees used directly or by the partitioned scheme (random or balanced choice
of DDN). The job runner is the benchmarks' (testbed.experiments.multinode_run.measured_rows), so the
command, `mcastlab bench --suite multinode` and `mcastlab reproduce` measure alike; every
row carries the fidelity monitor's verdict over its own window and the link rate."""

from __future__ import annotations

import argparse
import json
from typing import Any

from collectives.programs.multinode_bench import SCHEME_NAMES, SCHEMES
from collectives.waiting import DEFAULT as DEFAULT_WAIT
from collectives.waiting import MODES as WAIT_MODES

from ..emulation.network import Emulation
from ..errors import RunFailed
from ..experiments.multinode_run import DESTS, DILATION, SEED, measured_rows
from ..experiments.multinode_spec import check_plans, scheme_names, torus_of
from ..results import text_table
from .arguments import (
    BW_HELP,
    NON_NEGATIVE,
    POSITIVE,
    int_list,
    network,
    progress,
    rate,
    seconds,
)

TOPO = "torus:rows=4,cols=4"
SOURCES, FACTOR, SIZE, REPETITIONS = 4, 0.25, 65536, 8
NAMES = SCHEME_NAMES
DEFAULT_SCHEMES = ",".join(NAMES[s] for s in SCHEMES)


def cmd_multinode(args: argparse.Namespace) -> int:
    schemes = scheme_names((w.strip() for w in args.scheme.split(",") if w.strip()),
                           "--scheme")
    sizes = int_list("--size", args.size)
    torus = torus_of(args.topo, "--topo")
    check_plans(torus, schemes, args.sources, args.dests, args.factor, args.dilation,
                args.seed)
    topo, link = network(args)
    with Emulation(topo, progress=progress) as emu:
        progress(f"multi-node multicast on {emu.topo.name}: {args.sources} sources x "
                 f"{args.dests} destinations, {', '.join(NAMES[s] for s in schemes)}")
        rows, res = measured_rows(emu, sources=args.sources, sizes=sizes, schemes=schemes,
                                  factors=args.factor, reps=args.repetitions, seed=args.seed,
                                  torus=(torus.rows, torus.cols), dilation=args.dilation,
                                  dests=args.dests, timeout=args.timeout, wait=args.wait)
        name = emu.topo.name
    if not rows:
        tail = " ".join((res.stderr or res.stdout or "no output").split())[-400:]
        raise RunFailed(f"multinode_bench printed no result: {tail}")
    correct = all(r["correct"] for r in rows)
    if args.json:
        print(json.dumps({"topology": name, "torus": [torus.rows, torus.cols],
                          "sources": args.sources, "dests": args.dests, "factor": args.factor,
                          "dilation": args.dilation, "seed": args.seed,
                          "repetitions": args.repetitions, "wait": args.wait,
                          "link_rate": link.to_dict(), "rows": rows}))
        return 0 if correct else 4
    print(f"multi-node multicast (Tseng2001) on {name}, one rank per node: {args.sources} "
          f"sources x {args.dests} destinations, hot-spot factor p {args.factor:g}, dilation "
          f"{args.dilation}, draw {args.seed}; medians of {args.repetitions} runs")
    print(text_table(["scheme", "bytes", "median ms", "min ms", "max ms", "steps",
                      "max contention", "correct", "fidelity"],
                     [[r["scheme"], r["size"], f"{r['t_s']['median'] * 1e3:.2f}",
                       f"{r['t_s']['min'] * 1e3:.2f}", f"{r['t_s']['max'] * 1e3:.2f}",
                       r["steps"], r["max_contention"], "yes" if r["correct"] else "NO",
                       "; ".join(r["fidelity"]["flags"]) or "kept up"] for r in rows]))
    for line in gains(rows):
        print(line)
    if any(r["fidelity"]["flags"] for r in rows):
        print("  a flagged row is not a result: the emulator did not keep up")
    print(f"  links at {link.text()}")
    return 0 if correct else 4


def gains(rows: list[dict[str, Any]]) -> list[str]:
    """U-torus over the best partitioned scheme, per size (> 1: partitioning faster)."""
    out = []
    for size in dict.fromkeys(r["size"] for r in rows):
        t = {r["scheme"]: r["t_s"]["median"] for r in rows if r["size"] == size}
        parts = [v for k, v in t.items() if k != NAMES["direct"]]
        direct = t.get(NAMES["direct"])
        if direct and parts:
            out.append(f"  {size} B: U-torus / best partitioned {direct / min(parts):.2f} "
                       "(> 1: partitioning faster)")
    return out


def probability(text: str) -> float:
    """--factor: a hot-spot factor p in 0..1 (argparse type)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number in 0..1, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be in 0..1, got {text}")
    return value


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("multinode", help="Tseng2001's multi-node multicast on an emulated "
                                         "torus: U-torus against the partitioned scheme")
    p.add_argument("--topo", default=TOPO,
                   help="a torus, torus:rows=R,cols=C[,bw=...] (default %(default)s); one rank "
                        "per node; without bw= at this machine's calibrated rate")
    p.add_argument("--bw", type=rate, help=BW_HELP)
    p.add_argument("--sources", type=POSITIVE, default=SOURCES,
                   help="sources multicasting at once (default %(default)s)")
    p.add_argument("--dests", type=POSITIVE, default=DESTS,
                   help="destinations of each source (default %(default)s)")
    p.add_argument("--factor", type=probability, default=FACTOR, metavar="P",
                   help="hot-spot factor: the share of every destination set common to all "
                        "(default %(default)s)")
    p.add_argument("--dilation", type=POSITIVE, default=DILATION,
                   help="the partition's dilation h: DDNs of links h hops long, h x h blocks; "
                        "it divides both sides (default %(default)s)")
    p.add_argument("--size", default=str(SIZE), metavar="B,B,...",
                   help="message bytes of every multicast (default %(default)s)")
    p.add_argument("--scheme", default=DEFAULT_SCHEMES, metavar="S,S,...",
                   help="u-torus (direct), partitioned-random, partitioned-balanced "
                        "(default %(default)s)")
    p.add_argument("--repetitions", type=POSITIVE, default=REPETITIONS, metavar="N",
                   help="measured runs of every scheme and size (default %(default)s)")
    p.add_argument("--seed", type=NON_NEGATIVE, default=SEED,
                   help="draw of the sources and destination sets (default %(default)s)")
    p.add_argument("--wait", choices=WAIT_MODES, default=DEFAULT_WAIT,
                   help="how ranks wait for messages (default %(default)s)")
    p.add_argument("--timeout", type=seconds, default=600.0,
                   help="seconds for the whole job (default %(default)s)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_multinode)
