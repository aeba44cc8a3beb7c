"""osu_bcast and osu_barrier (OSU micro-benchmarks 7.4, collectives.programs.osu) across the
emulated hosts, one rank per host, each row judged by the fidelity monitor over the
wall-clock window of its measured rounds."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from collectives.algorithms import DEFAULT_COMPLETION, DEFAULT_SEND_ORDER, Named, resolve
from collectives.programs import osu
from collectives.programs import osu as osu_program
from collectives.waiting import DEFAULT as DEFAULT_WAIT
from topologies.model import Topology

from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation
from ..errors import RunFailed, renamed_keyword
from ..fidelity.flags import Monitor
from ..measure.bcast_model import algorithm_params
from ..measure.params import model_params
from ..measure.rank_placement import node_params

PER_MESSAGE_S = 0.005  # what a send costs besides the wire, at the most (Python, MPI, waking)


@dataclass(frozen=True)
class OsuRow:
    """One row of the OSU output: its size (None: osu_barrier's one row), OSU's average,
    minimum and maximum latency over the ranks (µs), its rounds, the wall-clock window of
    the measured ones, how long the ranks waited for a core a turn, the fidelity monitor's
    verdict over that window, and the row's OSU line."""

    size: int | None
    avg_us: float
    min_us: float
    max_us: float
    iterations: int
    skip: int
    window: tuple[float, float]
    wait_per_turn_s: float | None
    fidelity: dict[str, Any]
    line: str

    @property
    def flags(self) -> list[str]:
        return list(self.fidelity["flags"])


@dataclass(frozen=True)
class OsuResult:
    """run_osu's result (which says what it holds); `to_dict` is the record."""

    benchmark: str
    osu_version: str
    algorithm: str
    params: dict[str, Any]
    timing: dict[str, Any] | None
    topology: str
    switch: str
    rank_hosts: tuple[str, ...]
    full: bool
    wait: str
    mpi4py: str
    mpi_library: str
    send_order: str | None
    completion: str | None
    head_lines: tuple[str, ...]
    rows: tuple[OsuRow, ...]

    @property
    def hosts(self) -> int:
        return len(self.rank_hosts)

    @property
    def lines(self) -> list[str]:
        """The OSU output: the head's lines, then each row's."""
        return [*self.head_lines, *(r.line for r in self.rows)]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        del d["head_lines"]
        return d | {"hosts": self.hosts, "rank_hosts": list(self.rank_hosts),
                    "lines": self.lines,
                    "rows": [asdict(r) | {"window": list(r.window)} for r in self.rows]}


def rounds(bench: str, sizes: tuple[int, int], iterations: int | None,
           skip: int | None, listed: Sequence[int] | None = None
           ) -> list[tuple[int | None, int, int]]:
    """(size, iterations, skip) of every row (size None: osu_barrier's one row): the sizes
    `listed`, or those doubling from sizes[0] up to sizes[1]."""
    if bench == "barrier":
        return [(None, *osu.barrier_plan(iterations, skip))]
    if listed is not None:
        return [*osu.listed(listed, iterations, skip)]
    return [*osu.plan(*sizes, iterations, skip)]


def timeout_s(plan: list[tuple[int | None, int, int]], ranks: int,
              mbit: float | None) -> float:
    """A bound on the job: every round as slow as the root sending the message to every
    other rank in turn, three times over, and five minutes for the start."""
    per_bit = 1 / ((mbit or 1000) * 1e6)
    worst = sum((it + sk) * (ranks - 1) * ((size or 0) * 8 * per_bit + PER_MESSAGE_S)
                for size, it, sk in plan)
    return 300 + 3 * worst


def placed(topo: Topology, bench: str, algorithm: Named,
           hosts: int | None = None) -> tuple[list[str], dict[str, Any]]:
    """The ranks' hosts (the first `hosts`, default all) and what `algorithm` is told about
    where they sit (nodes= and the network's shape, or {}); RunFailed where the topology
    gives fewer than two ranks or does not fit the algorithm."""
    names = [h.name for h in topo.hosts][: hosts or len(topo.hosts)]
    if len(names) < 2:
        raise RunFailed(f"osu_{bench} needs at least two ranks, one per host; "
                        f"{topo.name} has {len(names)}")
    return names, node_params(topo, algorithm, names, bench)


def run_osu(emu: Emulation, bench: str, algorithm: Named, *, hosts: int | None = None,
            sizes: tuple[int, int] = (osu.MIN_MESSAGE_SIZE, osu.MAX_MSG_SIZE_COLL),
            repetitions: int | None = None, skip: int | None = None, full: bool = False,
            wait: str | None = None,
            progress: Callable[[str], None] | None = None,
            iterations: int | None = None, listed: Sequence[int] | None = None) -> OsuResult:
    """collectives.programs.osu `bench` (bcast, allgather or barrier) with `algorithm` on the first
    `hosts` hosts (default all), at the sizes doubling from sizes[0] to sizes[1] (OMB's -m),
    or those `listed` (mcastlab osu --size). Broadcasts that take the model's t_hold/t_end get them
    measured at every size of the sweep (as `mcastlab bcast` does at its one size), those
    that follow the network's shape get nodes= and its shape (testbed.measure.rank_placement,
    RunFailed where the topology does not fit). `wait`: how the ranks wait (MCASTLAB_WAIT,
    collectives.waiting; `spin` is MPICH's own busy waits, as OSU's C programs wait).
    An OsuResult: `lines` the OSU output, line by line; `rows` each row's numbers (µs), its
    window and its fidelity."""
    repetitions = renamed_keyword(iterations, "iterations", repetitions, "repetitions")
    say = progress or (lambda _msg: None)
    try:  # a record passes through; a name is looked up here (the registry's words)
        record = resolve(bench, algorithm)
    except ValueError as e:
        raise RunFailed(str(e)) from None
    algorithm = record.name
    names, params = placed(emu.topo, bench, record, hosts)
    plan = rounds(bench, sizes, repetitions, skip, listed)
    # iterations, skip None: OMB's own counts, small and large (the program's)
    args = osu_program.argv(bench=bench, algorithm=algorithm, records=True,
                            iterations=repetitions, warmup=skip, full=full,
                            message_size=None if bench == "barrier" or listed is not None
                            else f"{sizes[0]}:{sizes[1]}",
                            sizes=None if bench == "barrier" else listed,
                            params=json.dumps(params) if params else None)
    timing: dict[str, Any] = {}
    if record.timing:
        say(f"measuring t_hold/t_end at {len(plan)} sizes for {algorithm}")
        bcast_sizes = [size for size, _, _ in plan if size is not None]  # all, for bcast
        measured = model_params(emu, *bcast_sizes)
        timing = {str(size): algorithm_params(record, size, measured)
                  for size in bcast_sizes}
        args += ["--timing", json.dumps(timing)]
    say(f"osu_{bench} with {algorithm} on {len(names)} hosts of {emu.topo.name}"
        + (f", {len(plan)} sizes {plan[0][0]} to {plan[-1][0]} B" if bench != "barrier"
           else ""))
    with Monitor(emu.topo, emu.spread) as mon:
        res = run_mpi(emu, args, hosts=names,
                      timeout=timeout_s(plan, len(names), emu.topo.host_rate()),
                      env={"MCASTLAB_WAIT": wait} if wait else None)
    records = [json.loads(ln) for ln in res.rank_output.get(0, "").splitlines()
               if ln.startswith('{"record"')]
    head = next((r for r in records if r["record"] == "head"), None)
    rows = [r for r in records if r["record"] == "row"]
    if head is None or len(rows) != len(plan):
        raise RunFailed(f"osu_{bench} printed {len(rows)} of {len(plan)} rows")
    return OsuResult(
        benchmark=head["benchmark"], osu_version=head["osu_version"], algorithm=algorithm,
        params=params, timing=timing or None, topology=emu.topo.name, switch=emu.switch.name,
        rank_hosts=tuple(names), full=full, wait=wait or DEFAULT_WAIT, mpi4py=head["mpi4py"],
        mpi_library=head["mpi_library"],
        send_order=((params or {}).get("send_order", DEFAULT_SEND_ORDER)
                    if bench == "bcast" and record.send_order else None),
        completion=((params or {}).get("completion", DEFAULT_COMPLETION)
                    if bench == "bcast" and record.completion else None),
        head_lines=tuple(head["lines"]),
        rows=tuple(OsuRow(size=r["size"], avg_us=r["avg_us"], min_us=r["min_us"],
                          max_us=r["max_us"], iterations=r["iterations"], skip=r["skip"],
                          window=(r["window"][0], r["window"][1]),
                          wait_per_turn_s=r["wait_per_turn_s"],
                          fidelity=mon.window(*r["window"], host_wait_s=r["wait_per_turn_s"]),
                          line=r["lines"][0])
                   for r in rows))
