"""mcastlab reproduce without a network: the claims registry, the verdict rules (a flagged,
failed or wrong point never supports "reproduced"), the pure claims against the papers'
numbers, and the JSON, markdown and HTML a run writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.reproduce import pure
from testbed.reproduce.all_claims import BY_KEY, CLAIMS, select
from testbed.reproduce.claims import Context
from testbed.reproduce.run import run
from testbed.reproduce.series import TREES
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    TRANSFER,
    UNDECIDED,
    VERDICTS,
    Outcome,
    no_result,
    wilson,
)

REFERENCES = Path(__file__).resolve().parents[2] / "docs" / "references.md"


def ctx(quick: bool = True) -> Context:
    return Context(quick, lambda _msg: None)


def point(label: str = "p", ms: float | None = 10.0, flags: list[str] | None = None,
          verified: bool = True, error: str | None = None) -> dict:
    return {"label": label, "ms": ms, "flags": flags or [], "verified": verified,
            "error": error}


def test_keys_are_unique_and_every_paper_is_in_the_reference_table() -> None:
    assert len(BY_KEY) == len(CLAIMS)
    refs = REFERENCES.read_text()
    assert all(c.paper in refs for c in CLAIMS)
    assert all(c.key.split(".")[0] in c.paper.lower() for c in CLAIMS)


def test_select_by_key_by_paper_quick_and_unknown() -> None:
    assert [c.key for c in select(["nupairoj.table-4.3"], False)] == ["nupairoj.table-4.3"]
    assert {c.paper for c in select(["nupairoj"], False)} == {"Nupairoj1998"}
    assert len(select(None, False)) == len(CLAIMS)
    assert all(c.in_quick for c in select(None, True))
    with pytest.raises(UsageError, match="no claim 'nope'"):
        select(["nope"], False)


def test_a_flagged_failed_or_wrong_point_never_supports_reproduced() -> None:
    for bad in (point(flags=["hosts waited"]), point(ms=None, error="timeout"),
                point(verified=False)):
        with pytest.raises(ValueError, match="cannot be reproduced"):
            Outcome(REPRODUCED, "x", points=[point(), bad])
        out = no_result([point(), bad], "x")
        assert out is not None and out.verdict == NO_RESULT and "1 of 2" in out.why
    assert no_result([point(), point()], "x") is None
    Outcome(REPRODUCED, "x", points=[point(), point()])


def test_every_verdict_but_reproduced_says_why() -> None:
    with pytest.raises(ValueError, match="needs a reason"):
        Outcome(DIFFERS, "x")
    with pytest.raises(ValueError, match="unknown verdict"):
        Outcome("fine", "x", "because")
    # a difference says its kind: a missing mechanism, or a claim that does not transfer
    with pytest.raises(ValueError, match="says its kind: emulator .* or transfer"):
        Outcome(DIFFERS, "x", "because")
    with pytest.raises(ValueError, match="unknown kind of difference 'bug'"):
        Outcome(DIFFERS, "x", "because", kind="bug")
    Outcome(DIFFERS, "x", "because", kind=EMULATOR)
    Outcome(NOT_APPLICABLE, "x", "because", kind=TRANSFER)


def test_wilson_interval() -> None:
    lo, hi = wilson(0, 1000)
    assert lo == 0.0 and 0.003 < hi < 0.004
    lo, hi = wilson(418, 1000)
    assert lo < 0.418 < hi and hi - lo < 0.07


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


def test_a_run_writes_json_markdown_and_html(tmp_path: Path) -> None:
    doc = run(tmp_path, only=["nupairoj.table-4.3", "nupairoj.mesh-6x6"],
              progress=lambda _m: None, command="mcastlab reproduce --only ...")
    got = json.loads((tmp_path / "reproduce.json").read_text())
    assert got == json.loads(json.dumps(doc))
    assert {"schema", "command", "quick", "only", "started", "machine", "networks",
            "claims", "seconds", "summary"} <= got.keys()
    assert [c["key"] for c in got["claims"]] == [c.key for c in CLAIMS]
    by = {c["key"]: c for c in got["claims"]}
    assert by["nupairoj.table-4.3"]["verdict"] == REPRODUCED
    assert by["nupairoj.table-4.3"]["paper_figure"]["values"]["t"][-1] == 135
    assert by["coll.table-1"]["verdict"] == "skipped"
    assert set(got["summary"]) == set(VERDICTS)
    assert got["summary"][REPRODUCED] == 2
    md = (tmp_path / "reproduce.md").read_text()
    assert "| nupairoj.mesh-6x6 | Nupairoj1998 | section 5.2 |" in md
    page = (tmp_path / "report.html").read_text()
    assert "id='nupairoj.mesh-6x6'" in page and "OPT-Mesh 130, U-Mesh 165" in page


def test_the_report_names_a_differences_kind_and_draws_each_interval(tmp_path: Path) -> None:
    from testbed.reproduce.report import write

    doc = run(tmp_path, only=["nupairoj.table-4.3"], progress=lambda _m: None)
    claim = doc["claims"][0] | {
        "key": "x.judged", "verdict": DIFFERS, "why_kind": EMULATOR, "why": "slow here",
        "testbed_figure": {"text": "t", "values": {"intervals": {
            "4 hosts": {"figure": 1.0, "interval": [0.9, 1.1], "margin": [1.05, None],
                        "verdict": UNDECIDED},
            "9 hosts": {"figure": 0.8, "interval": [0.7, 0.85], "margin": [1.05, None],
                        "verdict": DIFFERS}}}}}
    write(tmp_path / "out", {**doc, "claims": [claim]})
    md = (tmp_path / "out" / "reproduce.md").read_text()
    assert "| differs (the emulator cannot show it): slow here |" in md
    assert "<i>the emulator cannot show it</i>: slow here" in (
        tmp_path / "out" / "report.html").read_text()
    assert (tmp_path / "out" / "plots" / "x.judged.png").stat().st_size > 1000


# ---- measured claims' judging, on points a stand-in network hands out -------------------
class Points:
    """Stands in for a running network (testbed.reproduce.networks.Network): every point it
    is asked for comes from `ms(algorithm, size, hosts)`; `flag` names points to flag."""

    def __init__(self, ms, flag=(), frames=None, back=None, data=None):
        self.ms, self.flag, self.frames, self.back = ms, set(flag), frames, back
        self.data = data  # data frames from (algorithm, size, hosts, completion)

    def point(self, algorithm, size, hosts, frames=0, **_kw):
        label = f"{algorithm} {size} B on {hosts} hosts"
        return {"label": label, "ms": self.ms(algorithm, size, hosts),
                "flags": ["hosts waited"] if (algorithm, hosts) in self.flag else [],
                "verified": True, "error": None,
                "frames_sent": self.frames(algorithm, size, hosts) if self.frames else None,
                "frames_data": (self.data(algorithm, size, hosts, _kw.get("completion"))
                                if self.data else None),
                "frames_acks": 2.0 if self.data else None,
                "rank_return_s": self.back(algorithm) if self.back else None}


def measured(key: str, net: Points, quick: bool = True) -> Outcome:
    return BY_KEY[key].run(Context(quick, lambda _m: None, net))


def flat_mcast(alg: str, size: int, hosts: int) -> float:
    return 30.0 if alg in ("two-stage", "nack", "scout-linear") else 10.0 * hosts


def test_flat_64k_reproduced_differs_and_no_result() -> None:
    out = measured("siebert.flat-64k", Points(flat_mcast))
    assert out.verdict == REPRODUCED and out.values["growth"]["two-stage"] == 1.0
    grows = measured("siebert.flat-64k", Points(lambda a, s, h: 10.0 * h))
    assert grows.verdict == DIFFERS and "two-stage T(16)/T(2) [8.00, 8.00] lies outside" in \
        grows.why and grows.kind == EMULATOR
    # --quick: 2 jobs at 2 and 16 hosts only (the full run draws 4 and 8 hosts too)
    assert len(out.points) == 8 and len(out.context) == 4
    flagged = measured("siebert.flat-64k", Points(flat_mcast, flag={("two-stage", 16)}))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why
    # nack is shown, not judged: its flag alone does not take the verdict away
    assert measured("siebert.flat-64k", Points(flat_mcast, flag={("nack", 16)})).verdict \
        == REPRODUCED


def test_crossovers() -> None:
    assert measured("siebert.crossover-4k", Points(flat_mcast)).testbed == \
        "multicast beats MPI_Bcast and binomial from 4 hosts on (median of 2 jobs; 95 % " \
        "interval over them: 4 hosts)"
    late = measured("siebert.crossover-4k",
                    Points(lambda a, s, h: 100.0 if a == "two-stage" else 10.0 * h))
    assert late.verdict == DIFFERS and "from 16 hosts on" in late.testbed
    never = measured("chen.crossover", Points(lambda a, s, h: 1.0 if a in TREES else 2.0))
    assert never.verdict == DIFFERS and "never" in never.testbed
    assert "first winning size (B), 4 hosts [inf, inf] lies outside at most 8192" in never.why

    class Asked(Points):
        def point(self, algorithm, size, hosts, frames=0, **kw):
            self.asked.append((algorithm, kw.get("completion"), kw["take"]))
            return super().point(algorithm, size, hosts, frames)

    net = Asked(flat_mcast)
    net.asked = []
    out = measured("chen.crossover", net)
    # --quick: 4 and 9 hosts, 2 jobs each (the full run: 4, 6 and 9 hosts, 3 jobs)
    assert out.verdict == REPRODUCED and len(out.points) == 4 * 2 * 3 * 2
    # Chen's scouts as Chen ran them: no positive completion; the trees have no such option
    assert {(a, c) for a, c, _t in net.asked} == {
        ("scout-linear", "none"), ("scout-binary", "none"), ("mpich", None),
        ("binomial", None)}


def test_skew_and_frames(monkeypatch) -> None:
    from testbed.reproduce import siebert

    back = {"two-stage": [0.0, 10.0, 11.0], "binomial": [0.0, 5.0, 20.0],
            "mpich": [0.0, 5.0, 9.0]}
    # with sends one after the other the model returns a 16-host binomial tree's ranks
    # together: the contrast cannot show, whatever was measured
    assert siebert.model_skew("binomial", 16) == 1.0
    assert siebert.model_skew("sequential", 16) == 15.0
    na = measured("siebert.skew", Points(flat_mcast, back=back.get))
    assert na.verdict == NOT_APPLICABLE and na.kind == TRANSFER and "within 1.00x" in na.why
    assert na.values["skew"]["binomial"] == 4.0
    monkeypatch.setattr(siebert, "model_skew", lambda a, h: 3.0)  # a deeper tree's
    out = measured("siebert.skew", Points(flat_mcast, back=back.get))
    assert out.verdict == REPRODUCED and out.values["model_skew"] == {"binomial": 3.0}
    # judged on return times: two-stage's receivers returning 2 x apart differ
    late = measured("siebert.skew", Points(flat_mcast, back={**back, "two-stage": [0, 5.0,
                                                                                   10.0]}.get))
    assert late.verdict == DIFFERS and "return up to 2.00x apart" in late.why
    assert late.kind == EMULATOR


def test_chen_frames_judges_data_frames_of_the_faithful_scouts_against_the_formulas() -> None:
    """MPICH's tree and the scouts without completion within half a frame of the formulas;
    the repaired scouts (completion report) and the pure ACKs shown, not judged."""
    from collectives.ipmc.plans import scout_frames, tree_frames

    def data(alg, size, hosts, completion, off=0.2):
        if alg == "binomial":
            return tree_frames(size, 1500, hosts) + off
        return scout_frames(size, 1500, hosts) + (off if completion == "none" else 40.0)

    out = measured("chen.frames", Points(flat_mcast, data=data))
    assert out.verdict == REPRODUCED, out.why
    # 4 and 9 hosts, 3 sizes; the judged points in 2 jobs (--quick), the repaired in one
    assert len(out.points) == 2 * 12 and len(out.context) == 6
    assert "; over the jobs: 4 hosts 1000 B tree (count 3) 3.20 [3.20, 3.20]" in out.testbed
    assert all("completion report" not in p["label"] for p in out.points)
    row = out.values["rows"][0]
    assert row["acks"] == {"tree": 2.0, "scout": 2.0, "repaired": 2.0}
    assert "tree 3.2 (3), scouts 4.2 (4)" in out.testbed
    off = measured("chen.frames", Points(flat_mcast, data=lambda *a: data(*a, off=0.7)))
    assert off.verdict == DIFFERS and off.kind == TRANSFER and "4 hosts 1000 B tree" in off.why
    flagged = measured("chen.frames", Points(flat_mcast, data=data,
                                             flag={("scout-linear", 9)}))
    assert flagged.verdict == NO_RESULT
    unread = measured("chen.frames", Points(flat_mcast))
    assert unread.verdict == NO_RESULT and "not read" in unread.why


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
    from testbed.reproduce import pure

    monkeypatch.setattr(pure, "T41", {**pure.T41, ("S1", "binomial"): 21000})
    bad = BY_KEY["nupairoj.table-4.1"].run(ctx())
    assert bad.verdict == DIFFERS and "S1 binomial" in bad.why and bad.kind == TRANSFER


def test_siebert_as_the_thesis_states_it_64_kib_from_4_nodes_and_the_chain_at_1_mib() -> None:
    """At 64 KiB two-stage must beat the libraries' fragmenting broadcasts (the fragmented
    chain, scatter-allgather) from 4 hosts on; at 1 MiB the chain must beat two-stage."""
    def libs(alg, size, hosts):  # two-stage flat, the libraries growing with the hosts
        return 30.0 if alg == "two-stage" else 9.0 * hosts

    out = measured("siebert.beats-libraries-64k", Points(libs))
    assert out.verdict == REPRODUCED, out.why
    assert out.testbed.startswith("multicast beats fragmented chain and scatter-allgather "
                                  "from 4 hosts on")
    assert {p["label"].split()[0] for p in out.points} == {"two-stage", "fragmented-chain",
                                                           "scatter-allgather"}
    late = measured("siebert.beats-libraries-64k", Points(lambda a, s, h: 30.0 if a ==
                                                          "two-stage" else 4.0 * h))
    assert late.verdict == DIFFERS and "from 8 hosts on" in late.testbed

    def paper(alg, size, hosts):
        return {"two-stage": 2.0, "fragmented-chain": 1.0, "binomial": 3.0}[alg]

    chain = measured("siebert.chain-1m", Points(paper), quick=False)
    assert chain.verdict == REPRODUCED and len(chain.points) == 6 and len(chain.context) == 1
    assert chain.values["intervals"]["two-stage / fragmented chain"]["interval"] == [2.0, 2.0]
    twice = measured("siebert.chain-1m", Points(
        lambda a, s, h: {"two-stage": 1.0, "fragmented-chain": 1.5, "binomial": 3.0}[a]),
        quick=False)
    assert twice.verdict == DIFFERS and "not slower than the fragmented chain" in twice.why
    assert "two-stage / fragmented chain [0.67, 0.67] lies outside at least 1" in twice.why
    # binomial is shown beside, not judged: its flag leaves the verdict alone
    assert measured("siebert.chain-1m", Points(paper, flag={("binomial", 8)}),
                    quick=False).verdict == REPRODUCED
    assert measured("siebert.chain-1m", Points(paper, flag={("two-stage", 8)}),
                    quick=False).verdict == NO_RESULT


# ---- Nupairoj1998's measured tree order ---------------------------------------------------
class ModelPoints(Points):
    """A stand-in network that also measures t_hold/t_end (t_hold = 2 t_end at every size)
    and gives each point the model's prediction (half the measured time)."""

    def params(self, sizes):
        return {"sizes": list(sizes), "t_hold_s": [2e-3] * len(sizes),
                "t_end_s": [1e-3] * len(sizes)}

    def point(self, algorithm, size, hosts, frames=0, **kw):
        assert "params" in kw  # OPT-Tree is built from the measured t_hold/t_end
        p = super().point(algorithm, size, hosts, frames)
        return p | {"predicted_ms": p["ms"] / 2}


def test_tree_order_judges_opt_tree_against_the_fastest_and_shows_the_model_error() -> None:
    times = {"sequential": 3.0, "binomial": 1.0, "opt-tree": 1.05}
    out = measured("nupairoj.tree-order", ModelPoints(lambda a, s, h: times[a] * h))
    # quick: 8 hosts, 2 sizes, 2 jobs each
    assert out.verdict == REPRODUCED and len(out.points) == 6 * 2
    row = out.values["rows"][0]
    assert row["fastest"] == "binomial" and row["t_hold_over_t_end"] == 2.0
    assert row["measured_over_model"] == {a: 2.0 for a in times}
    assert out.values["intervals"]["OPT-Tree / fastest, 1 KiB on 8"]["interval"] == [1.05, 1.05]
    assert len(measured("nupairoj.tree-order", ModelPoints(lambda a, s, h: times[a]),
                        quick=False).points) == 12 * 3
    slow = measured("nupairoj.tree-order",
                    ModelPoints(lambda a, s, h: times[a] * (2 if a == "opt-tree" else 1)))
    assert slow.verdict == DIFFERS and "OPT-Tree / fastest, 1 KiB on 8 [2.10, 2.10] lies " \
        "outside at most 1.1" in slow.why
    assert "off by 2.00x for OPT-Tree and 2.00x for binomial" in slow.why
    flagged = measured("nupairoj.tree-order",
                       ModelPoints(lambda a, s, h: times[a], flag={("sequential", 8)}))
    assert flagged.verdict == NO_RESULT


# ---- Chen2000's hub against the switch: two networks, the switch's measured first ---------
def test_hub_claims_judge_mpich_over_jobs_and_show_the_multicast(monkeypatch,
                                                                 tmp_path: Path) -> None:
    """MPICH's hub/switch ratio above 3000 B is judged over its jobs (HUB_TAKES each); the
    multicast's is not applicable (no cut-through), its ratios shown; the run brings the
    switch up first and the claims read its points back."""
    from contextlib import contextmanager

    from testbed.reproduce import chen, networks
    from testbed.reproduce.claims import Claim

    def hub_ms(alg: str, size: int, hosts: int) -> float:
        return (1.0 if alg == "scout-linear" else 2.0) * size / 1024

    def switch_ms(alg: str, size: int, hosts: int) -> float:
        return hub_ms(alg, size, hosts) / (1.25 if alg == "mpich" else 1.0)

    def judged(key: str, hub: Points, switch: Points | None, quick: bool = True) -> Outcome:
        earlier = {} if switch is None else {chen.SWITCH: switch}
        return BY_KEY[key].run(Context(quick, lambda _m: None, hub, earlier))

    out = judged("chen.hub-mpich", Points(hub_ms), Points(switch_ms))
    assert out.verdict == REPRODUCED, out.why
    assert out.values["ratio"][4] == pytest.approx(dict.fromkeys(chen.HUB_SIZES, 1.25))
    assert out.values["intervals"]["4 hosts, above 3000 B"]["interval"] == [1.25, 1.25]
    assert "4 hosts 1.25 1.25 1.25 1.25" in out.testbed
    assert len(out.points) == 24 and len(out.context) == 8  # 3 jobs of MPI_Bcast, 1 scout
    assert all(p["label"].startswith("mpich") for p in out.points)
    full = judged("chen.hub-mpich", Points(hub_ms), Points(switch_ms), quick=False)
    assert set(full.values["intervals"]) == {"4 hosts, above 3000 B", "9 hosts, above 3000 B"}
    same = judged("chen.hub-mpich", Points(hub_ms), Points(hub_ms))
    assert same.verdict == DIFFERS and same.kind == EMULATOR
    assert "[1.00, 1.00] lies outside at least 1.05" in same.why
    flagged = judged("chen.hub-mpich", Points(hub_ms, flag={("mpich", 4)}), Points(switch_ms))
    assert flagged.verdict == NO_RESULT
    # a flagged scout is shown, not judged
    assert judged("chen.hub-mpich", Points(hub_ms, flag={("scout-linear", 4)}),
                  Points(switch_ms)).verdict == REPRODUCED
    assert judged("chen.hub-mpich", Points(hub_ms), None).verdict == NO_RESULT

    mc = judged("chen.hub-multicast", Points(hub_ms), Points(switch_ms))
    assert mc.verdict == NOT_APPLICABLE and mc.kind == EMULATOR and "cut-through" in mc.why
    assert mc.values["ratio"][4] == dict.fromkeys(chen.HUB_SIZES, 1.0)
    assert mc.values["beats_from"] == {"hub": {4: 1024}, "switch": {4: 1024}}
    assert mc.testbed.endswith("beats MPI_Bcast from: hub 1024 B; switch 1024 B (4 hosts)")
    assert len(mc.points) == 32 and mc.points[0]["label"].endswith("(hub)")
    assert len(mc.values["plot"]["series"]) == 4
    # a flagged point feeds no ratio and is named; the verdict stays
    mf = judged("chen.hub-multicast", Points(hub_ms, flag={("scout-linear", 4)}),
                Points(switch_ms))
    assert mf.verdict == NOT_APPLICABLE and "4 hosts - - - -" in mf.testbed
    assert "4 of 32 point(s) are no result" in mf.why
    with pytest.raises(ValueError, match="need a network and a measure"):
        Claim("x.y", "Chen2000", "s", BY_KEY["chen.hub-mpich"].figure, "m", chen.hub_mpich,
              network=chen.HUB, before=(chen.SWITCH,))

    class Net(Points):
        def __init__(self, name: str, ms) -> None:
            super().__init__(ms)
            self.name, self.asked = name, 0

        def point(self, algorithm, size, hosts, frames=0, **kw):
            self.asked += 1
            return super().point(algorithm, size, hosts, frames, **kw)

        def describe(self) -> dict:
            return {"topology": self.name, "rate": "30 Mbit/s", "link_rate": {}}

    up: list[Net] = []

    @contextmanager
    def running(name, caps, progress):
        up.append(Net(name, hub_ms if name == chen.HUB else switch_ms))
        yield up[-1]

    monkeypatch.setattr(networks, "running", running)
    doc = run(tmp_path, quick=True, only=["chen.hub-mpich"], progress=lambda _m: None)
    assert [n.name for n in up] == [chen.SWITCH, chen.HUB]
    assert [n.asked for n in up] == [32, 16]  # the switch's 16: measured, then read back
    assert set(doc["networks"]) == {chen.SWITCH, chen.HUB}
    entry = next(c for c in doc["claims"] if c["key"] == "chen.hub-mpich")
    assert entry["verdict"] == REPRODUCED and entry["network"] == chen.HUB
    assert (tmp_path / "plots" / "chen.hub-mpich.png").exists()


# ---- Coll2003's measured claims: range tree against the software tree around failed nodes
class CollPoints(Points):
    """Points on host lists (failed nodes left out): `ms` and `flag` see the host count
    (16, 15, 14, 12 for 0, 1, 2, 4 failed); `emu.fail_nodes` records the failed marks."""

    def __init__(self, ms, flag=()):
        super().__init__(ms, flag)
        self.failed: set[int] = set()
        self.emu = self

    def fail_nodes(self, nodes, failed=True):
        self.failed = self.failed | set(nodes) if failed else self.failed - set(nodes)
        return sorted(self.failed)

    def point(self, algorithm, size, hosts, frames=0, **kw):
        assert "h0" in hosts and len(hosts) == 16 - len(self.failed)
        return super().point(algorithm, size, len(hosts), frames, **kw)


def coll_paper(alg: str, size: int, hosts: int) -> float:
    """The range tree's 2 steps with faults halve its bandwidth; binomial 5 x slower."""
    tree = size / 1000 * (1 if hosts == 16 else 2)
    return tree if alg == "range-tree" else 5 * size / 1000


def test_coll_bandwidth_reproduced_differs_and_no_result() -> None:
    net = CollPoints(coll_paper)
    out = measured("coll.bcast-bandwidth", net, quick=False)
    assert out.verdict == REPRODUCED and not net.failed  # every node restored after
    assert out.values["steps"] == {0: 1, 1: 2, 2: 2, 4: 2}
    assert out.values["speedup"]["4 65536"] == 2.5
    assert out.values["faulty_share"]["1 65536"] == 0.5
    # judged: range tree and binomial at 64 KiB around failed nodes, and the range tree
    # without (its share); shown: binomial without, MPI_Bcast
    assert {p["label"].rsplit(" on ", 1)[0] for p in out.points} == {
        "range-tree 65536 B", "binomial 65536 B"}
    # 3 jobs of each judged point (2 with --quick); binomial without faults too (shown)
    assert len(out.points) == 7 * 3 and len(out.context) == 3 + 4
    iv = out.values["intervals"]
    assert iv["range tree / binomial, 4 failed, 64 KiB"]["interval"] == [2.5, 2.5]
    quick = measured("coll.bcast-bandwidth", CollPoints(coll_paper))
    assert quick.verdict == REPRODUCED and len(quick.points) == 3 * 2
    # the no-fault range multicast flagged: the share is not judged, the headline still is
    edge = measured("coll.bcast-bandwidth", CollPoints(coll_paper, flag={("range-tree", 16)}))
    assert edge.verdict == REPRODUCED and "its share is not judged" in edge.testbed
    assert len(edge.points) == 2 * 2 and edge.values["faulty_share"] == {}
    slow = measured("coll.bcast-bandwidth", CollPoints(
        lambda a, s, h: coll_paper(a, s, h) * (3 if a == "range-tree" and h == 12 else 1)),
        quick=False)
    assert slow.verdict == DIFFERS
    assert "range tree / binomial, 4 failed, 64 KiB [0.83, 0.83] lies outside at least " \
        "1.8" in slow.why
    assert "share of the no-fault bandwidth, 4 failed, 64 KiB [0.17, 0.17]" in slow.why
    same = measured("coll.bcast-bandwidth", CollPoints(lambda a, s, h: s / 1000 * (
        5 if a == "binomial" else 1)))
    assert same.verdict == DIFFERS and "no-fault bandwidth, 2 failed, 64 KiB [1.00, " in \
        same.why
    flagged = measured("coll.bcast-bandwidth", CollPoints(coll_paper,
                                                          flag={("range-tree", 14)}))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why
    # MPI_Bcast is shown, not judged: its flag alone does not take the verdict away
    assert measured("coll.bcast-bandwidth", CollPoints(coll_paper, flag={("mpich", 14)})
                    ).verdict == REPRODUCED


def test_coll_barrier_is_not_applicable_but_shown(monkeypatch) -> None:
    from testbed.reproduce import coll
    from testbed.reproduce.verdict import NOT_APPLICABLE

    def fake(net, failed, hosts, iters):
        assert len(hosts) == 16 - len(failed) and net.failed == set(failed)
        return [{"label": f"{a} barrier, failed {failed}", "algorithm": a, "failed": failed,
                 "ms": {"mpich": 9.0, "tree": 4.0, "range-tree": 5.0}[a],
                 "flags": ["hosts waited"] if a == "tree" and failed else [],
                 "verified": True, "error": None} for a in coll.BARRIERS]

    monkeypatch.setattr(coll, "barrier_points", fake)
    net = CollPoints(coll_paper)
    out = measured("coll.barrier", net, quick=False)
    assert out.verdict == NOT_APPLICABLE and "network hops" in out.why and not net.failed
    assert len(out.points) == 12 and out.values["range_tree_over_tree"][4] == 1.25
    assert "3 point(s) flagged or failed" in out.testbed
    assert out.values["plot"]["series"]["range tree"] == [(0, 5000.0), (1, 5000.0),
                                                          (2, 5000.0), (4, 5000.0)]


def ch6_record(alg, traffic, ms, flags=()):
    """A chapter-6 experiment record as testbed.experiments.run writes it."""
    return {"config": {"algorithm": alg, "size": 1024, "hosts": 8, "traffic": traffic},
            "status": "ok", "t_mcast_s": {"median": ms / 1e3, "p10": 0, "p90": 0},
            "verified": True, "fidelity": {"flags": list(flags)},
            "traffic": {"accepted": 0.1}, "predicted_s": None}


def ch6_jobs(ms, spread=(0.98, 1.0, 1.02), flagged=()):
    """Jobs of stand-in points: every (algorithm, load) of `ms` in each job, a few percent
    apart; the (algorithm, load) in `flagged` flagged in the last job."""
    from testbed.reproduce.nupairoj import record_point

    return [[record_point(ch6_record(a, t, v * f, ["switch waited"] if (a, t) in flagged
                                     and take == len(spread) - 1 else ()), take)
             for (a, t), v in ms.items()] for take, f in enumerate(spread)]


def test_chapter_6_runs_both_dynamic_trees_and_their_rivals_in_one_experiment() -> None:
    from testbed.experiments.spec import from_dict
    from testbed.reproduce.nupairoj import ch6_spec

    quick = from_dict(ch6_spec("mesh:rows=4,cols=4,bw=10", quick=True))
    assert len(quick.points()) == 12 and set(quick.traffic) == {"uniform-20"}
    assert tuple(quick.param_sizes) == (1024,)  # the one size the broadcasts use
    full = from_dict(ch6_spec("mesh:rows=4,cols=4,bw=10", quick=False))
    assert len(full.points()) == 18 and set(full.traffic) == {"uniform-20", "hot-1"}
    assert {p.algorithm for p in full.points()} == {
        "binomial", "opt-tree", "dyn-tree", "u-mesh", "opt-mesh", "dyn-mesh"}


def test_the_two_dynamic_claims_share_the_jobs_of_one_experiment(monkeypatch) -> None:
    from types import SimpleNamespace

    from testbed.reproduce import nupairoj

    runs = []
    ms = {"binomial": 2.5, "opt-tree": 6.0, "dyn-tree": 3.5, "u-mesh": 2.4, "opt-mesh": 5.5,
          "dyn-mesh": 3.4}

    def new_run(spec, out, rate, caps, log):
        runs.append(SimpleNamespace(spec=spec, config={}, params=None,
                                    records_file=out / "records.jsonl"))
        return runs[-1]

    def execute(run, emu):  # measures t_hold/t_end unless given, then every point
        run.params = run.config.get("params") or {"sizes": [1024], "t_hold_s": [1e-4],
                                                  "t_end_s": [6e-4]}
        run.records_file.write_text("".join(
            json.dumps(ch6_record(p.algorithm, p.traffic, ms[p.algorithm])) + "\n"
            for p in run.spec.points()))

    monkeypatch.setattr(nupairoj, "new_run", new_run)
    monkeypatch.setattr(nupairoj, "execute", execute)
    net = SimpleNamespace(spec="mesh:rows=4,cols=4", rate=SimpleNamespace(mbit=10.0),
                          emu=SimpleNamespace(topo=None, caps=None), points={})
    c = Context(True, lambda _msg: None, net)
    tree = BY_KEY["nupairoj.dyn-tree"].run(c)
    mesh = BY_KEY["nupairoj.dyn-mesh"].run(c)
    assert len(runs) == 2  # --quick: 2 jobs, and both claims judged on them
    assert runs[1].config["params"] is runs[0].params  # job 2 on job 1's t_hold/t_end
    assert len(tree.points) == len(mesh.points) == 2 * 2 * 3
    assert mesh.values["t_hold_t_end_us"] == {"t_hold": 100.0, "t_end": 600.0}
    assert tree.verdict == mesh.verdict == DIFFERS  # 1.40x binomial, 1.42x U-Mesh
    assert "DYN-Mesh / OPT-Mesh, uniform-20 0.62 [0.62, 0.62]" in mesh.testbed


def test_dyn_tree_against_the_best_static_tree_by_its_interval_over_jobs() -> None:
    from testbed.reproduce.nupairoj import judge_dynamic

    loads, statics = ["none", "hot-1"], ("binomial", "opt-tree")
    ms = {(a, t): v for t in loads for a, v in (("binomial", 10), ("opt-tree", 8),
                                               ("dyn-tree", 9))}
    out = judge_dynamic(ch6_jobs(ms), loads, "dyn-tree", statics)
    assert out.verdict == REPRODUCED, out.why
    assert out.values["rows"][1]["dyn_over_best"] == 1.125 and len(out.points) == 18
    assert "DYN-Tree / fastest static, hot-1 1.12 [" in out.testbed
    assert out.points[-1]["label"].endswith(", take 3")
    slow = judge_dynamic(ch6_jobs({**ms, ("dyn-tree", "hot-1"): 12}), loads, "dyn-tree",
                         statics)
    assert slow.verdict == DIFFERS and slow.kind == EMULATOR
    assert "DYN-Tree / fastest static, hot-1 [1.4" in slow.why and "at most 1.2" in slow.why
    # the same medians a fifth apart from job to job: the jobs settle neither way
    wide = judge_dynamic(ch6_jobs({**ms, ("dyn-tree", "hot-1"): 10}, (0.8, 1.0, 1.2)),
                         loads, "dyn-tree", statics)
    assert wide.verdict == UNDECIDED and "straddles" in wide.why
    flagged = judge_dynamic(ch6_jobs(ms, flagged={("dyn-tree", "hot-1")}), loads,
                            "dyn-tree", statics)
    assert flagged.verdict == NO_RESULT and "traffic hot-1, take 3" in flagged.why


def test_dyn_mesh_tracks_the_better_of_opt_mesh_and_u_mesh_and_beats_opt_mesh_under_load(
) -> None:
    from testbed.reproduce.nupairoj import MESH_STATIC, judge_dynamic

    loads = ["none", "uniform-20", "hot-1"]
    # the paper's shape: OPT-Mesh best at no load, worse than U-Mesh under load
    paper = {("opt-mesh", "none"): 5, ("u-mesh", "none"): 8, ("dyn-mesh", "none"): 5.2}
    for t in loads[1:]:
        paper |= {("opt-mesh", t): 12, ("u-mesh", t): 9, ("dyn-mesh", t): 9.5}
    out = judge_dynamic(ch6_jobs(paper), loads, "dyn-mesh", MESH_STATIC)
    assert out.verdict == REPRODUCED, out.why
    assert "none: DYN-Mesh 5.2 ms, U-Mesh 8.0, OPT-Mesh 5.0 (OPT-Mesh/U-Mesh 0.62)" in \
        out.testbed
    assert "load over none: U-Mesh 1.12, OPT-Mesh 2.40, DYN-Mesh 1.83" in out.testbed
    assert set(out.values["intervals"]) == {
        "DYN-Mesh / fastest static, none", "DYN-Mesh / fastest static, uniform-20",
        "DYN-Mesh / fastest static, hot-1", "DYN-Mesh / OPT-Mesh, uniform-20",
        "DYN-Mesh / OPT-Mesh, hot-1"}
    # this testbed's shape: load moves nothing, and DYN-Mesh is U-Mesh's 1.4x everywhere
    here = {(a, t): v for t in loads for a, v in (("opt-mesh", 6), ("u-mesh", 2.4),
                                                  ("dyn-mesh", 3.4))}
    flat = judge_dynamic(ch6_jobs(here), loads, "dyn-mesh", MESH_STATIC)
    assert flat.verdict == DIFFERS and flat.kind == EMULATOR
    assert "DYN-Mesh / fastest static, none [1.3" in flat.why
    assert "no broadcasting host's own link queues" in flat.why
    assert flat.values["intervals"]["DYN-Mesh / OPT-Mesh, hot-1"]["verdict"] == REPRODUCED


def test_mesh_contention_judged_with_intervals_over_jobs() -> None:
    from testbed.reproduce.nupairoj import judge_contention

    places = ["node order", "shuffled (seed 4)"]
    pairs = {(a, pl): 5 if a == "opt-tree" and pl == places[1] else 0
             for a in ("opt-tree", "opt-mesh", "u-mesh") for pl in places}

    def pts(ms, spread=(0.99, 1.0, 1.01)):  # jobs a few percent apart
        return {(a, pl): [{"label": f"{a} {pl}", "ms": ms[(a, pl)] * f, "flags": [],
                           "verified": True} for f in spread] for a, pl in pairs}

    paper = {k: (125.0 if k == ("opt-tree", places[1]) else 100.0) for k in pairs}
    out = judge_contention(pts(paper), pairs, places)
    assert out.verdict == REPRODUCED, out.why
    assert out.values["contention_rate"]["opt-tree"] == 0.2
    assert out.testbed.startswith("median of 3 job(s) each") and len(out.points) == 18
    lo, hi = out.values["intervals"]["OPT-Tree's t_c"]["interval"]
    assert 0.05 < lo < 0.2 < hi < 0.3
    # the same medians, jobs a quarter apart (as jobs of one broadcast were): undecided
    wide = judge_contention(pts(paper, (0.8, 1.0, 1.25)), pairs, places)
    assert wide.verdict == UNDECIDED and "straddles" in wide.why
    free = judge_contention(pts({k: 100.0 for k in pairs}), pairs, places)
    assert free.verdict == DIFFERS and "OPT-Tree's t_c [" in free.why
    assert "lies outside at least 0.05" in free.why
    slow = {k: (125.0 if k[0] != "u-mesh" and k[1] == places[1] else 100.0) for k in pairs}
    slow[("opt-mesh", places[1])] = 140.0
    assert "OPT-Mesh / OPT-Tree, shuffled [1.1" in judge_contention(pts(slow), pairs,
                                                                    places).why
    # the chapter's order: OPT-Mesh no slower than U-Mesh, unless the model prices them alike
    ahead = {**paper, ("u-mesh", places[1]): 80.0}
    behind = judge_contention(pts(ahead), pairs, places)
    assert behind.verdict == DIFFERS and "OPT-Mesh / U-Mesh" in behind.why
    alike = {k: 100.0 for k in pairs}
    na = judge_contention(pts(ahead), pairs, places, model=alike)
    assert na.verdict == REPRODUCED and "not applicable: the model prices them" in na.testbed
    flagged = pts({k: 100.0 for k in pairs})
    flagged[("u-mesh", places[0])][1]["flags"] = ["switch waited"]
    assert judge_contention(flagged, pairs, places).verdict == NO_RESULT


def test_bootstrap_intervals_and_the_margin_rule() -> None:
    from testbed.reproduce.verdict import against, bootstrap, combined

    jobs = {"a": [10.0, 11.0, 12.0], "b": [5.0]}
    lo, hi = bootstrap(jobs, lambda m: m["a"] / m["b"])
    assert (lo, hi) == (2.0, 2.4)  # the medians of resampled jobs span the jobs
    assert bootstrap({"a": [3.0]}, lambda m: m["a"]) == (3.0, 3.0)
    assert against((2.0, 2.4), lo=1.5) == REPRODUCED
    assert against((2.0, 2.4), hi=1.9) == DIFFERS
    assert against((2.0, 2.4), lo=2.2) == UNDECIDED
    assert against((0.0, 0.1), lo=-1, hi=1) == REPRODUCED
    assert combined([REPRODUCED, UNDECIDED]) == UNDECIDED
    assert combined([UNDECIDED, DIFFERS]) == DIFFERS
    assert combined([REPRODUCED]) == REPRODUCED
    with pytest.raises(ValueError):
        bootstrap({"a": []}, lambda m: m["a"])
    with pytest.raises(ValueError):  # an undecided verdict says why
        Outcome(UNDECIDED, "x")


def test_tseng_measured_size_gain_and_balance_judged_on_points() -> None:
    """Each figure per random draw (the jobs), judged by the interval of its median."""
    from testbed.reproduce.tseng import LARGE, SMALL, judge_balance, judge_size_gain
    from testbed.reproduce.verdict import NOT_APPLICABLE

    def pt(scheme: str, sources: int, size: int, ms: float, model: float,
           flags: tuple[str, ...] = ()) -> dict:
        return {"label": f"{scheme} {sources} {size}", "scheme": scheme, "sources": sources,
                "size": size, "ms": ms, "model_ms": model, "verified": True,
                "flags": list(flags)}

    def job(sources: int, ms: dict, model: dict) -> dict:
        return {k: pt(k[0], sources, k[1], ms[k], model[k]) for k in ms}

    # the model grows 0.8 -> 0.9 (direct over the best of random and balanced)
    model = {("direct", SMALL): 8.0, ("random", SMALL): 10.0, ("balanced", SMALL): 11.0,
             ("direct", LARGE): 90.0, ("random", LARGE): 110.0, ("balanced", LARGE): 100.0}

    def draws(*small_direct: float, base: dict = model) -> list[dict]:
        return [job(8, {**model, ("direct", SMALL): d}, base) for d in small_direct]

    out = judge_size_gain(draws(7.0, 7.2, 6.8))  # measured 0.70 -> 0.90, three draws
    assert out.verdict == REPRODUCED, out.why
    assert out.values["gain"][str(SMALL)] == pytest.approx(0.7)
    assert out.values["model_gain"][str(LARGE)] == pytest.approx(0.9)
    lo, hi = out.values["intervals"]["gain at 64 KiB / at 1 KiB"]["interval"]
    assert 1.24 < lo <= hi < 1.33 and len(out.points) == 18
    flat = judge_size_gain(draws(9.5, 9.4, 9.6))  # 0.95 -> 0.90
    assert flat.verdict == DIFFERS and "gain at 64 KiB / at 1 KiB [0.94" in flat.why
    assert "lies outside at least 1" in flat.why and flat.kind == EMULATOR
    split = judge_size_gain(draws(7.0, 9.5, 9.6))  # one draw grows, two do not
    assert split.verdict == UNDECIDED, split.why
    flagged = draws(7.0, 7.0, 7.0)
    flagged[1][("balanced", LARGE)]["flags"] = ["hosts waited"]
    assert judge_size_gain(flagged).verdict == NO_RESULT
    failed = draws(7.0, 7.0, 7.0)
    failed[2][("direct", LARGE)]["ms"] = None
    assert judge_size_gain(failed).verdict == NO_RESULT
    # the model sees no growth: not applicable, whatever was measured (flagged or not)
    no_growth = {**model, ("direct", LARGE): 70.0}
    na = judge_size_gain(draws(7.0, 7.0, 7.0, base=no_growth))
    assert na.verdict == NOT_APPLICABLE and "sees no growth (median over the draws 0.87)" \
        in na.why

    def bal(*pairs: tuple[float, float]) -> list[dict]:
        out = []
        for r4, r8 in pairs:
            four = {("random", LARGE): 100.0 * r4, ("balanced", LARGE): 100.0}
            eight = {**model, ("random", LARGE): 100.0 * r8, ("balanced", LARGE): 100.0}
            out.append({4: job(4, four, four), 8: job(8, eight, eight)})
        return out

    helps = judge_balance(bal((1.2, 1.05), (1.25, 1.0), (1.15, 1.1)))
    assert helps.verdict == REPRODUCED and len(helps.points) == 12
    assert len(helps.context) == 12  # 8 sources: direct at 64 KiB and the three at 1 KiB
    assert helps.values["balance"] == {"4": pytest.approx(1.2), "8": pytest.approx(1.05)}
    other = judge_balance(bal((1.0, 1.1), (1.0, 1.1), (1.0, 1.1)))
    assert other.verdict == DIFFERS and "random / balanced, 4 sources over 8 [0.91, 0.91] " \
        "lies outside" in other.why
    points = bal((1.2, 1.05))
    points[0][4][("random", LARGE)]["flags"] = ["hosts waited"]
    assert judge_balance(points).verdict == NO_RESULT
    shown_flag = bal((1.2, 1.05))  # a flagged point beside the judged ones does not matter
    shown_flag[0][8][("direct", SMALL)]["flags"] = ["hosts waited"]
    assert judge_balance(shown_flag).verdict == REPRODUCED


def test_tseng_measured_claims_are_full_run_only_on_torus16() -> None:
    from testbed.reproduce.networks import NETWORKS

    for key in ("tseng.size-gain-measured", "tseng.balance-measured"):
        c = BY_KEY[key]
        assert c.network == "torus16" and not c.in_quick and c.paper == "Tseng2001"
    assert NETWORKS["torus16"].spec == "torus:rows=4,cols=4"
    assert [c.key for c in select(["tseng"], quick=False)] == [
        "tseng.size-gain", "tseng.balance", "tseng.hot-spot", "tseng.size-gain-measured",
        "tseng.balance-measured"]


def test_tseng_measured_points_retake_the_flagged_rows_once_and_share_the_job(
        monkeypatch) -> None:
    from testbed.reproduce import tseng

    calls = []

    def job(net, sources, sizes, schemes, tries, seed):
        calls.append((sources, tuple(sizes), tuple(schemes), tries))
        return {(s, z): {"label": f"{s} {z}", "ms": 10.0, "verified": True, "tries": tries,
                         "flags": ["hosts waited"] if (s, z, tries) == ("random", 65536, 1)
                         else []} for s in schemes for z in sizes}

    monkeypatch.setattr(tseng, "run_job", job)
    monkeypatch.setattr(tseng, "fit", lambda net: (1e-3, 1e-6))

    class Net:
        points: dict = {}

    net = Net()
    got = tseng.points(net, 8, (1024, 65536), tseng.SCHEMES)
    assert calls == [(8, (1024, 65536), tseng.SCHEMES, 1), (8, (65536,), ("random",), 2)]
    assert got[("random", 65536)]["tries"] == 2 and not got[("random", 65536)]["flags"]
    assert got[("direct", 1024)]["tries"] == 1
    assert got[("direct", 65536)]["model_ms"] > got[("direct", 1024)]["model_ms"] > 0
    assert tseng.points(net, 8, (1024, 65536), tseng.SCHEMES) is got and len(calls) == 2


def test_a_point_carries_its_median_spread_and_whether_it_is_a_result():
    from testbed.reproduce.verdict import is_result, point

    t = {"median": 0.002, "p10": 0.001, "p90": 0.003, "min": 0.0005, "max": 0.004}
    p = point("nack 1 KiB", t, verified=True, flags=[], algorithm="nack")
    assert (p["ms"], p["p10_ms"], p["p90_ms"], p["algorithm"]) == (2.0, 1.0, 3.0, "nack")
    assert is_result(p) and p["tries"] == 1 and p["error"] is None
    q = point("x", t, verified=True, flags=[], spread=("min", "max"))
    assert (q["min_ms"], q["max_ms"]) == (0.5, 4.0) and "p10_ms" not in q
    failed = point("y", None, verified=False, flags=[], error="timeout", tries=2)
    assert failed["ms"] is None and failed["p90_ms"] is None and not is_result(failed)
    assert not is_result(point("z", t, verified=True, flags=["cpu"]))


def test_benchmark_pitfall_judges_both_rankings_over_jobs() -> None:
    """Algorithm 3.3.1 (the root's back-to-back time) against t_mcast: chain/binomial below
    1 by the first, above 1 by the second, each by its interval over the jobs."""
    from testbed.reproduce.jobs import QUICK_TAKES

    class Net(Points):
        def __init__(self, root, mcast, flag=()):
            super().__init__(mcast, flag)
            self.root, self.takes = root, []

        def point(self, algorithm, size, hosts, frames=0, **kw):
            assert kw["naive"] > 0  # every job times both benchmarks
            self.takes.append(kw["take"])
            p = super().point(algorithm, size, hosts, frames)
            return p | {"naive_ms": self.root(algorithm, hosts)}

    def chain_fast_at_root(a, h):
        return 4.0 if a == "chain" else 4.0 * 4

    def tree_ms(a, size, h):
        return (h - 1) * 7.0 if a == "chain" else 4 * 8.0

    net = Net(chain_fast_at_root, tree_ms)
    out = measured("nupairoj.benchmark-pitfall", net)
    assert out.verdict == REPRODUCED, out.why
    assert sorted(set(net.takes)) == list(range(QUICK_TAKES)) and len(out.points) == 4
    iv = out.values["intervals"]
    assert iv["t_root chain/binomial, 16 hosts"]["interval"] == [0.25, 0.25]
    assert iv["t_mcast chain/binomial, 16 hosts"]["figure"] == pytest.approx(105 / 32, 1e-3)
    full = measured("nupairoj.benchmark-pitfall", Net(chain_fast_at_root, tree_ms), False)
    assert len(full.points) == 2 * 2 * 3 and "8 hosts" in full.testbed
    same = measured("nupairoj.benchmark-pitfall",
                    Net(lambda a, h: 20.0 if a == "chain" else 16.0, tree_ms))
    assert same.verdict == DIFFERS and same.kind == TRANSFER
    assert "t_root chain/binomial, 16 hosts [1.25, 1.25] lies outside at most 1" in same.why
    flagged = measured("nupairoj.benchmark-pitfall",
                       Net(chain_fast_at_root, tree_ms, flag={("chain", 16)}))
    assert flagged.verdict == NO_RESULT


class TakesPoints(Points):
    """A stand-in network whose jobs differ: take t scales every time by `spread[t]`."""

    def __init__(self, ms, spread=(0.98, 1.0, 1.02), flag=()):
        super().__init__(ms, flag)
        self.spread = spread

    def point(self, algorithm, size, hosts, frames=0, **kw):
        p = super().point(algorithm, size, len(hosts) if isinstance(hosts, list) else hosts)
        return p | {"ms": p["ms"] * self.spread[kw.get("take", 0)]}


def test_software_faults_judges_binomials_share_over_jobs(monkeypatch) -> None:
    """Coll's figure 9: binomial around failed nodes keeps its no-fault bandwidth (0.9-1.15),
    judged over 3 jobs at every failed count."""
    from testbed.reproduce import coll

    monkeypatch.setattr(coll, "set_failed", lambda net, failed: [f"h{n}" for n in range(16)
                                                                   if n not in failed])
    flat = measured("coll.software-faults", TakesPoints(lambda a, s, h: 100.0), quick=False)
    assert flat.verdict == REPRODUCED, flat.why
    assert len(flat.points) == 12 and set(flat.values["intervals"]) == {
        "1 failed / none", "2 failed / none", "4 failed / none"}
    # with fewer hosts, a tree whose time follows the host count: 4 failed is 1.33x faster
    fewer = measured("coll.software-faults", TakesPoints(lambda a, s, h: 10.0 * h), quick=False)
    assert fewer.verdict == DIFFERS and fewer.kind == TRANSFER
    assert "4 failed / none [1.28, 1.39] lies outside" in fewer.why and "at most 1.15" in fewer.why
    wide = measured("coll.software-faults",
                    TakesPoints(lambda a, s, h: 100.0 if h == 16 else 95.0, (0.8, 1.0, 1.25)))
    assert wide.verdict == UNDECIDED


def test_chen_scaling_judges_how_the_cost_of_a_process_grows() -> None:
    """Chen's figure 12: one more process costs the linear multicast one more scout at any
    size, MPICH's tree one more copy: linear's growth over MPICH's at most 0.5."""
    def ms(a, s, h):
        return 1.0 + 0.3 * h + (0.1 * s / 1000 if a == "scout-linear" else 0.05 * h * s / 1000)

    out = measured("chen.scaling", TakesPoints(ms), quick=False)
    assert out.verdict == REPRODUCED, out.why
    assert len(out.points) == 24
    assert out.values["per_process_ms"]["scout-linear 1000"] == pytest.approx(0.3)
    assert out.values["per_process_ms"]["mpich 8192"] == pytest.approx(0.3 + 0.05 * 8.192)
    same = measured("chen.scaling", TakesPoints(lambda a, s, h: 0.05 * h * s / 1000 + h),
                    quick=False)
    assert same.verdict == DIFFERS and same.kind == EMULATOR
    assert "scout-linear's growth / MPI_Bcast's [0.70, 1.47] lies outside at most 0.5" in same.why
    assert BY_KEY["chen.scaling"].in_quick is False


def test_a_crossover_the_jobs_do_not_settle_is_undecided() -> None:
    """One job has two-stage win from 8 hosts on, the other from 16: the interval over the
    jobs, 8-16 hosts, straddles the limit of 9: undecided."""
    class Jobs(Points):
        def point(self, algorithm, size, hosts, frames=0, **kw):
            p = super().point(algorithm, size, hosts, frames)
            win = {0: (8, 16), 1: (16,)}[kw["take"]]
            ms = 1.0 if algorithm == "two-stage" and hosts in win else 2.0 + (
                algorithm == "two-stage")
            return p | {"ms": ms}

    out = measured("siebert.crossover-4k", Jobs(lambda a, s, h: 1.0))
    assert out.verdict == UNDECIDED, out.why
    assert "8-16 hosts" in out.testbed and "not surely from 9 hosts" in out.why


def test_figure_7_judges_greedy_against_the_optimum_and_the_depth(monkeypatch) -> None:
    """Coll's figure 7 on a small grid: greedy's pooled share of optima against 99 %, the
    deepest tree against 4 steps."""
    from collectives.range_trees.sensitivity import SensitivityCell
    from testbed.reproduce import pure

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
