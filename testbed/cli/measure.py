"""Commands that measure on an emulated network without a spec: mpirun (any mpi4py
program), pingpong, params (t_hold/t_end), bcast (one broadcast experiment), osu
(osu_bcast / osu_barrier of the OSU micro-benchmarks with any algorithm)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from collectives.algorithms import BARRIERS, BCASTS, COMPLETIONS, NATIVE, SEND_ORDERS
from collectives.call import BcastCall
from collectives.executor import WAIT_MODES, check
from collectives.programs import osu
from collectives.use import DEFAULT_BARRIER, DEFAULT_BCAST
from collectives.use import option as use_option
from topologies import TopologyError

from ..cluster.spread import across
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import McastlabError, RunFailed, UsageError
from ..experiments import default as default_experiment
from ..experiments.bcast import (
    MPICH_ALGORITHMS,
    measure_params,
    model_params,
    run_bcast,
    uses_params,
)
from ..experiments.bcast_result import BcastResult
from ..experiments.default import DEFAULT_TOPOLOGY
from ..experiments.osu import OsuRow, placed, run_osu
from ..experiments.spec import LOSS_SCOPES
from ..fidelity.flags import Monitor
from ..fidelity.link_rate import nominal_topology
from ..fidelity.wire_units import in_units
from ..outputs import output_dir
from ..results import text_table
from .arguments import (
    BW_HELP,
    NON_NEGATIVE,
    POSITIVE,
    TOPO_HELP,
    add_cluster_choice,
    add_controller_choice,
    add_switch_choice,
    cluster_spec,
    controller_config,
    int_list,
    loss,
    network,
    old_spelling,
    progress,
    rate,
    seconds,
    switch_of,
    topo_spec,
)


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
    """With --bcast/--barrier/-o the program runs under collectives.use: MPI.COMM_WORLD's
    broadcasts and barriers become the registry's, checked here before the network."""
    if args.bcast is None and args.barrier is None and not args.option:
        return prog

    bcast, barrier = args.bcast or DEFAULT_BCAST, args.barrier or DEFAULT_BARRIER
    options = dict(args.option)
    try:
        check(bcast, barrier, 2, options, measure=True)  # timing: measured on first use
    except ValueError as e:
        raise UsageError(str(e)) from None
    flags = [f for name, value in options.items() for f in ("-o", f"{name}={json.dumps(value)}")]
    return ["-m", "collectives.use", "--bcast", bcast, "--barrier", barrier, *flags, "--", *prog]


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
    out_root = output_dir("--out", args.out)
    topo, rate = network(args)
    out = default_experiment.run(topo, out_root=out_root, reps=args.repetitions,
                                 bw_bytes=args.bw_bytes, progress=progress,
                                 link_rate=rate.to_dict())
    print(f"links at {rate.text()}")
    print((out / "summary.txt").read_text())
    print(f"results: {out}/ (config.json, records.jsonl, summary.txt, report.html)")
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    sizes = int_list("--sizes", args.sizes)
    switch = switch_of(args)
    topo, rate = network(args, star_size=args.hosts)
    with Emulation(topo, progress=progress, switch=switch) as emu:
        progress(f"measuring t_hold/t_end on {emu.topo.name} for {len(sizes)} sizes")
        res = measure_params(emu, sizes, repeats=args.repetitions, dummy_max=args.dummy_max,
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


def late_side(text: str) -> tuple[str, float]:
    """--late's value: "root:MS" or "receivers:MS", MS in [0, 10000]."""
    side, _, ms = text.partition(":")
    try:
        value = float(ms)
    except ValueError:
        value = -1.0
    if side not in ("root", "receivers") or not 0 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"expected root:MS or receivers:MS (MS 0-10000), "
                                         f"got {text!r}")
    return side, value


def cmd_bcast(args: argparse.Namespace) -> int:

    try:  # the one check of the call: collectives.call
        call = BcastCall(args.algo, args.size, send_order=args.send_order,
                         completion=args.completion,
                         options={} if args.fragment is None else {"fragment": args.fragment})
    except ValueError as exc:
        raise UsageError(str(exc)) from None

    if args.mpich_algorithm and (args.algo != NATIVE
                                 or args.mpich_algorithm not in MPICH_ALGORITHMS):
        raise UsageError(f"--mpich-algorithm needs --algo {NATIVE} and one of "
                         f"{', '.join(MPICH_ALGORITHMS)}")
    cluster = cluster_spec(args)
    if cluster is not None and args.flow is False:
        raise UsageError("--no-flow: across servers the flow-latency benchmark is the measure "
                         "(the servers share no clock)")
    switch = switch_of(args)
    topo, rate = network(args, ranks=args.hosts)
    flow = args.flow if args.flow is not None else (not args.loss or cluster is not None)
    if args.flow is None and args.loss and cluster is None:
        progress("flow-latency benchmark skipped under --loss (pass --flow to run it)")
    with Emulation(topo, progress=progress, switch=switch, cluster=across(topo, cluster)) as emu:
        params = None
        if uses_params(args.algo):  # MPI_Bcast and the multicast broadcasts need none
            progress(f"measuring t_hold/t_end at {args.size} B for the model")
            params = model_params(emu, args.size)
        progress(f"broadcasting {args.size} B with {args.algo} on "
                  f"{args.hosts or len(topo.hosts)} hosts")
        with Monitor(emu.topo, emu.spread) as mon:
            res = run_bcast(emu, call, hosts=args.hosts, iters=args.repetitions,
                            flow=flow, params=params,
                            mpich_algorithm=args.mpich_algorithm, wait=args.wait,
                            loss=args.loss, loss_scope=args.loss_scope, frames=args.frames,
                            late=args.late)
        fidelity = mon.window(*res.window, host_wait_s=res.wait_per_turn_s)

    units = in_units(res.median_s, args.size, rate.mbit)
    if args.json:
        print(json.dumps(res.to_dict() | {"fidelity": fidelity, "link_rate": rate.to_dict(),
                                          "t_mcast_units": units}))
        return 0 if res.verified else 4
    t = res.t_mcast
    pred = f"{res.predicted_s * 1e6:.0f} us" if res.predicted_s is not None else "-"
    if res.timing == "direct":
        how = (f"t_mcast median {t.median * 1e6:.0f} us (p10 {t.p10 * 1e6:.0f}, p90 "
               f"{t.p90 * 1e6:.0f})")
    else:  # across servers: no shared clock
        how = (f"t_mcast {t.median * 1e6:.0f} us by flow latency (ranks on "
               f"{len(res.servers)} servers share no clock)")
    order = f" ({res.call.send_order} sends)" if res.call.send_order else ""
    order += f" (completion {res.call.completion})" if res.call.completion else ""
    print(f"{res.algorithm}{order} {res.size} B on {res.hosts} hosts of "
          f"{res.topology}: {how}; predicted {pred}; verified {res.verified}")
    flags = fidelity["flags"]
    print("  fidelity: " + ("; ".join(flags) + " (not a result: the emulator did not keep up)"
                            if flags else "kept up (no flag)"))
    print(f"  links at {rate.text()}"
          + (f"; t_mcast = {units['per_wire_time']:.2f} x M/B" if units["per_wire_time"]
             else "")
          + (f" = {units['per_frame_time']:.1f} frame times" if units["per_frame_time"]
             else ""))
    print_details(res)
    return 0 if res.verified else 4


def print_details(res: BcastResult) -> None:
    """What `mcastlab bcast` shows below the headline, where the run measured it: per rank,
    CPU, DYN-Tree's trees, frames and link bytes, datagrams and repairs, the late side's
    final phase, TCP under loss, the flow-latency figure."""
    # testbed.cli.interactive loads Mininet: only where a network is built
    from .interactive import rank_lines

    if res.rank_return_s:  # per-rank times need one clock (not across servers)
        print("\n".join("  " + ln for text in rank_lines(res) for ln in text.splitlines()))
    cpu = res.cpu or {}
    if cpu.get("busy") is not None:
        print(f"  CPU: {cpu['ranks']} ranks on {cpu['cores']} cores, machine {cpu['busy']:.0%} "
              f"busy, ranks on a CPU {cpu['on_cpu']:.0%} of their time in the broadcast")
    dyn = res.dyn_tree
    if dyn and dyn["same_as_opt_tree"] is not None:
        print(f"  DYN-Tree built OPT-Tree's tree (from the same t_hold/t_end) in "
              f"{dyn['same_as_opt_tree']:.0%} of {len(dyn['parents'])} broadcasts")
    if res.frames:
        fr = res.frames
        split = (f" ({fr['data']:.1f} with data, {fr['acks']:.1f} TCP pure ACKs)"
                 if fr.get("data") is not None else "")
        print(f"  frames per broadcast: {fr['sent']:.1f} sent by hosts{split}, "
              f"{fr['delivered']:.1f} delivered to hosts")
    if res.link_bytes and res.size:
        busiest = sorted(res.link_bytes.items(), key=lambda kv: -kv[1])[:4]
        print("  busiest links (copies of the message per broadcast, headers included): "
              + ", ".join(f"{link} {b / res.size:.1f}" for link, b in busiest))
    if res.datagrams:
        d = res.datagrams["per_broadcast"]
        print(f"  datagrams per broadcast: {d['sent']:.1f} sent, {d['received']:.1f} received, "
              f"{d['rejected']:.1f} rejected, {d['repaired']:.1f} fragments repaired")
        rounds = res.datagrams.get("repair_rounds")
        if rounds and rounds.get("mean") is not None:
            print(f"  repair rounds (Siebert2006): E(X) {rounds['mean']:.2f} chain hops a "
                  f"fragment, {rounds['multicast_first']:.0%} brought by the multicast first")
        if res.datagrams.get("pace_bps"):
            print(f"  the root's pace after the last broadcast: "
                  f"{res.datagrams['pace_bps'] / 1e6:.1f} Mbit/s, its group round trip "
                  f"{res.datagrams['grtt_s'] * 1e3:.2f} ms")
    if res.final_phase_s is not None and res.late is not None:
        side, ms = res.late
        print(f"  the {side} {ms:g} ms late: final phase (last call to last return) "
              f"{res.final_phase_s * 1e3:.1f} ms")
    if res.loss and res.tcp:
        lost = "also lost" if res.loss_scope == "all" else "not dropped by the loss"
        print(f"  TCP on the hosts (MPI's messages, {lost}): {res.tcp['retrans_segs']} "
              f"segments retransmitted, {res.tcp['timeouts']} retransmission timeouts")
    if res.flow:
        print(f"  flow-latency benchmark: {res.flow['t_mcast_s'] * 1e6:.0f} us "
              f"(critical responder {res.flow['critical']})")


def cmd_osu(args: argparse.Namespace) -> int:

    table = BCASTS if args.bench == "bcast" else BARRIERS
    if args.algo not in table:
        raise UsageError(f"unknown {'broadcast' if args.bench == 'bcast' else 'barrier'} "
                         f"algorithm {args.algo!r}; choose from {', '.join(table)}")
    sizes = (osu.MIN_MESSAGE_SIZE, osu.MAX_MSG_SIZE_COLL)
    if args.message_size is not None:
        if args.bench == "barrier":
            raise UsageError("-m/--message-size: osu barrier has no message sizes")
        try:
            sizes = osu.parse_sizes(args.message_size)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    spec, given = topo_spec(args.topo, args.bw, None, args.hosts)
    try:  # the ranks and the algorithm's fit, on the topology as named: before any network
        placed(nominal_topology(spec, **given), args.bench, args.algo, args.hosts)
    except (RunFailed, TopologyError) as exc:
        raise UsageError(str(exc)) from None
    cluster = cluster_spec(args)
    switch = switch_of(args)
    topo, rate = network(args, ranks=args.hosts)
    with Emulation(topo, progress=progress, switch=switch, cluster=across(topo, cluster)) as emu:
        res = run_osu(emu, args.bench, args.algo, hosts=args.hosts, sizes=sizes,
                      iterations=args.repetitions, skip=args.warmup, full=args.full,
                      wait=args.wait, progress=progress)
    if args.json:
        print(json.dumps(res.to_dict() | {"link_rate": rate.to_dict()}))
        return 0
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
    p.add_argument("--topo", default="star", help=TOPO_HELP)
    p.add_argument("--np", type=POSITIVE, help="number of ranks (default: one per host)")
    p.add_argument("--ppn", type=POSITIVE, default=1, help="ranks per host (default 1)")
    p.add_argument("--hosts", metavar="N", help="run on the first N hosts (default all)")
    p.add_argument("--host-names", metavar="H,H,...",
                   help="run on these hosts (names or ids), in rank order")
    p.add_argument("--timeout", type=seconds, default=300.0, help="seconds (default 300)")
    add_controller_choice(p)
    add_cluster_choice(p)
    p.add_argument("--bcast", metavar="NAME", help="run the program's MPI.COMM_WORLD "
                   "broadcasts with this algorithm (python -m collectives.use; docs/dropin.md)")
    p.add_argument("--barrier", metavar="NAME", help="and its barriers with this one")
    p.add_argument("-o", "--option", type=use_option, action="append", default=[],
                   metavar="NAME=VALUE", help="an option of those algorithms (repeatable)")
    p.add_argument("program", nargs=argparse.REMAINDER,
                   help="after '--': arguments to python, e.g. -m collectives.programs.pingpong")
    p.set_defaults(func=cmd_mpirun)

    p = sub.add_parser("pingpong", help="MPI ping-pong from rank 0 to every rank (latency, "
                                        "bandwidth); writes a results folder")
    p.add_argument("--topo", default=DEFAULT_TOPOLOGY, help=TOPO_HELP)
    p.add_argument("--out", default="results", help="results root (default %(default)s)")
    p.add_argument("--repetitions", type=POSITIVE, default=50, metavar="N",
                   help="measured round trips per pair (default %(default)s)")
    old_spelling(p, "--reps", "--repetitions", type=POSITIVE)
    p.add_argument("--bw-bytes", type=POSITIVE, default=1 << 20, metavar="B",
                   help="message size of the bandwidth round trips (default 1 MiB)")
    p.set_defaults(func=cmd_pingpong)

    p = sub.add_parser("params", help="measure t_hold/t_end (and t_send/t_net/t_recv) on the "
                                      "emulated network")
    _network_arguments(p, "star size (bare 'star' only)")
    p.add_argument("--sizes", default="1,1024,16384,65536,262144,1048576", metavar="B,B,...",
                   help="message sizes in bytes (default %(default)s)")
    p.add_argument("--repetitions", type=POSITIVE, default=5, metavar="N",
                   help="timed runs of each size (default %(default)s)")
    old_spelling(p, "--repeats", "--repetitions", type=POSITIVE)
    p.add_argument("--budget-bytes", type=POSITIVE, default=8 << 20, metavar="B",
                   help="bytes per timed run of each size (default 8 MiB; 1 MiB "
                        "keeps 10 Mbit/s links quick)")
    p.add_argument("--dummy-max", type=NON_NEGATIVE, default=65536, metavar="B",
                   help="run the dummy loop for sizes up to B (0: skip it; default "
                        "%(default)s)")
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("bcast", help="one measured broadcast experiment")
    _network_arguments(p, "number of ranks (with a bare 'star' also its size)", servers=True)
    p.add_argument("--algo", required=True, help=f"one of {', '.join(BCASTS)}")
    p.add_argument("--size", type=NON_NEGATIVE, required=True, help="message bytes")
    p.add_argument("--repetitions", type=POSITIVE, default=20, metavar="N",
                   help="timed broadcasts (default %(default)s)")
    old_spelling(p, "--iters", "--repetitions", type=POSITIVE)
    p.add_argument("--fragment", type=POSITIVE, help="fragmented-chain fragment size")
    p.add_argument("--no-flow", dest="flow", action="store_false", default=None,
                   help="skip the flow-latency benchmark")
    p.add_argument("--flow", dest="flow", action="store_true",
                   help="run the flow-latency benchmark also under --loss (skipped "
                        "there by default: it repeats the broadcast once per "
                        "responder, and TCP's retransmission timeouts under heavy "
                        "loss make that minutes)")
    p.add_argument("--mpich-algorithm", metavar="NAME",
                   help="with --algo mpich: MPI_Bcast's algorithm (MPICH control "
                        "variable), e.g. binomial, scatter_ring_allgather")
    p.add_argument("--send-order", choices=tuple(SEND_ORDERS),
                   help="a tree node's sends: fifo (default: the next when the previous "
                        "message has left the host, as the model assumes) or overlapped "
                        "(all at once, sharing the link)")
    p.add_argument("--completion", choices=tuple(COMPLETIONS),
                   help="a scout broadcast's end: report (default: every receiver says "
                        "'complete', lost fragments repaired) or none (Chen2000's: a "
                        "receiver speaks only of a gap)")
    p.add_argument("--wait", choices=WAIT_MODES,
                   help="how ranks wait for messages: block (default: asleep until "
                        "a socket wakes them), spin (MPI's own busy waits), yield, "
                        "sleep (naps)")
    p.add_argument("--loss", type=loss, default=0.0, metavar="P",
                   help="drop this fraction of packets (or a percentage: 5%%) each way on "
                        "every host link (default 0)")
    p.add_argument("--loss-scope", choices=LOSS_SCOPES, default="all",
                   help="drop any packet (default), only multicast datagrams, or only "
                        "those a host receives (multicast-in: each receiver loses its own)")
    p.add_argument("--late", type=late_side, metavar="SIDE:MS",
                   help="root:MS or receivers:MS: that side calls every broadcast MS ms "
                        "after the others (Siebert2006's root last, root first); prints the "
                        "final phase")
    p.add_argument("--frames", type=NON_NEGATIVE, default=10, metavar="N",
                   help="count frames on the switch ports over N back-to-back "
                        "broadcasts (0: skip; default %(default)s)")
    p.set_defaults(func=cmd_bcast)

    p = sub.add_parser("osu", help="osu_bcast or osu_barrier of the OSU micro-benchmarks "
                                   "(7.4: its output and method) with any algorithm")
    p.add_argument("bench", choices=("bcast", "barrier"),
                   help="osu_bcast (a row per message size) or osu_barrier (one row)")
    _network_arguments(p, "number of ranks, one per host (with a bare 'star' also its size)",
                       servers=True)
    p.add_argument("--algo", required=True,
                   help=f"bcast: one of {', '.join(BCASTS)}; barrier: one of "
                        f"{', '.join(BARRIERS)}")
    p.add_argument("-m", "--message-size", metavar="[MIN:]MAX",
                   help="bcast: sizes MIN, 2 MIN, ... up to MAX bytes (MAX, MIN:MAX, MIN: "
                        "or :MAX; default 1:1048576)")
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


def _network_arguments(p: argparse.ArgumentParser, hosts_help: str,
                       servers: bool = False) -> None:
    p.add_argument("--topo", default="star", help=TOPO_HELP)
    p.add_argument("--hosts", type=POSITIVE, help=hosts_help)
    p.add_argument("--bw", type=rate, help=BW_HELP)
    p.add_argument("--json", action="store_true")
    add_switch_choice(p)
    if servers:
        add_cluster_choice(p)
