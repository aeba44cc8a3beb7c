"""testbed.reproduce.pure, the claims judged without a network: Nupairoj's thesis numbers and
Table 4.1, Coll's Table 1 and figure 7, and Tseng's claims in the step model at the report's
scale."""

from __future__ import annotations

import pytest

from testbed.reproduce import pure
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import (
    DIFFERS,
    REPRODUCED,
    TRANSFER,
)


def ctx(quick: bool = True) -> Context:
    return Context(quick, lambda _msg: None)


@pytest.mark.parametrize("key", ["nupairoj.table-4.2", "nupairoj.table-4.3",
                                 "nupairoj.table-4.4", "nupairoj.ch3-example",
                                 "nupairoj.mesh-6x6", "nupairoj.head-of-line"])
def test_nupairoj_pure_claims_reproduce_the_thesis_numbers(key: str) -> None:
    assert BY_KEY[key].run(ctx()).verdict == REPRODUCED


def test_table_1_judges_each_cell_by_its_interval(monkeypatch) -> None:
    """A cell agrees when the paper's share lies within the interval of ours widened by the
    undecided trials; here every cell gets no 3-step optimum, which fits all cells but
    4096 nodes at 1 % faulty (41.8 % in the paper)."""
    from collectives.range_trees.trials import HwTreeStats

    def fake(n, f, trials, seed=0, workers=1):
        return HwTreeStats(n, 4, f, round(n * f), trials, seed, {2: trials}, {2: trials},
                           trials, 0)

    monkeypatch.setattr(pure, "hwtree_trials", fake)
    out = BY_KEY["coll.table-1"].run(ctx(quick=False))
    assert out.verdict == DIFFERS
    assert out.testbed.startswith("14 of 15 cells agree")
    assert "4096 nodes at 1.0% faulty: 41.8%" in out.why
    bad = [c for c in out.values["cells"] if not c["agrees"]]
    assert [(c["nodes"], c["faulty"]) for c in bad] == [(4096, 0.010)]


@pytest.fixture
def tseng_ends(monkeypatch):
    """The step model at the report's scale (16x16 torus, 80 and 176 sources), at the two
    hot-spot factors the hot-spot claim compares (p 0.25 and 1; balance's mean over p is
    taken over these two): 5 s of the model's 12 here; `mcastlab reproduce` computes all
    four (0.5 and 0.8 too)."""
    from collectives.partitioning import report_scale

    monkeypatch.setattr(report_scale, "HOT_SPOT_FACTORS", (0.25, 1.0))
    report_scale._rows.cache_clear()
    yield
    report_scale._rows.cache_clear()  # the next caller computes every factor again


def test_tseng_claims_in_the_step_model_at_the_reports_scale(tseng_ends) -> None:
    """The gain over U-torus grows with size in every row (as the report says); balancing
    helps more with more sources in the model (the report says fewer): differs, saying why."""
    size = BY_KEY["tseng.size-gain"].run(ctx())
    assert size.verdict == REPRODUCED and len(size.values["gain"]) == 4  # 2 sources x 2 p
    assert all(g1024 > g32 for _n, _p, g32, g1024 in size.values["gain"])
    balance = BY_KEY["tseng.balance"].run(ctx())
    assert balance.verdict == DIFFERS and "partition types" in balance.why
    assert balance.kind == TRANSFER
    hot = BY_KEY["tseng.hot-spot"].run(ctx())  # figure 4: a larger p, a higher latency
    assert hot.verdict == REPRODUCED, hot.why
    lat = hot.values["latency_us"]
    assert lat["80 1"]["u-torus"] > lat["80 0.25"]["u-torus"]
    assert set(hot.values["plot"]["series"]) == {"u-torus, 80 sources", "4B, 80 sources",
                                                 "u-torus, 176 sources", "4B, 176 sources"}


def test_table_4_1_no_fixed_tree_is_best_everywhere(monkeypatch) -> None:
    """Nupairoj's Table 4.1 at 100 KB (the cells' own size): S1 favours sequential, S2
    binomial, and OPT-Tree is no slower than either on both (16514 and 12408 us)."""
    out = BY_KEY["nupairoj.table-4.1"].run(ctx())
    assert out.verdict == REPRODUCED, out.why
    us = out.values["us"]
    assert us["S1 sequential"] < us["S1 binomial"] and us["S2 binomial"] < us["S2 sequential"]
    assert out.values["opt_tree_us"] == pytest.approx({"S1": 16514, "S2": 12408}, abs=0.5)
    monkeypatch.setattr(pure, "T41", {**pure.T41, ("S1", "binomial"): 21000})
    bad = BY_KEY["nupairoj.table-4.1"].run(ctx())
    assert bad.verdict == DIFFERS and "S1 binomial" in bad.why and bad.kind == TRANSFER


def test_figure_7_judges_greedy_against_the_optimum_and_the_depth(monkeypatch) -> None:
    """Coll's figure 7 on a small grid: greedy's pooled share of optima against 99 %, the
    deepest tree against 4 steps."""
    from collectives.range_trees.sensitivity import SensitivityCell

    def cell(nodes, fraction, optimal, deepest=2):
        return SensitivityCell(nodes, fraction, max(1, round(nodes * fraction)), 100, 0,
                               {2: 1.0}, {2: 1.0}, optimal, 2, deepest)

    grid = [cell(64, 0.03, 1.0), cell(256, 0.003, 1.0), cell(1024, 0.01, 0.99, 3)]
    monkeypatch.setattr(pure, "fault_sensitivity", lambda: grid)
    out = BY_KEY["coll.figure-7"].run(ctx())
    assert out.verdict == REPRODUCED, out.why
    assert out.values["greedy_optimal"] == [299, 300] and "below 1 % faulty 100 of 100" in \
        out.testbed
    worse = [cell(64, 0.03, 0.9), cell(256, 0.1, 0.95, 5)]
    monkeypatch.setattr(pure, "fault_sensitivity", lambda: worse)
    bad = BY_KEY["coll.figure-7"].run(ctx())
    assert bad.verdict == DIFFERS and bad.kind == TRANSFER
    assert "takes 5 steps (the paper: at most 4)" in bad.why and "greedy equals the " \
        "optimum in 92.5%" in bad.why
