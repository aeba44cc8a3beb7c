"""Tseng2001's multi-node multicast measured on a running torus or mesh: the job runner that
`mcastlab multinode`, `mcastlab bench --suite multinode`, `mcastlab reproduce` and a
[multinode] experiment spec share (`measured_rows`), and the spec's points as records
(`measure`).

One job (collectives.programs.multinode_bench, one rank per grid node, rank i on node i)
measures every factor, size and scheme of one sources count (or of the sets given); each row
it prints is judged by the fidelity monitor over the row's own window. A spec's records are
written as their rows come (testbed.experiments.points_once), in the middle of the job, as a
broadcast condition's are; a point its job printed no row for when it ended, then.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from collectives.partitioning import BY_NAME, Pairs, sets_text
from collectives.programs import multinode_bench

from ..emulation.mpi import MpiResult, run_mpi
from ..emulation.network import Emulation
from ..fidelity.flags import Monitor
from ..measure.row_stream import RowStream
from .points_once import Once
from .spec import ExperimentSpec, Point

# Tseng2001 on this testbed (testbed.bench.multinode): a 4x4 torus, 6 destinations per
# source, dilation 2, the draw of seed 0
SHAPE, DILATION, DESTS, SEED = (4, 4), 2, 6, 0
WAIT = "sleep"  # 16 ranks on 2 cores: see bench.range_trees.WAIT
Row = dict[str, Any]


def measured_rows(emu: Emulation, *, sources: int, sizes: Any, schemes: Any, factors: Any,
                  reps: int, seed: int = SEED, torus: tuple[int, int] = SHAPE,
                  dilation: int = DILATION, dests: int | None = DESTS, timeout: float = 1800.0,
                  wait: str = WAIT, kind: str = "torus", sets: Pairs | None = None,
                  each: Callable[[Row], None] | None = None) -> tuple[list[Row], MpiResult]:
    """One multinode_bench job on `emu` under the fidelity monitor: its rows, each with the
    monitor's verdict over the row's own window (`fidelity`: its flags and readings), and
    the job's result (its output, for a job that printed no row). `torus` is the grid's
    shape, `kind` says which grid ("torus" or "mesh"); `sets` replace the hot-spot draw.
    `each(row)`: a row as soon as it is printed and judged, while the job runs (the rows
    returned are all of them, those too)."""
    args = multinode_bench.argv(**{kind: torus}, dilation=dilation, sources=sources,
                                dests=dests, factors=factors, sizes=sizes, schemes=schemes,
                                reps=reps, seed=seed,
                                sets=None if sets is None else sets_text(sets))
    with Monitor(emu.topo) as mon:
        stream = RowStream(mon, each)
        res = run_mpi(emu, args, timeout=timeout, env={"MCASTLAB_WAIT": wait}, check=False,
                      follow=stream.line)
    return stream.judge_rest(), res


def point_config(spec: ExperimentSpec, p: Point) -> dict[str, Any]:
    """A multi-node multicast point's configuration, as its record carries it."""
    assert spec.multinode is not None
    m = spec.multinode
    return {"kind": "multinode", "algorithm": p.algorithm, "size": p.size,
            "hosts": p.hosts, "sources": p.sources, "factor": p.factor, "dests": m.dests,
            "dilation": m.dilation, "seed": spec.seed,
            m.grid.kind: [m.grid.rows, m.grid.cols],
            "topology": spec.topology.name, "switching": spec.switching,
            "repetitions": spec.repetitions, "wait": spec.wait,
            "link_mbit": spec.topology.host_rate()}


def measure(emu: Emulation, spec: ExperimentSpec, todo: Iterable[Point],
            write: Callable[[Row], None], context: Row, log: Callable[[str], None],
            started: Callable[[Sequence[Point], str], None] | None = None) -> None:
    """Measure `todo` (points of a [multinode] spec), one job per sources count, and
    `write` each point's record as its row comes (`context`: what every record carries
    besides, e.g. the link rate and the run). A point its job printed no row for is
    recorded as failed when the job ends. `started` hears of each job as it starts: its
    points and the line said of it."""
    m = spec.multinode
    assert m is not None
    by_sources: dict[int, list[Point]] = {}
    for p in todo:
        by_sources.setdefault(p.sources, []).append(p)
    for job, (sources, points) in enumerate(by_sources.items(), 1):
        line = (f"{len(points)} point(s): {sources} sources x {m.dests} destinations on "
                f"{spec.topology.name}")
        log(line)
        if started is not None:
            started(points, line)
        once = Once({(p.factor, p.size, p.algorithm): p for p in points}, _name,
                    _writer(spec, write, context | {"job": job}))
        rows, res = measured_rows(
            emu, sources=sources, sizes=_ordered(p.size for p in points),
            schemes=_ordered(BY_NAME[p.algorithm] for p in points),
            factors=_ordered(p.factor for p in points), reps=spec.repetitions,
            seed=spec.seed, torus=(m.grid.rows, m.grid.cols), dilation=m.dilation,
            dests=m.dests, timeout=spec.timeout, wait=spec.wait, kind=m.grid.kind,
            each=once.take)
        once.rest({_name(r): r for r in rows}, failure_text(res))


def _name(row: Row) -> tuple[float, int, str]:
    """What names a row's point: its factor, size and scheme."""
    return row["factor"], row["size"], row["scheme"]


def _writer(spec: ExperimentSpec, write: Callable[[Row], None], context: Row
            ) -> Callable[[Point, Row | None, str | None], None]:
    """`write` of a point's record from its row (or, None, its job's failure)."""
    def point(p: Point, row: Row | None, error: str | None) -> None:
        write(record(spec, p, row, error or "", context))
    return point


def record(spec: ExperimentSpec, p: Point, row: Row | None, failure: str,
           context: Row) -> Row:
    """Point `p`'s record from its row (None: no row, the job failed with `failure`)."""
    rec: Row = {"index": p.index, "key": p.key, "config": point_config(spec, p),
                "status": "failed", "error": failure, "t_s": None, "samples_s": [],
                "correct": None, "plan": None, "fidelity": None, "cpu": None,
                "window": None, "sets": None, **context}
    if row is not None:
        correct = bool(row["correct"])
        rec |= {"status": "ok" if correct else "failed",
                "error": None if correct else "a destination missed bytes",
                "t_s": row["t_s"], "samples_s": row.get("samples_s", []), "correct": correct,
                "plan": {k: row[k] for k in ("steps", "sends", "link_crossings",
                                             "max_contention", "contention")},
                "fidelity": row["fidelity"], "cpu": row["cpu"], "window": row["window"],
                "sets": row.get("sets")}
    return rec


def _ordered(values: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


def failure_text(res: MpiResult) -> str:
    tail = " ".join((res.stderr or res.stdout or "no output").split())[-400:]
    return f"multinode_bench printed no row for this point (exit {res.returncode}): {tail}"
