"""Broadcast experiments on the emulated network: point-to-point parameters (Ping, PingPong,
dummy loop) and measured broadcasts with their model predictions."""

from __future__ import annotations

import contextlib
import json
from typing import Any, Literal

from collectives import measured
from collectives.algorithms import (
    DEFAULT_SEND_ORDER,
    NATIVE,
    Named,
    check_send_order,
    resolve,
)
from collectives.call import BcastCall
from collectives.executor import WAIT_MODES
from collectives.programs import params as params_program
from collectives.programs.bcast_bench import argv as bench_argv
from collectives.trees import MeasuredPointToPoint, build, predict
from collectives.waiting import DEFAULT as DEFAULT_WAIT
from topologies import Topology

from ..emulation import tcp_stats
from ..emulation.frame_count import FrameCounter
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed, renamed_keyword
from . import model_inputs
from .bcast_result import TIMES, BcastResult, Times
from .rank_placement import node_params


def last_json(res: Any) -> dict[str, Any]:
    for line in reversed(res.rank_output.get(0, "").splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RunFailed("the MPI program printed no result")


def measure_params(emu: Emulation, sizes: list[int], *, repetitions: int = 5,
                   dummy_max: int = 65536, hosts: list[str] | None = None,
                   budget_bytes: int | None = None,
                   send_order: str = DEFAULT_SEND_ORDER,
                   repeats: int | None = None, partner: str | None = None,
                   dummy_fractions: tuple[float, ...] | None = None,
                   dummy_runs: int | None = None, pin_pair: bool = False,
                   hold_sends: int | None = None) -> dict[str, Any]:
    """Run collectives.programs.params on `hosts`, the broadcast's, its root first (default:
    every host, the topology's most distant pair first). t_hold: the first host sends one
    message to each other host in turn, back to back, in `send_order`, kept for every count
    of sends up to theirs (the model takes its busiest node's: model_inputs); t_end: the
    first host and `partner` (default: the host at the median hop count from the first,
    the distance the broadcast's messages travel; the second host when given none of the
    `hosts`' own) ping-pong while the others wait as a broadcast's ranks do.
    `budget_bytes`: bytes per timed run of a size (collectives.programs.params' default 8
    MiB takes a minute per size at 10 Mbit/s). `dummy_fractions`: the dummy loop's lengths in
    units of t_end, `dummy_runs` the runs of each (default the program's); `pin_pair`: the
    first host's rank and the partner's each on a core of their own meanwhile; `hold_sends`:
    t_hold's back-to-back sends (default one to each other host). The job's timeout grows
    with the bytes it puts on the first host's link (`params_timeout`). The record names
    both hosts and the partner's hop count, and checks t_hold against the wire time
    (`wire_check`, model_inputs.check)."""
    repetitions = renamed_keyword(repeats, "repeats", repetitions, "repetitions")
    check_send_order(send_order)
    if hosts is None:
        pair = [h.name for h in emu.topo.diameter_pair()]
        hosts = pair + [h.name for h in emu.topo.hosts if h.name not in pair]
        partner = partner or pair[1]
    partner = partner or median_hop_host(emu, hosts)
    if partner not in hosts[1:]:
        raise RunFailed(f"the t_end partner {partner} is not one of the hosts after the "
                        f"first ({', '.join(hosts)})")
    res = run_mpi(emu, params_program.argv(sizes=sizes, repeats=repetitions, dummy_max=dummy_max,
                                           send_order=send_order,
                                           budget_bytes=budget_bytes or None,
                                           partner=hosts.index(partner),
                                           dummy_fractions=dummy_fractions,
                                           dummy_runs=dummy_runs,
                                           pin_pair=pin_pair or None,
                                           hold_sends=hold_sends),
                  hosts=hosts,
                  timeout=params_timeout(sizes, repetitions, len(hosts), budget_bytes,
                                         hold_sends, dummy_max, emu.topo.host_rate(),
                                         dummy_fractions, dummy_runs))
    out = {**last_json(res), "hosts": hosts, "root": hosts[0], "partner_host": partner,
           "partner_hops": emu.topo.hops(hosts[0], partner)}
    out["wire_check"] = model_inputs.check(out, emu.topo.host_rate())
    return out


PARAMS_TIMEOUT_S = 900.0  # at least; more where the bytes to send take longer (below)


def params_timeout(sizes: list[int], repetitions: int, hosts: int, budget_bytes: int | None,
                   hold_sends: int | None, dummy_max: int, mbit: float | None,
                   dummy_fractions: tuple[float, ...] | None = None,
                   dummy_runs: int | None = None) -> float:
    """The t_hold/t_end job's timeout: PARAMS_TIMEOUT_S, or four times the time its bytes
    take on the first host's link where that is longer. Per size m: t_hold's rounds of
    `hold_sends` messages (collectives.measured.hold_rounds), 2 x `repetitions` timed
    ping-pong runs of reps(m) round trips, and the dummy loop's sweep up to `dummy_max`
    (`dummy_fractions` and `dummy_runs` as given to the program, else its defaults).
    64 hosts at 3 Mbit/s, 1 B to 1 MiB, took longer than 900 s (63 sends of 1 MiB are 176 s
    a round; 2026-12-07)."""
    if not mbit:
        return PARAMS_TIMEOUT_S
    sends = hold_sends or hosts - 1
    points = len(dummy_fractions or params_program.DUMMY_FRACTIONS) * \
        (dummy_runs or params_program.DUMMY_RUNS)
    total = 0
    for m in sizes:
        k = measured.reps(m, budget_bytes) if budget_bytes else measured.reps(m)
        trips = 2 * repetitions * k
        if m <= dummy_max:  # runs of k / 4 round trips, each with a dummy loop of 2 t_end
            trips += 2 * points * -(-k // 4)  # on average
        total += measured.hold_rounds(m, repetitions) * sends * m + trips * 2 * m
    return max(PARAMS_TIMEOUT_S, 4 * total * 8 / (mbit * 1e6))


def median_hop_host(emu: Emulation, hosts: list[str]) -> str:
    """Of `hosts` after the first (a broadcast's root), the one at the median hop count
    from the first (the lower median; ties: the first in order)."""
    others = hosts[1:]
    if not others:
        raise RunFailed("t_hold/t_end need at least two hosts")
    by = sorted(others, key=lambda h: emu.topo.hops(hosts[0], h))
    return by[(len(by) - 1) // 2]


def model_params(emu: Emulation, *sizes: int) -> dict[str, Any]:
    """t_hold/t_end at a broadcast's message size (or at each of several) for the model
    (Ping and PingPong only, 1 MiB per timed run: seconds, not a minute, at 10 Mbit/s)."""
    return measure_params(emu, sorted({max(size, 1) for size in sizes}), repetitions=3,
                          dummy_max=0, budget_bytes=1 << 20)


def point_to_point(params: dict[str, Any], sends: int | None = None) -> MeasuredPointToPoint:
    """t_hold(m) and t_end(m) from measure_params, t_hold at `sends` back-to-back sends
    (None: the most measured; testbed.experiments.model_inputs)."""
    return model_inputs.point_to_point(params, sends)


# MPICH's own MPI_Bcast algorithms, chosen with its control variables (MPICH 4/5 names),
# and the MPI_Ibcast algorithm of each: ranks that wait asleep (collectives.waiting) run
# MPI_Ibcast, whose algorithms have names of their own.
MPICH_ALGORITHMS = ("auto", "binomial", "scatter_recursive_doubling_allgather",
                    "scatter_ring_allgather", "pipelined_tree", "tree", "smp", "nb")
MPICH_IBCAST = {"auto": "auto", "binomial": "sched_binomial", "smp": "sched_smp",
                "scatter_recursive_doubling_allgather":
                    "sched_scatter_recursive_doubling_allgather",
                "scatter_ring_allgather": "sched_scatter_ring_allgather",
                "pipelined_tree": "tsp_tree", "tree": "tsp_tree", "nb": "auto"}


def mpich_env(mpich_algorithm: str) -> dict[str, str]:
    """The control variables that make MPI_Bcast use `mpich_algorithm` (one of
    MPICH_ALGORITHMS) and MPI_Ibcast its counterpart, with MPICH's device-level collectives
    off so the choice is honoured."""
    return {"MPIR_CVAR_BCAST_INTRA_ALGORITHM": mpich_algorithm,
            "MPIR_CVAR_IBCAST_INTRA_ALGORITHM": MPICH_IBCAST[mpich_algorithm],
            "MPIR_CVAR_BCAST_DEVICE_COLLECTIVE": "0",
            "MPIR_CVAR_IBCAST_DEVICE_COLLECTIVE": "0"}


def algorithm_params(algorithm: Named, size: int, params: dict[str, Any] | None,
                     hosts: int | None = None,
                     placement: dict[str, Any] | None = None) -> dict[str, Any]:
    """What `collectives.bcast` needs besides the algorithm's name and where the ranks sit:
    t_hold/t_end of this size for OPT-Tree, OPT-Mesh, OPT-Min and DYN-Tree (from
    measure_params), t_hold at the count of back-to-back sends the tree settles at on
    `hosts` ranks (testbed.experiments.model_inputs); DYN-Tree and DYN-Mesh get their six
    static terms from the same figures (collectives.trees.dyntree.from_measured).
    `algorithm`: a call's record (no look-up), or a name."""
    a = resolve("bcast", algorithm)
    if not a.timing:
        return {}
    if not params:
        raise RunFailed(f"{a.name} needs measured t_hold/t_end (measure them first)")
    return model_inputs.timing_options(a.name, size, params, hosts, placement)


def uses_params(algorithm: Named) -> bool:
    """Whether measured t_hold/t_end change anything for `algorithm`: its schedule takes them
    (algorithm_params) or the model predicts it (prediction: a model tree, or a contention
    tree placed on its network). MPI_Bcast, the multicast and the range-multicast
    broadcasts run and are reported the same without them."""
    a = resolve("bcast", algorithm)
    return a.timing or a.model_tree or a.family == "contention"


def prediction(algorithm: Named, k: int, size: int, params: dict[str, Any] | None,
               fragment: int | None = None,
               placement: dict[str, Any] | None = None) -> float | None:
    """The t_hold/t_end model's latency (None without measured parameters, or for an
    algorithm without a schedule). DYN-Tree and DYN-Mesh: the model has no load, so
    OPT-Tree's and OPT-Mesh's. The topology algorithms need `placement`
    (testbed.experiments.rank_placement.node_params); the model sees their order of sends, not
    the contention they avoid."""
    a = resolve("bcast", algorithm)
    scheduled = a.zero_load
    placed = a.zero_load_algorithm.family == "contention" and placement
    if not params or (not a.model_tree and not placed):
        return None
    extra: dict[str, Any] = {"fragment": fragment} if fragment is not None else {}
    if placed:
        extra |= placement or {}
    p2p = point_to_point(params, model_inputs.sends_for(scheduled, k, size, params,
                                                        placement if placed else None,
                                                        fragment))
    return predict(build(scheduled, k, 0, size, t_hold=p2p.t_hold(size),
                         t_end=p2p.t_end(size), **extra), p2p)


def _dyn_trees(parents: list[list[int | None]] | None, k: int, size: int,
               params: dict[str, Any] | None) -> dict[str, Any] | None:
    """DYN-Tree's tree of every measured broadcast beside OPT-Tree's from the same t_hold and
    t_end (what DYN-Tree builds at zero load, Nupairoj1998 section 6.3), and the share of
    broadcasts whose tree was OPT-Tree's."""
    if parents is None:
        return None
    opt = None
    if params:
        opt = build("opt-tree", k, 0, size,
                    **model_inputs.timing_options("opt-tree", size, params, k)).parents()
    same = sum(p == opt for p in parents) / len(parents) if opt and parents else None
    return {"parents": parents, "opt_tree_parents": opt, "same_as_opt_tree": same}


def tcp_note(tcp: dict[str, int]) -> str:
    """What TCP did meanwhile, for the message of a job that failed (its MPI messages go
    over TCP: under loss a stall may be TCP's backoff, not the algorithm)."""
    return (f"; meanwhile TCP on its hosts retransmitted {tcp['retrans_segs']} segment(s), "
            f"{tcp['timeouts']} of them after a retransmission timeout")


def run_bcast(emu: Emulation, call: BcastCall, *,
              hosts: int | list[str] | None = None,
              repetitions: int = 20, flow: bool = True,
              params: dict[str, Any] | None = None,
              mpich_algorithm: str | None = None,
              wait: str | None = None, loss: float = 0.0, loss_scope: str = "all",
              frames: int = 0, timeout: float = 900, naive: int = 0,
              late: tuple[str, float] | None = None,
              iters: int | None = None, warmup: int | None = None) -> BcastResult:
    """One measured broadcast experiment of `call` (collectives.call.BcastCall: algorithm,
    size, root, send order, completion, the algorithm's own options), with the model's
    prediction where one exists, as a BcastResult (the names below are its record's keys).
    `hosts`: the first so many hosts, or these host names in rank order (default all).
    `params` (from measure_params) gives t_hold/t_end; opt-tree needs them.
    `mpich_algorithm` picks MPI_Bcast's algorithm (MPIR_CVAR_BCAST_INTRA_ALGORITHM, with
    MPICH's device-level collectives off so the choice is honoured). `wait` sets how the
    ranks wait (MCASTLAB_WAIT: block, spin, yield, sleep; collectives.waiting). `loss`
    is set on every host link for this run (and taken off after); `frames` > 0 counts the
    frames of that many back-to-back broadcasts on the switch ports, per host (`frames`)
    and as bytes per broadcast on each directed link that carried any (`link_bytes`,
    keyed "a>b"); `frames` also splits the frames sent into TCP's pure ACKs (`acks`) and
    the frames that carry data (`data`: segments with payload, datagrams), testbed.emulation.
    frame_count. Per rank (hosts in `rank_hosts`), the median time from the root's call
    to the moment the rank held the whole message (`rank_done_s`; `rank_done_from` says
    whether the algorithm reported it or the rank's return stood in) and to its return
    (`rank_return_s`): see collectives.programs.bcast_bench.rank_completion. The call's
    send order and completion are recorded (None for an algorithm that has none). `timing`
    says how `t_mcast_s` was measured: "direct" (the last rank's return less the root's
    call, on the one clock every host of a server shares) or, when the ranks span servers,
    "flow" (Nupairoj's flow latency, which needs no shared clock; the direct figures, the
    per-rank ones too, are kept in `direct_across_servers`, for comparison only). `naive`
    > 0 also times Nupairoj's Algorithm 3.3.1 (loops of that many back-to-back broadcasts,
    the root's time over their number: `naive_s`, the benchmark's pitfall, for comparison).
    `root_queue`: the point-to-point trees' sending queue at the root, from the call to when
    each of its messages started leaving the host and had left (collectives.sent.summary).
    `late` = (side, ms): "root" or "receivers" call every broadcast that much after the
    others (Siebert2006's root last and root first), and the record gets the final phase,
    from the last call to the last return (`final_phase_s`). `warmup`: untimed broadcasts
    before the `repetitions` (None: the benchmark's own, 3), as an experiment spec's
    `warmup` sets them for its points."""
    repetitions = renamed_keyword(iters, "iters", repetitions, "repetitions")
    env = job_env(call.algorithm, wait, mpich_algorithm)
    names = rank_hosts(emu, hosts)
    ranked, placement = ranked_call(emu, call, names, params)
    check_late(late)
    servers = job_servers(emu, names, flow)
    if not 0 <= loss <= 1:
        raise RunFailed(f"loss is a fraction in [0, 1], got {loss!r}")
    pids = [emu.host(n).pid for n in names]
    counted = emu.controller is not None or emu.hub  # a hub's counters are the kernel's
    counter = FrameCounter(emu, pids) if frames > 0 and counted else None
    args = bench_argv(ranked, iters=repetitions, warmup=warmup, flow=flow, naive_loop=naive,
                      late=late,
                      mark_dir=str(counter.dir) if counter is not None else None,
                      frame_iters=frames)
    tcp_before = tcp_stats.counters(pids)
    if loss:
        emu.set_loss(loss, scope=loss_scope)
    try:
        with counter or contextlib.nullcontext():
            res = last_json(run_mpi(emu, args, hosts=names, timeout=timeout, env=env,
                                    together=True))
    except RunFailed as e:
        raise RunFailed(f"{e}{tcp_note(tcp_stats.since(tcp_before, pids))}") from e
    finally:
        if loss:
            emu.set_loss(0)
    return result_of(emu, call, res, names=names, servers=servers, params=params,
                     placement=placement, repetitions=repetitions,
                     mpich_algorithm=mpich_algorithm, wait=wait, late=late, loss=loss,
                     loss_scope=loss_scope, tcp=tcp_stats.since(tcp_before, pids),
                     counter=counter, frames=frames)


def job_env(algorithm: str, wait: str | None, mpich_algorithm: str | None) -> dict[str, str]:
    """The ranks' environment: how they wait (MCASTLAB_WAIT), MPI_Bcast's algorithm."""
    env: dict[str, str] = {}
    if wait is not None:
        if wait not in WAIT_MODES:
            raise RunFailed(f"unknown wait mode '{wait}' (one of {', '.join(WAIT_MODES)})")
        env["MCASTLAB_WAIT"] = wait
    if mpich_algorithm is not None:
        if algorithm != NATIVE or mpich_algorithm not in MPICH_ALGORITHMS:
            raise RunFailed(f"an MPICH algorithm ({', '.join(MPICH_ALGORITHMS)}) applies to "
                            f"--algo {NATIVE} only")
        env |= mpich_env(mpich_algorithm)
    return env


def rank_hosts(emu: Emulation, hosts: int | list[str] | None) -> list[str]:
    """The host of every rank: the first `hosts` hosts, these names, or all."""
    return (list(hosts) if isinstance(hosts, list)
            else [h.name for h in emu.topo.hosts][: hosts or len(emu.topo.hosts)])


def rank_options(topo: Topology, algorithm: Named, size: int, names: list[str],
                 params: dict[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """What a job's ranks on `names` (in rank order) are given for `algorithm` at `size`
    bytes: its timing options (algorithm_params: t_hold at the count of sends its tree
    settles at on these ranks, and t_end) and where they sit (node_params). Whoever
    predicts the tree the ranks build takes both from here (bench.contention.placed_sends):
    at 64 KiB on 10 Mbit/s links t_hold is close to t_end, where OPT-Tree's and OPT-Mesh's
    split turns (t_hold passing t_end), so t_hold at another count can build another
    tree. `algorithm`: a call's record (no look-up), or a name."""
    a = resolve("bcast", algorithm)
    placement = node_params(topo, a, names)
    return algorithm_params(a, size, params, len(names), placement), placement


def ranked_call(emu: Emulation, call: BcastCall, names: list[str],
                params: dict[str, Any] | None) -> tuple[BcastCall, dict[str, Any]]:
    """`call` with what its algorithm needs on these ranks (rank_options: t_hold/t_end,
    where they sit), checked; and the placement (RunFailed for a call the ranks cannot
    run)."""
    timing, placement = rank_options(emu.topo, call.record, call.size, names, params)
    ranked = call.with_options(**timing, **placement)
    try:
        ranked.check(len(names))
    except ValueError as e:
        raise RunFailed(str(e)) from None
    return ranked, placement


def check_late(late: tuple[str, float] | None) -> None:
    if late is not None:
        side, ms = late
        if side not in ("root", "receivers") or not 0 <= ms <= 10_000:
            raise RunFailed(f"late is (root|receivers, 0-10000 ms), got {late!r}")


def job_servers(emu: Emulation, names: list[str], flow: bool) -> list[str]:
    """The servers the ranks run on; RunFailed where they span several without the
    flow-latency benchmark (the direct t_mcast reads one clock on every rank)."""
    servers = emu.spread.servers_of(names)
    if not flow and len(servers) > 1:
        raise RunFailed(f"ranks on {len(servers)} servers share no clock: the flow-latency "
                        "benchmark is the measure there (flow=True)")
    return servers


def result_of(emu: Emulation, call: BcastCall, res: dict[str, Any], *, names: list[str],
              servers: list[str], params: dict[str, Any] | None, placement: dict[str, Any],
              repetitions: int, mpich_algorithm: str | None, wait: str | None,
              late: tuple[str, float] | None, loss: float, loss_scope: str,
              tcp: dict[str, int], counter: FrameCounter | None, frames: int,
              bracket: str = "bcast") -> BcastResult:
    """The BcastResult of one broadcast's record `res` (collectives.programs.bcast_bench);
    its frames from `counter`'s `bracket`."""
    size = call.size
    per_frame = counter.per_iteration(frames, bracket) if counter is not None else None
    per_link = counter.link_bytes(frames, bracket) if counter is not None else None
    predicted = prediction(call.record, len(names), size, params, call.options.get("fragment"),
                           placement)
    t = Times.of({k: res["t_mcast_s"][k] for k in TIMES})  # the record's five, as ever
    timing: Literal["direct", "flow"] = "direct"
    direct = None
    done, back = (None if res.get(k) is None else tuple(res[k])
                  for k in ("rank_done_s", "rank_return_s"))
    if len(servers) > 1:  # no shared clock: the flow-latency figure is the measure (one mean)
        timing = "flow"
        direct = {"t_mcast_s": t.to_dict(), "rank_done_s": res.get("rank_done_s"),
                  "rank_return_s": res.get("rank_return_s")}
        t = Times.constant(res["flow"]["t_mcast_s"])
        done = back = None
    return BcastResult(
        call=call, rank_hosts=tuple(names), iterations=repetitions, t_mcast=t, timing=timing,
        verified=res["verified"], predicted_s=predicted, topology=emu.topo.name,
        switch=emu.switch.name, window=(res["window"][0], res["window"][1]),
        servers=tuple(servers), mpich_algorithm=mpich_algorithm, wait=wait or DEFAULT_WAIT,
        rank_done_s=done, rank_return_s=back, rank_done_from=res.get("rank_done_from"),
        direct_across_servers=direct, flow=res.get("flow"),
        flow_vs_direct=res.get("flow_vs_direct"), cpu=res.get("cpu"),
        datagrams=res.get("datagrams"), naive_s=res.get("naive_s"),
        root_queue=res.get("root_queue"), late=late, final_phase_s=res.get("final_phase_s"),
        loss=loss, loss_scope=loss_scope if loss else None, tcp=tcp, frames=per_frame,
        link_bytes=None if per_link is None else {
            f"{a}>{b}": round(v) for (a, b), v in per_link.items() if round(v) > 0},
        dyn_tree=_dyn_trees(res.get("dyn_parents"), len(names), size, params))
