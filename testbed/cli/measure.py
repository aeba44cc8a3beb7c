"""Commands that measure on an emulated network without a spec: mpirun (any mpi4py
program), pingpong, params (t_hold/t_end), osu (osu_bcast / osu_allgather / osu_barrier of the OSU
micro-benchmarks with any algorithm). One measured broadcast, `bcast`, is cli/bcast.py."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collectives.algorithms import ALLGATHERS, BARRIERS, BCASTS, lookup
from collectives.executor import WAIT_MODES, check
from collectives.programs import osu
from collectives.use import DEFAULT_ALLGATHER, DEFAULT_BARRIER, DEFAULT_BCAST
from collectives.use import option as use_option
from topologies import TopologyError

from ..cluster.spread import across
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import McastlabError, RunFailed, UsageError
from ..experiments import default as default_experiment
from ..experiments.default import DEFAULT_TOPOLOGY
from ..experiments.osu import OsuRow, placed, run_osu
from ..fidelity.link_rate import nominal_topology
from ..measure.params import measure_params
from ..results import read_jsonl, text_table
from ..safepath import planned_folder
from .arguments import (
    NON_NEGATIVE,
    POSITIVE,
    TOPO_HELP,
    add_cluster_choice,
    add_controller_choice,
    add_link_options,
    cluster_spec,
    controller_config,
    network,
    network_arguments,
    old_spelling,
    progress,
    seconds,
    switch_of,
    topo_spec,
    topology,
)
from .steps import Steps
from .values import POSITIVE_SIZE, POSITIVE_SIZES, SIZE, SIZE_SPELLINGS, SIZES, names, size_bytes

OSU_WHAT = {"bcast": "broadcast", "allgather": "Allgather", "barrier": "barrier"}  # osu's


def cmd_mpirun(args: argparse.Namespace) -> int:
    prog = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not prog:
        raise UsageError("give the program after '--', e.g. -- -m collectives.programs.pingpong")
    _program_file(prog[0])
    prog = _with_algorithms(args, prog)
    cluster = cluster_spec(args)
    switch = switch_of(args)
    topo, _rate_used = network(args)
    hosts = job_hosts(args, topo)
    with Emulation(topo, progress=progress, controller_config=controller_config(args),
                   switch=switch, cluster=across(topo, cluster)) as emu:
        lossy(emu, args.loss)
        res = run_mpi(emu, prog, hosts=hosts, np=args.np, ppn=args.ppn, timeout=args.timeout,
                      check=False)
        for rank, text in sorted(res.rank_output.items()):
            for line in text.splitlines():
                print(f"[{rank}] {line}")
    if res.returncode != 0:
        raise McastlabError(f"the MPI job exited with code {res.returncode}")
    return 0


def job_hosts(args: argparse.Namespace, topo: Any) -> list[str] | None:
    """The job's hosts in rank order: --host-names, or the first --hosts (a count, as
    everywhere). --hosts with names was the old spelling of --host-names: kept, noted."""
    names, count = args.host_names, args.hosts
    if count is not None and not count.isdigit():
        print("mcastlab: note: --hosts takes a count now; host names go to --host-names",
              file=sys.stderr)
        names, count = count, None
    if names is not None and count is not None:
        raise UsageError("--hosts (a count) or --host-names (which hosts), not both")
    if count is not None:
        if not 1 <= int(count) <= len(topo.hosts):
            raise UsageError(f"--hosts {count}: {topo.name} has {len(topo.hosts)} hosts")
        return [h.name for h in topo.hosts][: int(count)]
    return names.split(",") if names else None


def _with_algorithms(args: argparse.Namespace, prog: list[str]) -> list[str]:
    return mpirun_program(prog, args.bcast, args.barrier, args.allgather, args.option)


def mpirun_program(prog: list[str], bcast: str | None, barrier: str | None,
                   allgather: str | None, option: list[tuple[str, Any]]) -> list[str]:
    """`prog` as mpirun runs it: with --bcast/--barrier/--allgather/-o under
    collectives.use, MPI.COMM_WORLD's collectives the registry's, checked here before the
    network (UsageError). Each flag changes its own collective only: the others are MPICH's
    own, as unflagged (collectives.algorithms.DEFAULTS), passed as such so that no MCASTLAB_*
    variable of the ranks' environment picks them instead."""
    if bcast is None and barrier is None and allgather is None and not option:
        return prog
    bcast, barrier = bcast or DEFAULT_BCAST, barrier or DEFAULT_BARRIER
    allgather = allgather or DEFAULT_ALLGATHER
    options = dict(option)
    try:  # timing: measured on first use
        check(bcast, barrier, 2, options, measure=True, allgather=allgather)
    except ValueError as e:
        raise UsageError(str(e)) from None
    flags = [f for name, value in options.items() for f in ("-o", f"{name}={json.dumps(value)}")]
    return ["-m", "collectives.use", "--bcast", bcast, "--barrier", barrier,
            "--allgather", allgather, *flags, "--", *prog]


def _program_file(first: str) -> None:
    """python's first argument, unless an option (-m, -c, -u ...), is its script: a missing
    one is refused here, not by every rank after the network came up. The old `mcastlab run
    myspec` lands here too (an experiment spec was told apart by its .toml)."""
    if first.startswith("-") or Path(first).is_file():
        return
    spec = (f"; the experiment spec {first}.toml? mcastlab experiment {first}.toml"
            if Path(f"{first}.toml").is_file() else "")
    raise UsageError(f"no such program file {first} (a program goes after '--', e.g. -- -m "
                     f"collectives.programs.pingpong; an experiment spec runs with mcastlab "
                     f"experiment){spec}")


def cmd_pingpong(args: argparse.Namespace) -> int:
    out_root = planned_folder("--out", args.out)
    topo, rate = network(args)
    out = default_experiment.run(topo, out_root=out_root, repetitions=args.repetitions,
                                 bw_bytes=args.bw_bytes, progress=progress,
                                 link_rate=rate.to_dict(), loss=args.loss)
    if args.json:
        print(json.dumps({"results": str(out), "link_rate": rate.to_dict(),
                          "records": read_jsonl(out / "records.jsonl")}))
        return 0
    print(f"links at {rate.text()}")
    print((out / "summary.txt").read_text())
    print(f"results: {out}/ (config.json, records.jsonl, summary.txt, report.html)")
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    sizes: list[int] = args.size
    switch = switch_of(args)
    topo, rate = network(args, star_size=args.hosts)
    with Emulation(topo, progress=progress, switch=switch) as emu:
        lossy(emu, args.loss)
        progress(f"measuring t_hold/t_end on {emu.topo.name} for {len(sizes)} sizes")
        res = measure_params(emu, sizes, repetitions=args.repetitions, dummy_max=args.dummy_max,
                             budget_bytes=args.budget_bytes)
    res["link_rate"] = rate.to_dict()
    if args.json:
        print(json.dumps(res, indent=1))
        return 0

    rows = [[m, f"{h * 1e6:.1f}", f"{e * 1e6:.1f}"]
            for m, h, e in zip(res["sizes"], res["t_hold_s"], res["t_end_s"], strict=True)]
    print(f"t_end between {' and '.join(res['hosts'][:2])} with {res['ranks']} ranks present; "
          f"t_hold over {res['hold_sends']} back-to-back sends ({res['send_order']} order) "
          f"from {res['hosts'][0]}; medians of {res['repeats']} runs; links at {rate.text()}")
    print(text_table(["bytes", "t_hold us", "t_end us"], rows))
    for row in res["system"]:
        print(f"  {row['m']} B: t_send {row['t_send_s'] * 1e6:.1f} us, t_net "
              f"{row['t_net_s'] * 1e6:.1f} us, t_recv {row['t_recv_s'] * 1e6:.1f} us")
    for name, f in res["fits"].items():
        print(f"  {name}(m) = {f['start_s'] * 1e6:.2f} us + m * {f['per_byte_s'] * 1e9:.3f} ns")
    return 0


def lossy(emu: Emulation, loss: float) -> None:
    """--loss on every host link of the network just up (nothing for 0)."""
    if loss:
        progress(f"loss {loss:.2%} on every host link")
        emu.set_loss(loss)


def message_sizes(text: str) -> tuple[int, int]:
    """osu's -m, OMB's [MIN:]MAX, with the sizes as values.size_bytes reads them (64K:1M)."""
    try:
        parts = [str(size_bytes(p)) if p.strip() else p for p in text.split(":")]
    except ValueError as exc:
        raise UsageError(f"-m/--message-size: {exc}") from None
    try:
        return osu.parse_sizes(":".join(parts))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def cmd_osu(args: argparse.Namespace) -> int:

    try:  # the calls are made here: each name looked up once (the registry's words)
        algorithms = [lookup(args.bench, algo) for algo in args.algo]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    sizes = (osu.MIN_MESSAGE_SIZE, osu.MAX_MSG_SIZE_COLL)
    named = [o for o, v in (("-m", args.message_size), ("--size", args.size)) if v is not None]
    if named and args.bench == "barrier":
        raise UsageError(f"{named[0]}: osu barrier has no message sizes")
    if len(named) == 2:
        raise UsageError("-m (sizes doubling from MIN to MAX) or --size (a list), not both")
    if args.message_size is not None:
        sizes = message_sizes(args.message_size)
    spec, given = topo_spec(args.topo, args.bw, None, args.hosts)
    try:  # the ranks and the algorithms' fit, on the topology as named: before any network
        for algorithm in algorithms:
            placed(nominal_topology(spec, **given), args.bench, algorithm, args.hosts)
    except (RunFailed, TopologyError) as exc:
        raise UsageError(str(exc)) from None
    cluster = cluster_spec(args)
    switch = switch_of(args)
    topo, rate = network(args, ranks=args.hosts)
    results = []
    with Steps(len(algorithms)) as step, \
            Emulation(topo, progress=progress, switch=switch, cluster=across(topo, cluster)) as emu:
        lossy(emu, args.loss)
        for algorithm in algorithms:
            step(f"osu_{args.bench} {algorithm.name}")
            results.append(run_osu(emu, args.bench, algorithm, hosts=args.hosts, sizes=sizes,
                                   listed=args.size, repetitions=args.repetitions,
                                   skip=args.warmup, full=args.full, wait=args.wait,
                                   progress=progress))
    if args.json:
        records = [res.to_dict() | {"link_rate": rate.to_dict()} for res in results]
        print(json.dumps(records[0] if len(records) == 1 else {"runs": records}))
        return 0
    for res in results:
        print("\n".join([*res.lines, *fidelity_lines(res.rows), f"# links at {rate.text()}"]))
    return 0


def fidelity_lines(rows: Sequence[OsuRow]) -> list[str]:
    """After the OSU lines, as comments: each flagged row's flags, or that all kept up."""
    flagged = [r for r in rows if r.flags]
    lines = [f"# fidelity{'' if r.size is None else ' ' + str(r.size)}: "
             f"{'; '.join(r.flags)} (not a result: the emulator did not keep up)"
             for r in flagged]
    if len(flagged) < len(rows):
        lines.append(f"# fidelity: {'the other rows ' if flagged else ''}kept up (no flag)")
    return lines


def add_commands(sub: argparse._SubParsersAction) -> None:

    p = sub.add_parser("mpirun", help="run an mpi4py program across the emulated hosts "
                                      "('mcastlab run -- PROGRAM' before)")
    p.add_argument("--topo", default="star", type=topology, help=TOPO_HELP)
    add_link_options(p)
    p.add_argument("--np", type=POSITIVE, help="number of ranks (default: one per host)")
    p.add_argument("--ppn", type=POSITIVE, default=1, help="ranks per host (default 1)")
    p.add_argument("--hosts", metavar="N", help="run on the first N hosts (default all)")
    p.add_argument("--host-names", metavar="H,H,...",
                   help="run on these hosts (names or ids), in rank order")
    p.add_argument("--timeout", type=seconds, default=300.0, help="seconds (default 300)")
    add_controller_choice(p)
    add_cluster_choice(p)
    p.add_argument("--bcast", metavar="NAME", help="run the program's MPI.COMM_WORLD "
                   "broadcasts with this algorithm (python -m collectives.use; docs/dropin.md; "
                   "each of --bcast, --barrier, --allgather changes its own collective only, "
                   f"the others stay MPICH's own: {DEFAULT_BCAST})")
    p.add_argument("--barrier", metavar="NAME", help="its barriers with this one")
    p.add_argument("--allgather", metavar="NAME", help="its allgathers (Allgather, "
                   "Allgatherv, allgather) with this one")
    p.add_argument("-o", "--option", type=use_option, action="append", default=[],
                   metavar="NAME=VALUE", help="an option of those algorithms (repeatable): "
                   "each of the three is given those it takes (mcastlab algorithms NAME)")
    p.add_argument("program", nargs=argparse.REMAINDER,
                   help="after '--': arguments to python, e.g. -m collectives.programs.pingpong")
    p.set_defaults(func=cmd_mpirun)

    p = sub.add_parser("pingpong", help="MPI ping-pong from rank 0 to every rank (latency, "
                                        "bandwidth); writes a results folder")
    p.add_argument("--topo", default=DEFAULT_TOPOLOGY, type=topology, help=TOPO_HELP)
    add_link_options(p)
    p.add_argument("--out", default="results", help="results root (default %(default)s)")
    p.add_argument("--json", action="store_true",
                   help="print the summary and the results folder as JSON")
    p.add_argument("--repetitions", type=POSITIVE, default=50, metavar="N",
                   help="measured round trips per pair (default %(default)s)")
    old_spelling(p, "--reps", "--repetitions", type=POSITIVE)
    p.add_argument("--bw-bytes", type=POSITIVE_SIZE, default=1 << 20, metavar="B",
                   help="message size of the bandwidth round trips (default 1 MiB)")
    p.set_defaults(func=cmd_pingpong)

    p = sub.add_parser("params", help="measure t_hold/t_end (and t_send/t_net/t_recv) on the "
                                      "emulated network")
    network_arguments(p, "star size (bare 'star' only)")
    p.add_argument("--size", "--sizes", default="1,1K,16K,64K,256K,1M", metavar="B,B,...",
                   type=SIZES, help=f"message sizes, {SIZE_SPELLINGS} (default %(default)s)")
    p.add_argument("--repetitions", type=POSITIVE, default=5, metavar="N",
                   help="timed runs of each size (default %(default)s)")
    old_spelling(p, "--repeats", "--repetitions", type=POSITIVE)
    p.add_argument("--budget-bytes", type=POSITIVE_SIZE, default=8 << 20, metavar="B",
                   help="bytes per timed run of each size (default 8 MiB; 1 MiB "
                        "keeps 10 Mbit/s links quick)")
    p.add_argument("--dummy-max", type=SIZE, default=65536, metavar="B",
                   help="run the dummy loop for sizes up to B (0: skip it; default "
                        "%(default)s)")
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("osu", help="osu_bcast, osu_allgather or osu_barrier of the OSU "
                                   "micro-benchmarks (7.4: its output and method) with any "
                                   "algorithm")
    p.add_argument("bench", choices=tuple(OSU_WHAT),
                   help="osu_bcast, osu_allgather (a row per message size) or osu_barrier "
                        "(one row)")
    network_arguments(p, "number of ranks, one per host (with a bare 'star' also its size)",
                       servers=True)
    p.add_argument("--algo", required=True, type=names, metavar="A,A,...",
                   help=f"bcast: one or more of {', '.join(BCASTS)}; allgather: of "
                        f"{', '.join(ALLGATHERS)}; barrier: of {', '.join(BARRIERS)}")
    p.add_argument("-m", "--message-size", metavar="[MIN:]MAX",
                   help="bcast, allgather (bytes per rank): sizes MIN, 2 MIN, ... up to MAX "
                        "(MAX, MIN:MAX, MIN: or :MAX; 64K:1M as --size; default 1:1M)")
    p.add_argument("--size", type=POSITIVE_SIZES, metavar="B,B,...",
                   help=f"bcast, allgather: these message sizes, in this order, in place of "
                        f"-m's doubling ({SIZE_SPELLINGS}: 1K,64K,1M)")
    p.add_argument("--repetitions", "-i", "--iterations", type=POSITIVE, metavar="N",
                   help="measured rounds of every size (default 1000, 100 above 8 KiB; -i "
                        "and --iterations are OSU's own spellings)")
    p.add_argument("-x", "--warmup", type=NON_NEGATIVE,
                   help="unmeasured rounds first (default 100, 10 above 8 KiB)")
    p.add_argument("-f", "--full", action="store_true",
                   help="also min and max latency over the ranks, and iterations")
    p.add_argument("--wait", choices=WAIT_MODES,
                   help="how ranks wait: block (default: asleep until a socket wakes them), "
                        "spin (MPICH's own busy waits, as OSU's C programs wait), yield, sleep")
    p.set_defaults(func=cmd_osu)
