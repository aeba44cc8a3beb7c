"""testbed.reproduce.pure_tseng, Tseng2001's claims in the step model shaped like the report's
figures: Fig. 3 against the number of sources at fixed destinations, Fig. 4 monotone over
every hot-spot factor, both judged over random seeds. The model's
plans stand in here as step counts given by a formula (the real model takes a minute);
collectives/partitioning/test_report_scale.py runs the real one."""

from __future__ import annotations

from collectives.partitioning.report_scale import Workload
from collectives.partitioning.step_model import PlanCost
from testbed.reproduce import pure_tseng
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.claims import Context
from testbed.reproduce.verdict import DIFFERS, REPRODUCED, TRANSFER, UNDECIDED


def ctx(quick: bool) -> Context:
    return Context(quick, lambda _msg: None)


def fake_costs(steps):
    """`costs` answering PlanCost(steps(workload, scheme)) for every job (latency = 300 us a
    step at 32 flits, no link sharing)."""
    def costs(jobs, workers=1):
        return {(w, k): PlanCost(steps(w, k), 0, 0, ()) for w, k in jobs}
    return costs


def test_balance_judges_each_panel_and_dilation_on_sources(monkeypatch) -> None:
    """Random over balanced shrinking with the sources in every seed: reproduced, both
    panels (80 and 176 destinations) in the full run, (a) only with --quick; the fewest
    sources priced on FEW_SEEDS workloads, the others on SEEDS."""
    asked: list[Workload] = []

    def steps(w: Workload, k: str) -> int:
        asked.append(w)
        extra = (300 - w.sources) // 10 + w.seed % 5 if k[1] == "R" else 0
        return 100 + extra

    monkeypatch.setattr(pure_tseng, "costs", fake_costs(steps))
    full = BY_KEY["tseng.balance"].run(ctx(quick=False))
    assert full.verdict == REPRODUCED, full.why
    assert list(full.values["intervals"]) == [  # per panel, the dilations pooled
        f"benefit with 16 over 240 sources, {d} destinations, dilations 2 and 4"
        for d in (80, 176)]
    assert len(full.values["per_dilation"]) == 4  # 2 panels x 2 dilations, shown
    assert set(full.values["benefit"]) == {f"{d} destinations, dilation {h}"
                                           for d in (80, 176) for h in "24"}
    seeds = {n: {w.seed for w in asked if w.sources == n} for n in (16, 80, 240)}
    assert seeds == {16: set(pure_tseng.FEW_SEEDS), 80: set(pure_tseng.SEEDS),
                     240: set(pure_tseng.SEEDS)}
    assert len(pure_tseng.FEW_SEEDS) > 4 * len(pure_tseng.SEEDS)
    quick = BY_KEY["tseng.balance"].run(ctx(quick=True))
    assert len(quick.values["intervals"]) == 1 and len(quick.values["per_dilation"]) == 2


def test_balance_undecided_when_the_ends_overlap_differs_when_all_do(monkeypatch) -> None:
    def alike(w: Workload, k: str) -> int:  # the same spread of benefits at every count
        return 100 + ((w.seed * 7) % 11 if k[1] == "R" else 0)

    monkeypatch.setattr(pure_tseng, "costs", fake_costs(alike))
    out = BY_KEY["tseng.balance"].run(ctx(quick=True))
    assert out.verdict == UNDECIDED and "straddles" in out.why
    # it says why: the effect against the seeds' own spread at each end, each panel
    assert "one random workload's difference from another's: 80 destinations, dilation 2: " \
        "with 16 sources per seed 1.00-1.10, with 240 1.00-1.10" in out.why
    monkeypatch.setattr(pure_tseng, "costs",
                        fake_costs(lambda w, k: 100 + (w.sources // 10 if k[1] == "R" else 0)))
    out = BY_KEY["tseng.balance"].run(ctx(quick=True))
    assert out.verdict == DIFFERS and out.kind == TRANSFER
    assert "does not help more with fewer sources" in out.why


def test_hot_spot_monotone_over_every_p(monkeypatch) -> None:
    """Every scheme rising at every step of p in every seed: reproduced, 5 schemes x 3 steps
    per panel; one scheme falling from 0.8 to 1 in every seed: differs, naming that step."""
    def rising(w: Workload, k: str) -> int:
        return 100 + int(100 * w.factor) + w.seed

    monkeypatch.setattr(pure_tseng, "costs", fake_costs(rising))
    out = BY_KEY["tseng.hot-spot"].run(ctx(quick=False))
    assert out.verdict == REPRODUCED, out.why
    assert len(out.values["intervals"]) == 2 * 5 * 3
    assert set(out.values["latency_ms"]) >= {"U-torus, 80 sources", "4 balanced, 112 sources"}

    def falls(w: Workload, k: str) -> int:
        if k == "u-torus" and w.factor == 1.0:
            return 150
        return rising(w, k)

    monkeypatch.setattr(pure_tseng, "costs", fake_costs(falls))
    bad = BY_KEY["tseng.hot-spot"].run(ctx(quick=True))
    assert bad.verdict == DIFFERS and "U-torus, 80 sources, p 0.8 -> 1" in bad.why


def test_size_gain_reads_the_model_rows(monkeypatch) -> None:
    """The gain over U-torus larger at 1024 flits than at 32 in every row, else differs."""
    def rows(workers=1, sources=None):
        out = []
        for n in sources:
            for flits, torus in ((32, 100.0), (1024, 300.0)):
                out.append({"sources": n, "factor": 0.25, "flits": flits,
                            "latency_us": {"u-torus": torus, "2R": 100.0, "4B": 120.0}})
        return out

    monkeypatch.setattr(pure_tseng, "tseng2001_model", rows)
    out = BY_KEY["tseng.size-gain"].run(ctx(quick=False))
    assert out.verdict == REPRODUCED and [g[0] for g in out.values["gain"]] == [80, 176]
    monkeypatch.setattr(pure_tseng, "tseng2001_model", lambda workers=1, sources=None: [
        {**r, "latency_us": {**r["latency_us"], "u-torus": 100.0}} for r in rows(1, sources)])
    assert BY_KEY["tseng.size-gain"].run(ctx(quick=True)).verdict == DIFFERS
