"""`mcastlab bcast`: one measured broadcast experiment, or the same broadcast on several
host counts (--hosts 2,4,8,16) side by side: on one network of the largest count at one link
rate (--networks one), or each count on a star of its own at that star's own calibrated
rate (--networks each: 64 hosts keep up only at a rate that would slow 2 hosts for
nothing; the counts then compare in multiples of M/B at their own rates)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from collectives.algorithms import BCASTS, COMPLETIONS, NATIVE, SEND_ORDERS
from collectives.call import BcastCall
from collectives.executor import WAIT_MODES
from collectives.ipmc import ACKS, DEFAULT_FANOUT, rcvbuf_line

from ..cluster.spread import across
from ..emulation.network import Emulation
from ..errors import UsageError
from ..experiments.spec import LOSS_SCOPES
from ..fidelity.flags import Monitor
from ..fidelity.link_rate import LinkRate
from ..fidelity.wire_units import in_units
from ..measure.bcast import run_bcast
from ..measure.bcast_model import uses_params
from ..measure.bcast_result import BcastResult
from ..measure.mpich import MPICH_ALGORITHMS
from ..measure.options import RunOptions
from ..measure.params import model_params
from ..results import size_text, text_table
from .arguments import (
    NON_NEGATIVE,
    POSITIVE,
    cluster_spec,
    host_counts,
    network,
    network_arguments,
    old_spelling,
    progress,
    switch_of,
)
from .lines import rank_lines
from .steps import Steps
from .values import POSITIVE_SIZE, SIZE_SPELLINGS, SIZES, names


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


def call_options(args: argparse.Namespace) -> dict[str, object]:
    """The call's options from the command line: --fragment, and nack's completion (--acks,
    --ack-fanout; the call refuses them for a broadcast whose receivers do not report)."""
    options: dict[str, object] = {} if args.fragment is None else {"fragment": args.fragment}
    return options | {k: v for k, v in (("acks", args.acks), ("ack_fanout", args.ack_fanout))
                      if v is not None}


def calls(args: argparse.Namespace) -> list[BcastCall]:
    """A call per --algo and --size (algorithms in the order given, then sizes); the one
    check of each: collectives.call."""
    try:
        made = [BcastCall(algo, size, send_order=args.send_order, completion=args.completion,
                          options=call_options(args))
                for algo in args.algo for size in args.size]
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.mpich_algorithm and (args.algo != [NATIVE]
                                 or args.mpich_algorithm not in MPICH_ALGORITHMS):
        raise UsageError(f"--mpich-algorithm needs --algo {NATIVE} (alone) and one of "
                         f"{', '.join(MPICH_ALGORITHMS)}")
    return made


def cmd_bcast(args: argparse.Namespace) -> int:
    made = calls(args)
    cluster = cluster_spec(args)
    if cluster is not None and args.flow is False:
        raise UsageError("--no-flow: across servers the flow-latency benchmark is the measure "
                         "(the servers share no clock)")
    counts: tuple[int, ...] = args.hosts or ()
    if args.networks == "each" and (args.topo.strip() != "star" or len(counts) < 2):
        raise UsageError("--networks each: a bare --topo star sized by each of several "
                         "--hosts counts (N,N,...)")
    flow = args.flow if args.flow is not None else (not args.loss or cluster is not None)
    if args.flow is None and args.loss and cluster is None:
        progress("flow-latency benchmark skipped under --loss (pass --flow to run it)")
    runs = []
    with Steps(len(made) * max(1, len(counts))) as step:
        if args.networks == "each":  # a star of each size, each at its own rate
            for n in counts:
                topo, rate = network(args, star_size=n)
                runs += _measure(args, made, topo, rate, (n,), flow, cluster, step)
        else:  # one network, the largest, so every count runs at one link rate
            topo, rate = network(args, ranks=max(counts) if counts else None)
            runs = _measure(args, made, topo, rate, counts, flow, cluster, step)

    verified = all(r.res.verified for r in runs)
    records = [r.res.to_dict() | {"fidelity": r.fidelity, "link_rate": r.rate.to_dict(),
                                  "t_mcast_units": in_units(r.res.median_s, r.res.size,
                                                            r.rate.mbit),
                                  "time_to_result": r.phases}
               for r in runs]
    if args.json:
        print(json.dumps(records[0] if len(records) == 1 else
                         {"runs": records, "hosts": list(counts), "networks": args.networks}
                         | ({"link_rate": runs[0].rate.to_dict()} if args.networks == "one"
                            else {})))
        return 0 if verified else 4
    for r, record in zip(runs, records, strict=True):
        print_run(r.res, r.fidelity, r.rate, record["t_mcast_units"])
        print("  " + phases_line(r.phases))
    if len(runs) > len(made):  # several counts: each call's counts side by side
        for call in made:
            print_sweep([rec for rec, r in zip(records, runs, strict=True) if r.call is call],
                        runs[0].rate if args.networks == "one" else None)
    return 0 if verified else 4


class Run(NamedTuple):
    """One count's broadcast: its result, fidelity window, the network's link rate, and
    where the wall time went (network up, the job's start, measuring, the job's end, the
    network's teardown: issue 52's time to a result)."""

    res: BcastResult
    fidelity: dict[str, Any]
    rate: LinkRate
    phases: dict[str, float | None]
    call: BcastCall


def phases_line(p: dict[str, float | None]) -> str:
    """Where a run's wall time went, as `mcastlab bcast` prints it."""
    def s(key: str) -> str:
        v = p.get(key)
        return "-" if v is None else f"{v:.1f} s"

    return (f"time to result: network up {s('network_up_s')}, the model's t_hold/t_end "
            f"{s('params_s')}, the job's start {s('job_start_s')}, measuring "
            f"{s('measuring_s')}, the rest of the job (frame counts, flow latency, its end) "
            f"{s('job_end_s')}, teardown "
            f"{s('teardown_s')} (the network's up, parameters and teardown are shared by "
            "its counts)")


def _measure(args: argparse.Namespace, made: list[BcastCall], topo: Any, rate: LinkRate,
             counts: tuple[int, ...], flow: bool, cluster: Any,
             step: Callable[[str], None]) -> list[Run]:
    """Each call on `counts` ranks of one network (all its hosts when none; across
    `cluster`'s servers when given), each with its fidelity window, the network's link rate
    and where the wall time went."""
    runs = []
    with Emulation(topo, progress=progress, switch=switch_of(args),
                   cluster=across(topo, cluster)) as emu:
        up = emu.timings.get("ready_s")
        measured: dict[int, tuple[Any, float]] = {}  # the model's parameters by size
        for call in made:
            if uses_params(call.record) and call.size not in measured:
                # MPI_Bcast and the multicast broadcasts need none
                progress(f"measuring t_hold/t_end at {call.size} B for the model")
                t0 = time.time()
                measured[call.size] = (model_params(emu, call.size), time.time() - t0)
            params, params_s = (measured.get(call.size, (None, None))
                                if uses_params(call.record) else (None, None))
            runs += _broadcasts(args, emu, call, params, counts, flow, rate,
                                {"network_up_s": up, "params_s": params_s}, step)
        closing = time.time()
    teardown = time.time() - closing
    for run in runs:
        run.phases["teardown_s"] = teardown
    return runs


def _broadcasts(args: argparse.Namespace, emu: Emulation, call: BcastCall, params: Any,
                counts: tuple[int, ...], flow: bool, rate: LinkRate,
                shared: dict[str, float | None], step: Callable[[str], None]) -> list[Run]:
    """One call on each count of ranks of the network that is up."""
    runs = []
    for n in counts or (None,):
        step(f"{call.algorithm} {size_text(call.size)} on {n or len(emu.topo.hosts)} hosts")
        with Monitor(emu.topo, emu.spread) as mon:
            began = time.time()
            res = run_bcast(emu, call, RunOptions(
                hosts=n, repetitions=args.repetitions, flow=flow, params=params,
                mpich_algorithm=args.mpich_algorithm, wait=args.wait, loss=args.loss,
                loss_scope=args.loss_scope, frames=args.frames, late=args.late))
            ended = time.time()
        # the window: when the broadcasts ran (testbed clocks are the hosts' one clock;
        # across servers the job's own ends are all this server knows)
        start, end = res.window
        local = began <= start <= end <= ended
        runs.append(Run(res, mon.window(*res.window, host_wait_s=res.wait_per_turn_s),
                        rate, shared | {
                            "job_start_s": start - began if local else None,
                            "measuring_s": end - start if local else None,
                            "job_end_s": ended - end if local else None,
                            "job_s": ended - began}, call))
    return runs


def print_run(res: BcastResult, fidelity: dict[str, Any], rate: LinkRate,
              units: dict[str, Any]) -> None:
    """One broadcast experiment as `mcastlab bcast` prints it: the headline, the fidelity
    verdict, the link rate, then the details the run measured."""
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


def print_sweep(records: list[dict[str, Any]], rate: LinkRate | None) -> None:
    """Several host counts side by side; a flagged run shows '!' and feeds no ratio. On one
    network (`rate`: the largest count's) the times compare as they are; on a network each
    (`rate` None: each its own rate) they compare in multiples of M/B at their rates."""
    first = records[0]

    def time_of(r: dict[str, Any]) -> float | None:
        return (r["t_mcast_s"]["median"] if rate is not None
                else r["t_mcast_units"]["per_wire_time"])

    rows = []
    for r in records:
        flagged = bool(r["fidelity"]["flags"])
        ms = r["t_mcast_s"]["median"] * 1e3
        t, t0 = time_of(r), time_of(first)
        ratio = ("-" if flagged or first["fidelity"]["flags"] or not t or not t0
                 else f"{t / t0:.2f}")
        pred = r["predicted_s"]
        row = [r["hosts"], f"{ms:.2f}{' !' if flagged else ''}",
               "-" if pred is None else f"{pred * 1e3:.2f}", ratio]
        if rate is None:
            units = r["t_mcast_units"]["per_wire_time"]
            row[1:1] = [f"{r['link_rate']['mbit']:g}", "-" if units is None else f"{units:.2f}"]
        rows.append(row)
    head = ["hosts", "t_mcast ms", "model ms", f"/ T({first['hosts']})"]
    if rate is None:
        head[1:1] = ["Mbit/s", "x M/B"]
        print(f"\n{first['algorithm']} {first['size']} B by host count, each on a star of its "
              f"own at its own calibrated rate (the ratio in multiples of M/B):")
    else:
        print(f"\n{first['algorithm']} {first['size']} B by host count, on one network at "
              f"{rate.text()} (one rate for every count: the largest network's):")
    print(text_table(head, rows))


def print_details(res: BcastResult) -> None:
    """What `mcastlab bcast` shows below the headline, where the run measured it: per rank,
    CPU, DYN-Tree's trees, frames and link bytes, datagrams and repairs, the late side's
    final phase, TCP under loss, the flow-latency figure."""
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
        buf = res.datagrams.get("rcvbuf")
        if buf:
            print("  " + rcvbuf_line(buf, res.iterations))
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


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bcast", help="one measured broadcast experiment (or the same one on "
                                     "several host counts, at one link rate)")
    network_arguments(p, "number of ranks (with a bare 'star' also its size), or counts "
                         "N,N,...: the same broadcast on each, on one network of the largest "
                         "count at one link rate", servers=True, hosts_type=host_counts)
    p.add_argument("--networks", choices=("one", "each"), default="one",
                   help="with several --hosts counts on a bare star: one network of the "
                        "largest count at its rate (default), or a star of each count at "
                        "its own calibrated rate (compared in multiples of M/B)")
    p.add_argument("--algo", required=True, type=names, metavar="A,A,...",
                   help=f"one or more of {', '.join(BCASTS)}")
    p.add_argument("--size", type=SIZES, required=True, metavar="B,B,...",
                   help=f"message sizes: {SIZE_SPELLINGS}")
    p.add_argument("--repetitions", type=POSITIVE, default=20, metavar="N",
                   help="timed broadcasts (default %(default)s)")
    old_spelling(p, "--iters", "--repetitions", type=POSITIVE)
    p.add_argument("--fragment", type=POSITIVE_SIZE, help="fragmented-chain fragment size")
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
    p.add_argument("--acks", choices=ACKS,
                   help="nack's (and the report scouts') completion: tree (default: up a "
                        "tree of acknowledgements, the root hearing its children only) or "
                        "direct (every receiver reports to the root, as before)")
    p.add_argument("--ack-fanout", type=POSITIVE, metavar="K",
                   help=f"children per rank in the tree of acknowledgements (default "
                        f"{DEFAULT_FANOUT})")
    p.add_argument("--wait", choices=WAIT_MODES,
                   help="how ranks wait for messages: block (default: asleep until "
                        "a socket wakes them), spin (MPI's own busy waits), yield, "
                        "sleep (naps)")
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
