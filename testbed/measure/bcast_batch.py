"""Several measured broadcasts in one MPI job: the job's start-up (hydra's proxies on every
host, MPI's connections, the ranks' imports: about 2 s on 16 hosts here) is paid once for
all of them, and they are measured side by side, one after the other, on the same ranks.
Each broadcast's record is the one run_bcast would give (testbed.measure.bcast), its
window its own, so the fidelity monitor judges it alone (testbed.bench.points). A job that
fails keeps what it measured before; the rest is measured one job each, so that a failure
names the broadcast that caused it."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from collectives.call import BcastCall
from collectives.programs.bcast_bench import batch_argv, bracket

from ..emulation import tcp_stats
from ..emulation.frame_count import FrameCounter
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed
from .bcast import BCAST, ranked_call, result_of, run_bcast
from .bcast_result import BcastResult
from .job import check_late, job_env, job_servers, rank_hosts, tcp_note
from .options import RunOptions


@dataclass(frozen=True)
class Batched:
    """One broadcast of a batch: its key, the call, and what run_bcast takes per broadcast
    (repetitions, warmup, naive, late, frames)."""

    key: str
    call: BcastCall
    repetitions: int = 20
    warmup: int | None = None
    naive: int = 0
    late: tuple[str, float] | None = None
    frames: int = 0


def run_bcasts(emu: Emulation, batch: Sequence[Batched], options: RunOptions | None = None,
               rounds: int = 1) -> dict[str, BcastResult | RunFailed]:
    """Every broadcast of `batch` on the same ranks, in one MPI job (run_bcast's `options`
    for what they share: hosts, flow, params, mpich_algorithm, wait, loss, loss_scope,
    timeout; each Batched its own repetitions, warmup, naive, late and frames), by key:
    its BcastResult, or the RunFailed of the job that measured it alone after the shared
    one failed. `rounds` > 1: their measured broadcasts take turns, in that many rounds
    (bcast_bench --rounds: each record's window then spans them all)."""
    if len({b.key for b in batch}) != len(batch):
        raise ValueError("the keys of a batch must differ")
    if not batch:
        return {}
    options = options or RunOptions()
    loss, loss_scope, params = options.loss, options.loss_scope, options.params
    env = job_env(batch[0].call.algorithm, options.wait, options.mpich_algorithm)
    names = rank_hosts(emu, options.hosts)
    ranked = {b.key: ranked_call(emu, b.call, names, params) for b in batch}
    for b in batch:
        check_late(b.late)
    servers = job_servers(emu, names, options.flow)
    pids = [emu.host(n).pid for n in names]
    counted = emu.controller is not None or emu.hub
    counter = (FrameCounter(emu, pids) if counted and any(b.frames for b in batch)
               else None)
    entries = [{"key": b.key, "call": ranked[b.key][0].to_dict(), "iters": b.repetitions,
                **({"warmup": b.warmup} if b.warmup is not None else {}),
                "naive_loop": b.naive, "late": list(b.late) if b.late else None,
                "frame_iters": b.frames if counter is not None else 0} for b in batch]
    args = batch_argv(entries, flow=options.flow, rounds=rounds,
                      mark_dir=str(counter.dir) if counter is not None else None)
    tcp_before = tcp_stats.counters(pids)
    if loss:
        emu.set_loss(loss, scope=loss_scope)
    failed: RunFailed | None = None
    try:
        with counter or contextlib.nullcontext():
            try:
                job = run_mpi(emu, args, hosts=names, timeout=BCAST.of(options)[2], env=env,
                              together=True)
                output = job.rank_output.get(0, "")
            except RunFailed as e:
                failed = RunFailed(f"{e}{tcp_note(tcp_stats.since(tcp_before, pids))}")
                output = e.output
            records = {r["key"]: r for r in _records(output)}
            tcp = tcp_stats.since(tcp_before, pids)
            out: dict[str, BcastResult | RunFailed] = {}
            for i, b in enumerate(batch):
                if b.key in records:
                    out[b.key] = result_of(
                        emu, b.call, records[b.key],
                        own(options, b, frames=b.frames if counter is not None else 0),
                        names=names, servers=servers, placement=ranked[b.key][1], tcp=tcp,
                        counter=counter, bracket=bracket(i))
    finally:
        if loss:
            emu.set_loss(0)
    for b in batch:
        if b.key not in out:
            out[b.key] = _alone(emu, b, failed, replace(options, hosts=names))
    return out


def own(options: RunOptions, b: Batched, frames: int | None = None) -> RunOptions:
    """The batch's `options` with what `b` takes per broadcast (`frames`: these instead)."""
    return replace(options, repetitions=b.repetitions, warmup=b.warmup, naive=b.naive,
                   late=b.late, frames=b.frames if frames is None else frames)


def _records(output: str) -> list[dict[str, Any]]:
    out = []
    for line in output.splitlines():
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                rec = json.loads(line)
                if isinstance(rec, dict) and "key" in rec:
                    out.append(rec)
    return out


def _alone(emu: Emulation, b: Batched, failed: RunFailed | None, options: RunOptions
           ) -> BcastResult | RunFailed:
    """A broadcast the shared job did not report, measured in a job of its own."""
    try:
        return run_bcast(emu, b.call, own(options, b))
    except RunFailed as e:
        return e if failed is None else RunFailed(f"{e} (in the shared job before: {failed})")
