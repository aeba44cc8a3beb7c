"""One measured broadcast on the network that is up (collectives.programs.bcast_bench):
its call ranked for these hosts, the job run under loss and frame counting as asked, and
its record as a BcastResult with the model's prediction (testbed.measure.bcast_model)."""

from __future__ import annotations

import contextlib
from dataclasses import replace
from typing import Any, Literal

from collectives.call import BcastCall
from collectives.programs.bcast_bench import argv as bench_argv
from collectives.waiting import DEFAULT as DEFAULT_WAIT

from ..emulation import tcp_stats
from ..emulation.frame_count import FrameCounter
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed
from .bcast_model import dyn_trees, prediction, rank_options
from .bcast_result import BcastResult
from .job import check_late, job_env, job_servers, last_json, rank_hosts, tcp_note
from .options import Defaults, RunOptions
from .times import TIMES, Times

BCAST = Defaults(repetitions=20, warmup=None, timeout=900)  # warmup None: bcast_bench's 3


def run_bcast(emu: Emulation, call: BcastCall, options: RunOptions | None = None
              ) -> BcastResult:
    """One measured broadcast experiment of `call` (collectives.call.BcastCall: algorithm,
    size, root, send order, completion, the algorithm's own options), with the model's
    prediction where one exists, as a BcastResult (the names below are its record's keys).
    `options` (testbed.measure.options.RunOptions; its defaults here: BCAST):
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
    repetitions, warmup, timeout = BCAST.of(options := options or RunOptions())
    options = replace(options, repetitions=repetitions, warmup=warmup, timeout=timeout)
    loss, frames = options.loss, options.frames
    env = job_env(call.algorithm, options.wait, options.mpich_algorithm)
    names = rank_hosts(emu, options.hosts)
    ranked, placement = ranked_call(emu, call, names, options.params)
    check_late(options.late)
    servers = job_servers(emu, names, options.flow)
    if not 0 <= loss <= 1:
        raise RunFailed(f"loss is a fraction in [0, 1], got {loss!r}")
    pids = [emu.host(n).pid for n in names]
    counted = emu.controller is not None or emu.hub  # a hub's counters are the kernel's
    counter = FrameCounter(emu, pids) if frames > 0 and counted else None
    args = bench_argv(ranked, iters=repetitions, warmup=warmup, flow=options.flow,
                      naive_loop=options.naive, late=options.late,
                      mark_dir=str(counter.dir) if counter is not None else None,
                      frame_iters=frames)
    tcp_before = tcp_stats.counters(pids)
    if loss:
        emu.set_loss(loss, scope=options.loss_scope)
    try:
        with counter or contextlib.nullcontext():
            res = last_json(run_mpi(emu, args, hosts=names, timeout=timeout, env=env,
                                    together=True))
    except RunFailed as e:
        raise RunFailed(f"{e}{tcp_note(tcp_stats.since(tcp_before, pids))}") from e
    finally:
        if loss:
            emu.set_loss(0)
    return result_of(emu, call, res, options, names=names, servers=servers,
                     placement=placement, tcp=tcp_stats.since(tcp_before, pids),
                     counter=counter)


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


def result_of(emu: Emulation, call: BcastCall, res: dict[str, Any], options: RunOptions, *,
              names: list[str], servers: list[str], placement: dict[str, Any],
              tcp: dict[str, int], counter: FrameCounter | None,
              bracket: str = "bcast") -> BcastResult:
    """The BcastResult of one broadcast's record `res` (collectives.programs.bcast_bench);
    its frames from `counter`'s `bracket`; `options` as the job ran it."""
    size, params, frames, loss = call.size, options.params, options.frames, options.loss
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
        call=call, rank_hosts=tuple(names), iterations=BCAST.of(options)[0], t_mcast=t,
        timing=timing,
        verified=res["verified"], predicted_s=predicted, topology=emu.topo.name,
        switch=emu.switch.name, window=(res["window"][0], res["window"][1]),
        servers=tuple(servers), mpich_algorithm=options.mpich_algorithm,
        wait=options.wait or DEFAULT_WAIT,
        rank_done_s=done, rank_return_s=back, rank_done_from=res.get("rank_done_from"),
        direct_across_servers=direct, flow=res.get("flow"),
        flow_vs_direct=res.get("flow_vs_direct"), cpu=res.get("cpu"),
        datagrams=res.get("datagrams"), naive_s=res.get("naive_s"),
        root_queue=res.get("root_queue"), late=options.late,
        final_phase_s=res.get("final_phase_s"),
        loss=loss, loss_scope=options.loss_scope if loss else None, tcp=tcp, frames=per_frame,
        link_bytes=None if per_link is None else {
            f"{a}>{b}": round(v) for (a, b), v in per_link.items() if round(v) > 0},
        dyn_tree=dyn_trees(res.get("dyn_parents"), len(names), size, params))
