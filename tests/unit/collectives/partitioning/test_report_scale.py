"""collectives.partitioning.report_scale: the step model at Tseng2001's scale (16x16 torus,
T_s 300 us, T_c 1 us per flit): a workload's plans computed once a process, the same in 1
or 2 processes, and the report's rows read from them."""

from __future__ import annotations

import pytest

from collectives.partitioning import report_scale
from collectives.partitioning.report_scale import (
    SCHEMES,
    Workload,
    costs,
    latency_us,
    scheme_cost,
    tseng2001_model,
)


def test_costs_are_computed_once_and_alike_in_two_processes(monkeypatch) -> None:
    monkeypatch.setattr(report_scale, "_COSTS", {})
    jobs = [(Workload(8, 6, p, s), k) for p in (0.25, 1.0) for s in (0, 1) for k in SCHEMES]
    two = costs(jobs, workers=2)
    assert two == {j: scheme_cost(*j) for j in jobs}
    monkeypatch.setattr(report_scale, "scheme_cost", lambda w, k: pytest.fail("recomputed"))
    assert costs(jobs[:3]) == {j: two[j] for j in jobs[:3]}
    cost = two[(Workload(8, 6, 0.25, 0), "u-torus")]
    assert latency_us(cost, 32) == cost.steps * 300 + 32 * sum(cost.contention)


def test_the_rows_of_the_report(monkeypatch) -> None:
    monkeypatch.setattr(report_scale, "_COSTS", {})
    monkeypatch.setattr(report_scale, "HOT_SPOT_FACTORS", (0.5,))
    rows = tseng2001_model(sources=(8,))
    assert [(r["sources"], r["factor"], r["flits"]) for r in rows] == [(8, 0.5, 32),
                                                                     (8, 0.5, 1024)]
    assert set(rows[0]["latency_us"]) == set(SCHEMES)
    with pytest.raises(ValueError, match="unknown scheme"):
        scheme_cost(Workload(8, 6, 0.5, 0), "8B")
