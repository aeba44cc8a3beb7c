"""testbed.reproduce.scale_tier (`mcastlab reproduce --scale`): every variant scales an
ordinary claim about growth with the number of nodes onto a star of its host count; the
choice of variants (by variant, by claim, by paper, --quick) and its refusals; the
variants' verdicts on stand-in points, with margins that follow the host count; and a run
of the tier writing its own report. No network."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from testbed.errors import UsageError
from testbed.reproduce import all_claims, scale_tier, siebert, siebert_basic
from testbed.reproduce.claims import Context
from testbed.reproduce.jobs import takes
from testbed.reproduce.networks import NETWORKS
from testbed.reproduce.verdict import DIFFERS, EMULATOR, NO_RESULT, REPRODUCED, UNDECIDED

from .stand_ins import Points, flat_mcast
from .test_siebert import LibraryPoints, ModelPoints

KEYS = ["siebert.flat-64k@64", "siebert.crossover-4k@64", "siebert.beats-libraries-64k@64",
        "siebert.basic-scaling@32", "siebert.basic-scaling@64"]


def run(key: str, net: object, quick: bool = True):
    return scale_tier.BY_KEY[key].run(Context(quick, lambda _m: None, net))


# ---- the variants ---------------------------------------------------------------------------
def test_every_variant_scales_an_ordinary_claim_onto_a_star_of_its_host_count() -> None:
    assert [c.key for c in scale_tier.CLAIMS] == KEYS
    for c in scale_tier.CLAIMS:
        base = all_claims.BY_KEY[scale_tier.base_key(c.key)]
        hosts = int(c.key.split("@")[1])
        # the same claim: its statement, paper figure and --quick mark
        assert (c.paper, c.statement, c.figure, c.in_quick) == (
            base.paper, base.statement, base.figure, base.in_quick)
        assert c.run is not base.run and c.margin != base.margin
        assert f"{hosts} hosts" in c.margin or f"T({hosts})" in c.margin, c.margin
        assert NETWORKS[c.network].spec == f"star:hosts={hosts}"
    # two-stage's claims at a third of 64 hosts' calibrated rate, as star16-busy is of 16's
    assert {c.network for c in scale_tier.CLAIMS} == {"star64-busy", "star32", "star64-trees"}
    assert NETWORKS["star64-busy"].share == NETWORKS["star16-busy"].share == 1 / 3
    # the point-to-point trees on 64 hosts at two thirds of 64's rate, on 32 at the whole
    assert (NETWORKS["star64-trees"].share, NETWORKS["star32"].share) == (2 / 3, 1.0)
    # the ordinary claims are unchanged
    assert siebert.flat_margin() == all_claims.BY_KEY["siebert.flat-64k"].margin
    assert "binomial's at least 2 (half" in siebert.flat_margin()
    assert siebert_basic.SPLIT == 2.9
    # a growth claim left out says why; none is both in and out
    assert all(why for why in scale_tier.LEFT_OUT.values())
    assert not any(scale_tier.base_key(k) in left for k in KEYS for left in scale_tier.LEFT_OUT)


def test_margins_follow_the_host_count() -> None:
    """binomial's least growth is half the model's ceil(log2 N); figure 10's split between
    linear and logarithmic growth is the midpoint of the model's sequential and binomial."""
    assert [siebert.grows(n) for n in (16, 32, 64)] == [2.0, 2.5, 3.0]
    assert [siebert_basic.split(n) for n in (16, 32, 64)] == [2.9, 4.9, 8.7]
    assert "more than 8.7 (the model's linear 14.44)" in scale_tier.BY_KEY[
        "siebert.basic-scaling@64"].margin


# ---- choosing them ----------------------------------------------------------------------------
def test_select_by_variant_by_claim_by_paper_and_quick() -> None:
    def keys(only, quick=False):
        return [c.key for c in all_claims.select(only, quick, scale=True)]

    assert keys(None) == KEYS and all_claims.tier(True) == scale_tier.CLAIMS
    assert keys(None, quick=True) == ["siebert.flat-64k@64", "siebert.crossover-4k@64"]
    assert keys(["siebert.basic-scaling"]) == KEYS[3:]
    assert keys(["siebert.basic-scaling@64", "siebert.flat-64k"]) == [KEYS[0], KEYS[4]]
    assert keys(["siebert"]) == keys(["siebert."]) == KEYS
    # a named claim runs with --quick too, as in the ordinary run
    assert keys(["siebert.beats-libraries-64k"], quick=True) == [KEYS[2]]
    # without --scale the variants are not claims
    with pytest.raises(UsageError, match="no claim 'siebert.flat-64k@64'"):
        all_claims.select(["siebert.flat-64k@64"], False)


@pytest.mark.parametrize(("name", "needle"), [
    ("siebert.skew", "'siebert.skew' is not a growth claim of the scale tier"),
    ("nupairoj", "'nupairoj' is not a growth claim of the scale tier"),
    ("siebert.flat-64k@16", "no claim 'siebert.flat-64k@16' (the scale tier: "),
    ("nope", "no claim 'nope'"),
])
def test_select_refuses_what_the_tier_does_not_hold(name: str, needle: str) -> None:
    with pytest.raises(UsageError, match=re.escape(needle)) as err:
        all_claims.select([name], False, scale=True)
    assert ", ".join(KEYS) in str(err.value)


def test_list_names_the_tier_its_budget_and_what_is_left_out(
        capsys: pytest.CaptureFixture[str]) -> None:
    from testbed.cli.main import main

    assert main(["reproduce", "--scale", "--list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("the scale tier: ") and "minutes" in out[0]
    assert [line.split()[0] for line in out[1:6]] == KEYS
    assert "star64-busy: section 4.2.2" in out[1]
    assert out[6] == "not in the tier:" and len(out) == 7 + len(scale_tier.LEFT_OUT)
    assert main(["reproduce", "--scale", "--only", "siebert.skew", "--list"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is not a growth claim of the scale tier" in err[0]


# ---- their verdicts on stand-in points ----------------------------------------------------
class RatedPoints(Points):
    """Points on a network with a link rate (M/B 174.8 ms at 3 Mbit/s)."""

    rate = SimpleNamespace(mbit=3.0)


def test_flat_at_64_hosts_judges_t64_over_t2_and_draws_the_counts_between() -> None:
    full = RatedPoints(flat_mcast)
    out = run("siebert.flat-64k@64", full, quick=False)
    assert out.verdict == REPRODUCED, out.why
    assert set(out.values["intervals"]) == {"two-stage T(64)/T(2)", "binomial T(64)/T(2)"}
    assert out.testbed.startswith("T(64)/T(2): two-stage 1.00, binomial 32.00")
    # the judged medians in multiples of M/B too: the ratio's meaning does not move with
    # the rate
    assert "in multiples of M/B (175 ms at 3 Mbit/s) two-stage 0.17 -> 0.17, binomial " \
        "0.11 -> 3.66" in out.testbed
    (asks, n), = full.batches
    assert n == takes(False)
    assert {(a.algorithm, a.count, a.takes) for a in asks} == {
        (a, h, None if h in (2, 64) and a in ("two-stage", "binomial") else 1)
        for a in ("two-stage", "binomial", "mpich", "nack") for h in scale_tier.FLAT_HOSTS}
    # binomial growing 2.8 x: a tree's growth at 16 hosts (at least 2), not at 64 (3)
    slow = {2: 10.0, 16: 28.0, 64: 28.0}
    tree = RatedPoints(lambda a, s, h: 30.0 if a == "two-stage" else slow[h])
    grows = run("siebert.flat-64k@64", tree)
    assert grows.verdict == DIFFERS and grows.kind == EMULATOR
    assert "binomial T(64)/T(2) [2.80, 2.80] lies outside at least 3" in grows.why
    assert all_claims.BY_KEY["siebert.flat-64k"].run(
        Context(True, lambda _m: None, tree)).verdict == REPRODUCED
    # a flagged point at 64 hosts is no result, whatever the others say
    flagged = run("siebert.flat-64k@64", RatedPoints(flat_mcast, flag={("two-stage", 64)}))
    assert flagged.verdict == NO_RESULT and "hosts waited" in flagged.why
    assert "two-stage 65536 B on 64 hosts" in flagged.why


def test_crossover_at_64_hosts_judges_every_count_from_4() -> None:
    net = Points(flat_mcast)
    out = run("siebert.crossover-4k@64", net)
    assert out.verdict == REPRODUCED and out.values["from_hosts"] == 4
    assert {a.count for a in net.batches[0][0]} == set(scale_tier.CROSSOVER_HOSTS)
    # the multicast wins up to 16 hosts and loses past it: not "at every larger count"
    late = run("siebert.crossover-4k@64", Points(
        lambda a, s, h: 1000.0 if a == "two-stage" and h > 16 else
        1.0 if a == "two-stage" else 10.0 * h))
    assert late.verdict == DIFFERS and "never beats" in late.testbed
    assert "up to 64 hosts" in late.testbed


def test_libraries_at_64_hosts_run_as_the_libraries_chose_for_64_ranks() -> None:
    net = LibraryPoints(lambda a, s, h: 30.0 if a == "two-stage" else 9.0 * h)
    out = run("siebert.beats-libraries-64k@64", net, quick=False)
    assert out.verdict == REPRODUCED, out.why
    seg, rd = '{"fragment": 16384}', '{"allgather": "recursive-doubling"}'
    assert {a[:4] for a in net.asked if a[1] == 64} == {
        ("two-stage", 64, None, "{}"), ("binary", 64, "overlapped", seg),
        ("scatter-allgather", 64, "overlapped", rd)}
    assert {a[1] for a in net.asked} == {4, 8, 16, 32, 64}
    assert "judged on 4, 64 hosts, 8, 16, 32 drawn from one job" in out.testbed
    assert len(out.points) == 6 * siebert.LIBRARY_JOBS and len(out.context) == 9


@pytest.mark.parametrize("to", [32, 64])
def test_basic_scaling_at_32_and_64_hosts_against_the_models_growth(to: int) -> None:
    net = ModelPoints()
    out = run(f"siebert.basic-scaling@{to}", net, quick=False)
    assert out.verdict == REPRODUCED, out.why
    got = {i: v["figure"] for i, v in out.values["intervals"].items()}
    for a in siebert_basic.BASIC:  # the model's, as the stand-in network runs it
        assert got[f"{a} T({to})/T(4)"] == pytest.approx(
            siebert_basic.model_growth(a, to), abs=1e-3)
    assert got[f"binomial / binary, {to} hosts"] < 1
    assert {a[1] for a in net.asked} == {4, to, *scale_tier.BASIC_DRAWN[to]}
    # a linear broadcast that grows as the 16-host margin allows, not as the larger one's
    flat = ModelPoints()
    base = flat.point

    def point(algorithm, size, hosts, frames=0, **kw):
        p = base(algorithm, size, hosts, frames, **kw)
        if algorithm == "chain" and hosts == to:  # 3.5 x from 4 hosts
            k = 3.5 / siebert_basic.model_growth("chain", to)
            p = p | {f: [t * k for t in p[f]] for f in ("rank_return_s", "rank_done_s")}
        return p

    flat.point = point
    grows = run(f"siebert.basic-scaling@{to}", flat)
    assert grows.verdict == DIFFERS
    assert f"chain T({to})/T(4) [3.50, 3.50] lies outside at least " \
        f"{siebert_basic.split(to)}" in grows.why


# ---- a run of the tier -------------------------------------------------------------------
def test_a_run_of_the_tier_writes_its_own_report(tmp_path: Path, monkeypatch) -> None:
    """run(scale=True): the tier's claims in the report (those not chosen skipped), its
    networks as the variants name them, and a title that says what it is."""
    from testbed.reproduce import run as runner

    brought: list[str] = []

    @contextlib.contextmanager
    def running(name, _caps, _progress):
        brought.append(name)
        net = RatedPoints(flat_mcast)
        net.describe = lambda: {"topology": NETWORKS[name].spec, "rate": "3 Mbit/s"}
        yield net

    monkeypatch.setenv("MCASTLAB_FIGURE_FORMATS", "none")
    monkeypatch.setattr(runner.networks, "running", running)
    doc = runner.run(tmp_path, quick=True, only=["siebert.flat-64k"], scale=True,
                     progress=lambda _m: None)
    assert brought == ["star64-busy"] and doc["scale"] is True
    assert [c["key"] for c in doc["claims"]] == KEYS
    assert [c["verdict"] for c in doc["claims"]] == [REPRODUCED] + ["skipped"] * 4
    assert json.loads((tmp_path / "reproduce.json").read_text())["scale"] is True
    md = (tmp_path / "reproduce.md").read_text()
    assert md.startswith("# The papers' growth claims at 32 and 64 hosts on this testbed")
    assert "| siebert.flat-64k@64 | Siebert2006 |" in md


def test_basic_scaling_undecided_says_where_each_jobs_binomial_over_binary_lies() -> None:
    """On 32 hosts one job's binomial 1.2 x slower than the model's (the scale run of
    2026-12-07: 710 ms in one job of five, 568-613 in the others): binomial / binary's
    interval straddles 1, and the claim says where each job's own ratio lies."""
    class OneSlowJob(ModelPoints):
        def point(self, algorithm, size, hosts, frames=0, **kw):
            p = super().point(algorithm, size, hosts, frames, **kw)
            if algorithm == "binomial" and hosts == 32 and kw["take"] == 1:
                p = p | {f: [t * 1.2 for t in p[f]] for f in ("rank_return_s", "rank_done_s")}
            return p

    out = run("siebert.basic-scaling@32", OneSlowJob(), quick=False)
    assert out.verdict == UNDECIDED, out.why
    assert "binomial / binary, 32 hosts [0.87, 1.05] straddles at most 1" in out.why
    assert "(binomial / binary, 32 hosts: 4 of 5 jobs inside (0.87), 1 outside (1.05)): " \
        "the ranks share the 2 cores" in out.why
