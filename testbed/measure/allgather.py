"""Allgathers measured on the network that is up: one MPI job per algorithm measures every
block size (collectives.programs.allgather_bench) under the fidelity monitor, each size's
row judged over its own window (as it comes: testbed.measure.row_stream), with the
floor (p - 1) m / B, the exchanges' model from the measured t_end, and, when asked, the
frames on the wire against the count the schedule gives (collectives.exchanges.model)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from collectives.call import AllgatherCall
from collectives.exchanges import build, data_frames, floor_s, multicast_frames, predict_s
from collectives.programs import allgather_bench

from ..emulation.frame_count import FrameCounter
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed
from ..fidelity.flags import Monitor
from .job import rank_hosts
from .options import Defaults, RunOptions
from .params import point_to_point
from .row_stream import RowStream
from .times import Times


@dataclass(frozen=True)
class AllgatherResult:
    """One algorithm at one block size: `t` from the start (every rank, idle until then,
    going at one instant: `start` "start gun", else "first call") to the last rank's return
    over `repetitions` runs (`entry_spread_s`: each run's, how long after the start the last
    rank called: collectives.programs.allgather_bench); `floor_s`
    (p - 1) m / B; `predicted_s` the exchanges' model (None: no schedule, or no measured
    t_end); `frames` the counter's per-Allgather frames (sent, delivered, acks, data) and
    `frames_expected` the schedule's data frames; `rcvbuf` the multicast ones' group
    sockets: receive buffer asked and got, drops."""

    algorithm: str
    block: int
    ranks: int
    repetitions: int
    t: Times
    verified: bool
    floor_s: float | None
    predicted_s: float | None
    fidelity: dict[str, Any]
    window: tuple[float, float]
    loss: float = 0.0
    frames: dict[str, float | None] | None = None
    frames_expected: int | None = None  # data frames by the schedule; multicast: datagrams
    samples: tuple[float, ...] = ()
    rcvbuf: dict[str, Any] | None = None  # the multicast ones' sockets (ipmc.sockbuf.summary)
    entry_spread_s: tuple[float, ...] = ()
    start: str | None = None
    grtt_s: float | None = None  # the multicast ones' group round trip (ipmc.grtt)

    @property
    def flagged(self) -> bool:
        return bool(self.fidelity.get("flags"))

    @property
    def per_floor(self) -> float | None:
        """The median in multiples of the floor."""
        return self.t.median / self.floor_s if self.floor_s else None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["t_s"] = out.pop("t")
        return out | {"per_floor": self.per_floor}


ALLGATHER = Defaults(repetitions=10, warmup=2, timeout=600)


def run_allgather(emu: Emulation, call: AllgatherCall, blocks: Sequence[int],
                  options: RunOptions | None = None,
                  each: Callable[[AllgatherResult], None] | None = None
                  ) -> list[AllgatherResult]:
    """`call` (its algorithm looked up when it was made) at every size of `blocks` on the
    `options`' hosts (default all; its defaults here: ALLGATHER), one job; `params`
    (testbed.measure.params.model_params at the block sizes) prices the model; `loss` is
    set on every host link for the job, dropping the packets of `loss_scope`
    (testbed.specs.loss_scope); `frames` > 0 counts that many back-to-back Allgathers'
    frames per size. `each(result)`: a size's result as soon as it is measured and judged,
    while the job runs (not with `frames`: the counts are read once it ends); a size it is
    not called for is in the list returned (a job that measured some sizes and then failed:
    RunFailed, after `each` had the ones it did)."""
    algorithm = call.algorithm
    repetitions, warmup, timeout = ALLGATHER.of(options := options or RunOptions())
    params, loss, frames, wait = options.params, options.loss, options.frames, options.wait
    names = rank_hosts(emu, options.hosts)
    p, mbit = len(names), emu.topo.host_rate()
    counted = frames > 0 and (emu.controller is not None or emu.hub)
    counter = FrameCounter(emu, [emu.host(n).pid for n in names]) if counted else None
    args = allgather_bench.argv(call=call.to_json(), sizes=list(blocks), iters=repetitions,
                                warmup=warmup,
                                mark_dir=str(counter.dir) if counter is not None else None,
                                frame_iters=frames if counter is not None else 0)
    env = {"MCASTLAB_WAIT": wait} if wait else None
    family = call.record.family
    schedule = build(call.record, p) if family == "exchange" else None
    t_end = point_to_point(params).t_end if params else None

    def result(row: dict[str, Any]) -> AllgatherResult:
        m = row["size"]
        return AllgatherResult(
            algorithm=algorithm, block=m, ranks=p, repetitions=repetitions,
            t=Times.of(row["t_s"]), verified=row["verified"],
            floor_s=floor_s(p, m, mbit) if mbit and m else None,
            predicted_s=predict_s(schedule, m, t_end) if schedule and t_end else None,
            fidelity=row["fidelity"], window=(row["window"][0], row["window"][1]), loss=loss,
            frames=counter.per_iteration(frames, f"allgather-{m}") if counter else None,
            frames_expected=data_frames(schedule, m) if schedule else
            multicast_frames(p, m) if family == "multicast" else None,
            samples=tuple(row["samples_s"]), rcvbuf=row.get("rcvbuf"),
            entry_spread_s=tuple(row.get("entry_spread_s") or ()), start=row.get("start"),
            grtt_s=row.get("grtt_s"))

    def measured(row: dict[str, Any]) -> None:
        if each is not None and row.get("t_s"):
            each(result(row))

    if loss:
        emu.set_loss(loss, scope=options.loss_scope)
    try:
        with Monitor(emu.topo, emu.spread) as mon, counter or contextlib.nullcontext():
            stream = RowStream(mon, measured if each is not None and counter is None
                               else None)
            res = run_mpi(emu, args, hosts=names, timeout=timeout, env=env, check=False,
                          follow=stream.line, together=True)
        rows = stream.judge_rest()
    finally:
        if loss:
            emu.set_loss(0)
    if len(rows) < len(blocks) or not all(r["t_s"] for r in rows):
        tail = " ".join((res.stderr or res.stdout or "no output").split())[-400:]
        raise RunFailed(f"{algorithm}: allgather_bench measured {len(rows)} of {len(blocks)} "
                        f"sizes (exit {res.returncode}): {tail}")
    return [result(row) for row in rows]


def model_sizes(blocks: Sequence[int], ranks: int) -> list[int]:
    """Where to measure t_end for the model: the blocks and the largest message a step
    sends (half the blocks: recursive doubling's last), interpolated between."""
    return sorted({max(b, 1) for b in blocks} | {max(1, max(blocks) * max(1, ranks // 2))})
