"""An Allgather spec's points (collective = "allgather") measured on the run's network, one
job per condition and algorithm (testbed.measure.allgather), and each point's record and
configuration (point_config: the kind's `record` in testbed.experiments.kinds)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from collectives.call import AllgatherCall
from collectives.stats import tails

from ..emulation.network import Emulation
from ..errors import RunFailed
from ..measure.allgather import AllgatherResult, run_allgather
from ..measure.options import RunOptions
from ..specs.loss_scope import loss_text
from .points_once import Once
from .spec import ExperimentSpec, Point


def measure_points(emu: Emulation, spec: ExperimentSpec, todo: Sequence[Point],
                   write: Callable[[dict[str, Any]], None], context: dict[str, Any],
                   params: dict[str, Any] | None, log: Callable[[str], None],
                   started: Callable[[Sequence[Point], str], None] | None = None) -> None:
    """The points of an Allgather spec (collective = "allgather"): one job per condition
    (hosts, loss, loss scope) and algorithm over its sizes, each point's record written as
    soon as its size is measured (run_allgather's `each`), the rest when the job ends; a
    job that fails fails the points it had not measured, and the run goes on. `started`
    hears of each job as it starts: its points and the line said of it."""
    jobs: dict[tuple[int, float, str | None, str], list[Point]] = {}
    for p in todo:
        jobs.setdefault((p.hosts, p.loss, spec.scope_of(p), p.algorithm), []).append(p)
    for (hosts, loss, scope, algorithm), points in jobs.items():
        line = (f"{algorithm}: {hosts} ranks" + (f", {loss_text(loss, scope)}" if loss else "")
                + f", blocks of {', '.join(str(p.size) for p in points)} B")
        log(line)
        if started is not None:
            started(points, line)
        once = Once({p.size: p for p in points}, lambda row: row.block,
                    lambda p, row, error: write(point_record(spec, p, row, error, context)))
        try:
            rows = {r.block: r for r in run_allgather(
                emu, AllgatherCall(algorithm), [p.size for p in points], RunOptions(
                    hosts=hosts, repetitions=spec.repetitions, params=params, loss=loss,
                    loss_scope=scope or spec.loss_scope, wait=spec.wait, warmup=spec.warmup,
                    timeout=spec.timeout), each=once.take)}
            error = None
        except RunFailed as exc:
            rows, error = {}, str(exc)
        once.rest(rows, error)


def point_config(spec: ExperimentSpec, p: Point) -> dict[str, Any]:
    """An Allgather point's configuration: its record's `config` (the kind's record, as
    testbed.experiments.kinds asks it)."""
    return {"collective": "allgather", "algorithm": p.algorithm, "size": p.size,
            "hosts": p.hosts, "loss": p.loss, "loss_scope": spec.scope_of(p),
            "topology": spec.topology.name,
            "switching": spec.switching, "repetitions": spec.repetitions,
            "warmup": spec.warmup, "wait": spec.wait, "link_mbit": spec.topology.host_rate()}


def point_record(spec: ExperimentSpec, p: Point, row: AllgatherResult | None,
                 error: str | None, context: dict[str, Any]) -> dict[str, Any]:
    """An Allgather point's record: its configuration, and its row (None: failed, `error`)."""
    rec: dict[str, Any] = {"index": p.index, "key": p.key, "config": point_config(spec, p),
                           "status": "failed", "error": error or "no row", "t_s": None,
                           "samples_s": [], "verified": None, **context}
    if row is not None:
        rec |= {k: v for k, v in row.to_dict().items() if k not in ("algorithm", "block",
                                                                    "samples")}
        rec |= {"status": "ok" if row.verified else "failed",
                "error": None if row.verified else "a rank's blocks were wrong",
                "samples_s": list(row.samples)}
    # the tail: p50-p99.9, each stated where the samples bear it (collectives.stats.tails)
    rec["tails_s"] = tails(rec["samples_s"]) if rec["samples_s"] else None
    return rec
