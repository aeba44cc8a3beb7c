"""testbed.reproduce.source_contention (nupairoj.source-contention) without a network: the
chapter-6 model's figures at the thesis's scale, the sweep it runs, an experiment record as
a point with the root's queue, and the judging over jobs on stand-in points."""

from __future__ import annotations

from typing import Any

import pytest

from testbed.experiments.kinds import from_dict
from testbed.reproduce.all_claims import BY_KEY
from testbed.reproduce.source_contention import (
    GROWS,
    LOADS,
    judge_source_contention,
    paper_model,
    queue_point,
    sc_spec,
)
from testbed.reproduce.verdict import DIFFERS, EMULATOR, NO_RESULT, REPRODUCED

from .stand_ins import JOB_PACE

LOADED = ["none", "uniform-20", "uniform-40"]


def test_the_chapter_6_model_has_sequential_fall_further_behind_once_the_root_queues() -> None:
    """64 nodes, the baseline at 1 KB: the ratio first falls (t_end grows, t_hold does not),
    then grows once t_out + t_cont passes t_hold and the root's messages wait."""
    rows = paper_model()
    assert [r["sequential/binomial"] for r in rows] == [3.443, 3.317, 3.564, 4.043, 4.825]
    assert rows[0]["sequential"] == 258204 and rows[0]["binomial"] == 74988  # Table 4.2
    assert rows[0]["sequential root t_sq"] == 0
    assert rows[-1]["sequential root t_sq"] > 10 * rows[-1]["binomial root t_sq"]
    assert BY_KEY["nupairoj.source-contention"].figure.marker == "I"


def test_the_sweep_loads_the_broadcasts_own_hosts_and_is_a_valid_spec() -> None:
    raw = sc_spec(quick=False, seed=2)
    assert raw["sweep"]["traffic"] == ["none", "uniform-40"] and raw["seed"] == 2
    assert raw["sweep"]["sizes"] == [65536, 1024] and raw["sweep"]["hosts"] == [8]
    assert {t["hosts"] for t in raw["traffic"].values()} == {"members"}
    spec = from_dict(raw | {"network": {"topology": "mesh:rows=4,cols=4,bw=10"}})
    assert len(spec.points()) == 2 * 2 * 2
    # 10 broadcasts a point after 2 untimed, at most 2.5 s of them: the slowest 64 KiB
    # point (sequential under load, 760 ms) keeps 4, a 1 KiB one (15 ms at most) all 10
    assert (spec.repetitions, spec.warmup, spec.budget) == (10, 2, 2.5)
    quick = sc_spec(quick=True, seed=1, loads=["uniform-40"])
    assert quick["sweep"]["traffic"] == ["uniform-40"] and quick["sweep"]["sizes"] == [1024]


def record(queue: dict[str, Any] | None, status: str = "ok") -> dict[str, Any]:
    return {"config": {"algorithm": "sequential", "size": 1024, "hosts": 8,
                       "traffic": "uniform-40"},
            "status": status, "verified": True,
            "t_mcast_s": {"median": 0.008, "p10": 0.0075, "p90": 0.009, "n": 10},
            "fidelity": {"flags": []}, "traffic": {"accepted": 0.18}, "root_queue": queue}


def test_a_record_becomes_a_point_with_the_roots_queue_in_ms() -> None:
    q = {"sends": 3, "queued_s": 0.002, "left_s": 0.003, "drained_s": 0.005,
         "per_send_s": [[0.0001, 0.0002], [0.0002, 0.0011], [0.0011, 0.0021]]}
    p = queue_point(record(q), take=1)
    assert p["label"].endswith("traffic uniform-40, take 2") and p["take"] == 1
    assert p["ms"] == pytest.approx(8.0) and p["accepted_load"] == 0.18
    assert (p["queued_ms"], p["left_ms"], p["drained_ms"]) == pytest.approx((2.0, 3.0, 5.0))
    assert p["channel_ms"] == pytest.approx(0.95)  # the first message's burst left out
    assert p["handover_ms"] == pytest.approx(0.1)
    assert p["iterations"] == 10  # the broadcasts it timed (fewer where the budget ran out)
    lost = queue_point(record(None), take=0)
    assert lost["ms"] is None and "no sending queue" in lost["error"]


def pt(tree: str, size: int, load: str, ms: float, queued: float, take: int,
       channel: float = 1.0, flags: tuple[str, ...] = ()) -> dict[str, Any]:
    """A stand-in point of queue_point's form."""
    return {"label": f"{tree} {size} {load} {take}", "algorithm": tree, "size": size,
            "traffic": load, "ms": ms, "queued_ms": queued, "drained_ms": 0.7 * ms,
            "channel_ms": channel, "handover_ms": 0.02, "accepted_load": LOADS[load] or None,
            "flags": list(flags), "verified": True, "error": None, "take": take}


def sweep(seq: dict[str, float], binomial: dict[str, float], queue: float = 4.0,
          flagged: bool = False) -> list[dict[str, Any]]:
    """Three jobs of 1 KiB under LOADED: the trees' broadcasts (ms by load, each job 1 %
    apart) and the root queue of sequential `queue` x binomial's (1 ms)."""
    out = []
    for take in range(3):
        f = 1 + 0.01 * (take - 1)
        for load in LOADED:
            out += [pt("sequential", 1024, load, seq[load] * f, queue * f, take,
                       channel=1.0 + LOADS[load]),
                    pt("binomial", 1024, load, binomial[load] * f, 1.0, take,
                       flags=("s1-eth1 carried 0.1 of 2.0 Mbit/s expected",)
                       if flagged and take == 2 and load == "uniform-40" else ())]
    return out


def test_sequential_falling_behind_with_a_longer_root_queue_reproduces() -> None:
    out = judge_source_contention(
        sweep({"none": 7.0, "uniform-20": 10.0, "uniform-40": 14.0},
              {"none": 3.5, "uniform-20": 3.6, "uniform-40": 3.8}), LOADED, [1024])
    assert out.verdict == REPRODUCED, out.why
    figures = out.values["intervals"]
    growth = figures["sequential/binomial, uniform-40 over none, 1 KiB"]
    assert growth["figure"] == pytest.approx(14 / 3.8 / 2, rel=1e-3)
    assert growth["margin"] == [GROWS, None]
    assert figures["root queue sequential/binomial, uniform-40, 1 KiB"]["figure"] == 4.0
    assert "root queue sequential/binomial, none, 1 KiB" not in figures  # shown, not judged
    assert "1 KiB, uniform-40 (accepted 0.40)" in out.testbed
    plot = out.values["plot"]["series"]["sequential 1 KiB, broadcast"]
    assert [x for x, *_ in plot] == [0, 20, 40] and len(plot[0]) == 4  # (x, median, min, max)


def test_a_ratio_that_does_not_grow_differs_and_says_the_missing_mechanism() -> None:
    out = judge_source_contention(
        sweep({"none": 7.0, "uniform-20": 7.7, "uniform-40": 8.4},
              {"none": 3.5, "uniform-20": 3.85, "uniform-40": 4.2}), LOADED, [1024])
    assert out.verdict == DIFFERS and out.kind == EMULATOR
    assert "lies outside at least 1.1" in out.why
    assert "the root's link is the bottleneck with no load here" in out.why
    assert "blocked worm" in out.why
    model = out.values["model_here"][1024]
    assert model["t_out_ms"] == pytest.approx(1.0) and model["t_cont_ms"] == pytest.approx(0.4)


def test_a_take_of_the_sweep_is_drawn_whole() -> None:
    """A take is one run of the sweep (a load's trees in one MPI job, the loads back to
    back): a take-wide pace (0.6, 1.0, 1.4 x) moves all its points, and each figure is
    judged by take (its figure in every take), not one take's sequential against another
    take's binomial; a point missing from a take leaves the takes unaligned: drawn point by
    point then."""
    seq = {"none": 7.0, "uniform-20": 10.0, "uniform-40": 14.0}
    tree = {"none": 3.5, "uniform-20": 3.6, "uniform-40": 3.8}
    points = [pt(t, 1024, load, ms[load] * f, (4.0 if t == "sequential" else 1.0) * f, take,
                 channel=1.0 + LOADS[load])
              for take, f in enumerate(JOB_PACE) for load in LOADED
              for t, ms in (("sequential", seq), ("binomial", tree))]
    figures = judge_source_contention(points, LOADED, [1024]).values["intervals"]
    growth = figures["sequential/binomial, uniform-40 over none, 1 KiB"]
    assert growth["interval"] == [pytest.approx(14 / 3.8 / 2, abs=1e-3)] * 2
    queue = figures["root queue sequential/binomial, uniform-40, 1 KiB"]
    assert queue["interval"] == [4.0, 4.0]
    short = judge_source_contention(points[1:], LOADED, [1024])  # take 0's sequential, none
    assert short.values["intervals"]["root queue sequential/binomial, uniform-40, 1 KiB"][
        "interval"][0] < 4.0


def test_a_queue_no_longer_than_binomials_differs() -> None:
    out = judge_source_contention(
        sweep({"none": 7.0, "uniform-20": 10.0, "uniform-40": 14.0},
              {"none": 3.5, "uniform-20": 3.6, "uniform-40": 3.8}, queue=1.2), LOADED, [1024])
    assert out.verdict == DIFFERS
    assert "root queue sequential/binomial, uniform-20, 1 KiB [1.19, 1.21]" in out.why


def test_a_flagged_point_leaves_no_result() -> None:
    out = judge_source_contention(
        sweep({"none": 7.0, "uniform-20": 10.0, "uniform-40": 14.0},
              {"none": 3.5, "uniform-20": 3.6, "uniform-40": 3.8}, flagged=True),
        LOADED, [1024])
    assert out.verdict == NO_RESULT and "1 of 18" in out.why
    assert out.values["plot"]["series"]


def test_the_report_draws_a_series_spread_over_the_jobs(tmp_path) -> None:
    from testbed.reproduce.report import write
    from testbed.reproduce.run import run

    doc = run(tmp_path, only=["nupairoj.head-of-line"], progress=lambda _m: None)
    out = judge_source_contention(
        sweep({"none": 7.0, "uniform-20": 10.0, "uniform-40": 14.0},
              {"none": 3.5, "uniform-20": 3.6, "uniform-40": 3.8}), LOADED, [1024])
    claim = next(c for c in doc["claims"] if c["key"] == "nupairoj.head-of-line") | {
        "key": "x.spread", "testbed_figure": {"text": out.testbed, "values": out.values}}
    write(tmp_path / "out", {**doc, "claims": [claim]})
    assert (tmp_path / "out" / "plots" / "x.spread.png").stat().st_size > 1000
