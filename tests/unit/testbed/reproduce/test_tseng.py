"""testbed.reproduce.tseng: the measured claims (size gain and balance) judged per random draw
on stand-in points, run in full only on the 16x16 torus, flagged rows taken again once
within the job."""

from __future__ import annotations

import pytest

from testbed.reproduce.all_claims import BY_KEY, select
from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    TRANSFER,
    UNDECIDED,
)


def test_tseng_measured_size_gain_and_balance_judged_on_points() -> None:
    """Each figure per random draw (the jobs), judged by the interval of its median."""
    from testbed.reproduce.tseng import (
        GAIN_LARGE,
        GAIN_SMALL,
        LARGE,
        SMALL,
        judge_balance,
        judge_size_gain,
    )

    def pt(scheme: str, sources: int, size: int, ms: float, model: float,
           flags: tuple[str, ...] = ()) -> dict:
        return {"label": f"{scheme} {sources} {size}", "scheme": scheme, "sources": sources,
                "size": size, "ms": ms, "model_ms": model, "verified": True,
                "flags": list(flags)}

    def job(sources: int, ms: dict, model: dict) -> dict:
        return {k: pt(k[0], sources, k[1], ms[k], model[k]) for k in ms}

    # the model grows 0.8 -> 0.9 (direct over the best of random and balanced)
    small, large = GAIN_SMALL, GAIN_LARGE
    model = {("direct", small): 8.0, ("random", small): 10.0, ("balanced", small): 11.0,
             ("direct", large): 90.0, ("random", large): 110.0, ("balanced", large): 100.0}

    def draws(*small_direct: float, base: dict = model) -> list[dict]:
        return [job(8, {**model, ("direct", GAIN_SMALL): d}, base) for d in small_direct]

    out = judge_size_gain(draws(7.0, 7.2, 6.8))  # measured 0.70 -> 0.90, three draws
    assert out.verdict == REPRODUCED, out.why
    assert out.values["gain"][str(GAIN_SMALL)] == pytest.approx(0.7)
    assert out.values["model_gain"][str(GAIN_LARGE)] == pytest.approx(0.9)
    lo, hi = out.values["intervals"]["gain at 8 KiB / at 256 B"]["interval"]
    assert 1.24 < lo <= hi < 1.33 and len(out.points) == 18
    flat = judge_size_gain(draws(9.5, 9.4, 9.6))  # 0.95 -> 0.90
    assert flat.verdict == DIFFERS and "gain at 8 KiB / at 256 B [0.94" in flat.why
    assert "lies outside at least 1" in flat.why and flat.kind == EMULATOR
    split = judge_size_gain(draws(7.0, 9.5, 9.6))  # one draw grows, two do not
    assert split.verdict == UNDECIDED, split.why
    # undecided says how far the measured growth falls short of the model's, draw by draw
    assert "per draw the measured growth is 0.83-1.14 of the step model's (1.12-1.12)" \
        in split.why
    # and, where the partitioned plans ran further below the model at the small size than
    # U-torus, that the model's growth is its startup a step fading
    assert "measured / model (median of draws) at 256 B: u-torus 1.19" in split.why
    assert "at 256 B the partitioned plans took 1.00-1.00 of the model's time, U-torus 1.19" \
        in split.why
    assert "back-to-back" not in judge_size_gain(draws(9.5, 7.0, 7.3)).why  # U-torus 0.91
    flagged = draws(7.0, 7.0, 7.0)
    flagged[1][("balanced", GAIN_LARGE)]["flags"] = ["hosts waited"]
    assert judge_size_gain(flagged).verdict == NO_RESULT
    failed = draws(7.0, 7.0, 7.0)
    failed[2][("direct", GAIN_LARGE)]["ms"] = None
    assert judge_size_gain(failed).verdict == NO_RESULT
    # the model sees no growth: not applicable, whatever was measured (flagged or not)
    no_growth = {**model, ("direct", GAIN_LARGE): 70.0}
    na = judge_size_gain(draws(7.0, 7.0, 7.0, base=no_growth))
    assert na.verdict == NOT_APPLICABLE and "sees no growth (median over the draws 0.87)" \
        in na.why
    # the model grows in the median but not in every draw (its own interval straddles 1):
    # these draws cannot show it, whatever was measured
    mixed = draws(7.0, 7.0, 7.0)
    for d, direct in zip(mixed, (90.0, 70.0, 90.0), strict=True):
        d[("direct", GAIN_LARGE)]["model_ms"] = direct
    na2 = judge_size_gain(mixed)
    assert na2.verdict == NOT_APPLICABLE and na2.kind == TRANSFER
    assert "the step model itself, on the same 3 draws, puts the growth at 1.12 [0.87, " \
        "1.12] (per draw 1.12, 0.87, 1.12), not above 1" in na2.why

    def bal(*pairs: tuple[float, float], models: tuple[tuple[float, float], ...] = ()
            ) -> list[dict]:
        """Per draw random / balanced with 4 and 8 sources, measured (the step model's
        the same, or `models`)."""
        out = []
        for (r4, r8), (m4, m8) in zip(pairs, models or pairs, strict=True):
            four = {("random", LARGE): 100.0 * r4, ("balanced", LARGE): 100.0}
            eight = {("random", LARGE): 100.0 * r8, ("balanced", LARGE): 100.0}
            out.append({4: job(4, four, {**four, ("random", LARGE): 100.0 * m4}),
                        8: job(8, eight, {**eight, ("random", LARGE): 100.0 * m8})})
        return out

    helps = judge_balance(bal((1.2, 1.05), (1.25, 1.0), (1.15, 1.1)))
    assert helps.verdict == REPRODUCED and len(helps.points) == 12
    assert helps.context == []  # 8 sources: random and balanced at 64 KiB only
    assert helps.values["balance"] == {"4": pytest.approx(1.2), "8": pytest.approx(1.05)}
    other = judge_balance(bal((1.0, 1.1), (1.0, 1.1), (1.0, 1.1),
                              models=((1.2, 1.05),) * 3))
    assert other.verdict == DIFFERS and "random / balanced, 4 sources over 8 [0.91, 0.91] " \
        "lies outside" in other.why
    # the step model on the draws' own sets does not put it above 1 in every draw (the
    # published run's draws: 0.98, 1.56, 1.18, 0.69, 0.59): not applicable, whatever was
    # measured
    na = judge_balance(bal((1.2, 1.05), (1.25, 1.0), (1.15, 1.1),
                           models=((1.1, 1.12), (1.4, 0.9), (1.0, 1.45))))
    assert na.verdict == NOT_APPLICABLE and na.kind == TRANSFER
    assert "puts random / balanced with 4 sources over 8 at 0.98 [0.69, 1.56]" in na.why
    assert len(na.points) == 12 and "draws cannot show it" in na.why
    points = bal((1.2, 1.05))
    points[0][4][("random", LARGE)]["flags"] = ["hosts waited"]
    assert judge_balance(points).verdict == NO_RESULT
    shown_flag = bal((1.2, 1.05))  # a flagged point beside the judged ones does not matter
    shown_flag[0][8][("direct", SMALL)] = {"label": "direct 8 1024", "scheme": "direct",
                                           "size": SMALL, "ms": 1.0, "verified": True,
                                           "flags": ["hosts waited"]}
    assert judge_balance(shown_flag).verdict == REPRODUCED


def test_tseng_measured_claims_are_full_run_only_on_torus16() -> None:
    from testbed.reproduce.networks import NETWORKS

    for key in ("tseng.size-gain-measured", "tseng.balance-measured",
                "tseng.hot-spot-measured"):  # --quick brings no torus up
        c = BY_KEY[key]
        assert c.network == "torus16" and not c.in_quick and c.paper == "Tseng2001"
    assert NETWORKS["torus16"].spec == "torus:rows=4,cols=4"
    assert [c.key for c in select(["tseng"], quick=False)] == [
        "tseng.size-gain", "tseng.balance", "tseng.hot-spot", "tseng.size-gain-measured",
        "tseng.balance-measured", "tseng.hot-spot-measured"]


def test_tseng_measured_points_retake_the_flagged_rows_once_and_share_the_job(
        monkeypatch) -> None:
    from testbed.reproduce import tseng

    calls = []

    def job(net, sources, sizes, schemes, tries, seed, reps):
        calls.append((sources, tuple(sizes), tuple(schemes), tries, reps))
        return {(s, z): {"label": f"{s} {z}", "ms": 10.0, "verified": True, "tries": tries,
                         "flags": ["hosts waited"] if (s, z, tries) == ("random", 65536, 1)
                         else []} for s in schemes for z in sizes}

    monkeypatch.setattr(tseng, "run_job", job)
    monkeypatch.setattr(tseng, "fit", lambda net: (1e-3, 1e-6))

    class Net:
        points: dict = {}

    net = Net()
    got = tseng.points(net, 8, (1024, 65536), tseng.SCHEMES)
    assert calls == [(8, (1024, 65536), tseng.SCHEMES, 1, tseng.REPS),
                     (8, (65536,), ("random",), 2, tseng.REPS)]
    assert got[("random", 65536)]["tries"] == 2 and not got[("random", 65536)]["flags"]
    assert got[("direct", 1024)]["tries"] == 1
    assert got[("direct", 65536)]["model_ms"] > got[("direct", 1024)]["model_ms"] > 0
    assert tseng.points(net, 8, (1024, 65536), tseng.SCHEMES) is got and len(calls) == 2


def test_tseng_hot_spot_measured_judges_every_schemes_rise_with_p() -> None:
    """Figure 4: per scheme the slope of its latency against p over its mean, judged by the
    interval of its median over the draws, for the schemes whose rise the step model puts
    at MODEL_RISE or more; not applicable where it puts none there."""
    from testbed.reproduce.tseng import (
        HOT_FACTORS,
        MODEL_RISE,
        SCHEMES,
        judge_hot_spot,
        rise,
    )

    def draw(ms, model, flags=()) -> dict:
        return {(s, p): {"label": f"{s} p {p} ", "scheme": s, "factor": p,
                         "ms": ms(s, p), "model_ms": model(s, p), "verified": True,
                         "flags": list(flags) if (s, p) == ("random", 1.0) else []}
                for s in SCHEMES for p in HOT_FACTORS}

    def grows(s, p):
        return 10.0 * (1 + p)

    def flat(s, p):  # a hair lower at higher p
        return 10.0 - 0.1 * p

    def direct_flat(s, p):
        return flat(s, p) if s == "direct" else grows(s, p)

    assert rise(draw(grows, flat), "direct") == pytest.approx(1 / (1 + 0.6375))
    assert rise(draw(grows, flat), "direct", "model_ms") < 0 < MODEL_RISE
    out = judge_hot_spot([draw(lambda s, p, f=f: grows(s, p) * f, grows)
                          for f in (0.98, 1.0, 1.02)])
    assert out.verdict == REPRODUCED, out.why
    assert set(out.values["intervals"]) == {"u-torus: rise with p",
                                            "partitioned-random: rise with p",
                                            "partitioned-balanced: rise with p"}
    assert out.values["plot"]["series"]["u-torus"][0] == (0.25, pytest.approx(12.5))
    # the model prices U-torus flat: shown, not judged; the others judged
    some = judge_hot_spot([draw(grows, direct_flat)] * 3)
    assert some.verdict == REPRODUCED and set(some.values["intervals"]) == {
        "partitioned-random: rise with p", "partitioned-balanced: rise with p"}
    assert "the step model prices the rise of u-torus below 0.1" in some.testbed
    none = judge_hot_spot([draw(flat, flat)] * 3)
    assert none.verdict == NOT_APPLICABLE and none.kind == TRANSFER
    here = judge_hot_spot([draw(flat, grows)] * 3)
    assert here.verdict == DIFFERS and here.kind == EMULATOR
    assert "u-torus: rise with p [-0.01, -0.01] lies outside at least 0" in here.why
    assert judge_hot_spot([draw(grows, grows, ["hosts waited"])] * 3).verdict == NO_RESULT
    # the model's rise is 0.2 or more in the median but below 0 on one draw (its interval
    # over the draws straddles 0): that scheme is shown, not judged; none judged: not
    # applicable, in quick and full runs alike
    def falls(s, p):
        return 10.0 * (1.5 - 0.5 * p)

    one_falls = [draw(grows, grows), draw(grows, falls), draw(grows, grows)]
    na = judge_hot_spot(one_falls)
    assert na.verdict == NOT_APPLICABLE and na.kind == TRANSFER
    assert "the step model itself, on the same 3 draws, puts u-torus's rise at 0.61 " \
        "[-0.42, 0.61]" in na.why and "not above 0" in na.why
    mixed = [draw(grows, grows), draw(grows, lambda s, p: falls(s, p) if s == "direct"
                                       else grows(s, p)), draw(grows, grows)]
    some = judge_hot_spot(mixed)
    assert some.verdict == REPRODUCED and "u-torus: rise with p" not in some.values[
        "intervals"] and "puts u-torus's rise" in some.testbed


def test_the_step_model_prices_each_draw_on_its_own_sets() -> None:
    from testbed.reproduce.tseng import model_ms

    assert model_ms("random", 8, 0.25, 0, 1024, 3e-4, 2.7e-7) != pytest.approx(
        model_ms("random", 8, 0.25, 1, 1024, 3e-4, 2.7e-7))


def test_size_gain_runs_at_the_reports_operating_point(monkeypatch) -> None:
    """The report's 32 and 1024 flits at T_s 300 us, T_c 1 us a flit: 0.11 and 3.4 startups
    of transmission; the claim's sizes are that on this network's fit, and say so."""
    from testbed.reproduce import tseng
    from testbed.reproduce.claims import Context

    asked = []

    def points(net, sources, sizes, schemes, seed, reps):
        asked.append((sources, sizes, schemes, seed, reps))
        return {(s, z): {"label": f"{s} {z}", "scheme": s, "size": z, "verified": True,
                         "flags": [], "ms": 14.0 if s == "direct" and z == sizes[1] else 12.0,
                         "model_ms": 14.0 if s == "direct" and z == sizes[1] else 12.0}
                for s in schemes for z in sizes}

    monkeypatch.setattr(tseng, "points", points)
    monkeypatch.setattr(tseng, "fit", lambda net: (1.03e-3, 441e-9))
    ctx = Context(False, lambda _m: None, network=object())
    out = tseng.size_gain(ctx)
    assert {a[1] for a in asked} == {(256, 8192)}
    assert {a[4] for a in asked} == {tseng.GAIN_REPS}
    assert [a[3] for a in asked] == list(tseng.draws(False))
    here = out.values["transmission_over_startup"]
    for size, paper in (("256 B", 0.107), ("8 KiB", 3.41)):
        assert here[size]["paper"] == pytest.approx(paper, abs=0.005)
        assert here[size]["here"] == pytest.approx(paper, rel=0.06)  # the sizes' rounding
    assert "transmission / startup 256 B 0.11 (the report's 0.11)" in out.testbed
    assert out.verdict == REPRODUCED  # 1.0 -> 1.17 in every draw


def test_size_gain_not_applicable_where_a_draws_runs_move_its_growth_more_than_the_model():
    """The model's growth 1.2 on every draw; each point's runs around its median: spread
    by +-2 %, the claim is judged; by +-40 %, one draw's growth moves by more than 0.2 within
    its own job, and the claim is not applicable."""
    from testbed.reproduce.tseng import GAIN_LARGE, GAIN_SMALL, judge_size_gain

    ms = {("direct", GAIN_SMALL): 8.0, ("random", GAIN_SMALL): 10.0,
          ("balanced", GAIN_SMALL): 11.0, ("direct", GAIN_LARGE): 96.0,
          ("random", GAIN_LARGE): 100.0, ("balanced", GAIN_LARGE): 110.0}

    def draws(spread: float) -> list[dict]:
        return [{k: {"label": f"{k} {d}", "scheme": k[0], "size": k[1], "ms": v,
                     "model_ms": v, "verified": True, "flags": [],
                     "samples_ms": [v * (1 + spread * (i / 11 - 1)) for i in range(23)]}
                 for k, v in ms.items()} for d in range(5)]

    judged = judge_size_gain(draws(0.02))
    assert judged.verdict == REPRODUCED, judged.why
    assert judged.values["within_job_noise"] < 0.05
    na = judge_size_gain(draws(0.4))
    assert na.verdict == NOT_APPLICABLE and na.kind == TRANSFER, na.why
    assert na.values["within_job_noise"] > 0.2
    assert "the step model puts the growth on these draws at 1.20 (median), 0.20 above 1" \
        in na.why and "smaller than what the jobs can resolve" in na.why


def test_balance_is_not_applicable_without_a_run_when_the_model_cannot_show_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The step model on the draws' own sets decides first: where it puts random /
    balanced with 4 sources over 8 not above 1, no broadcast runs (the measured figure
    could not change the verdict); where it does, the draws are measured."""
    from testbed.reproduce import tseng
    from testbed.reproduce.claims import Context

    class Net:
        def __init__(self) -> None:
            self.asked: list[int] = []

    def measured(net: Net, sources: int, *args: object) -> dict:
        net.asked.append(sources)
        return {(s, tseng.LARGE): {"label": f"{s} {sources}", "ms": 100.0, "verified": True,
                                   "flags": [], "model_ms": 100.0} for s in tseng.BALANCE}

    monkeypatch.setattr(tseng, "fit", lambda net: (1597e-6, 433e-9))  # published, 7248c45
    monkeypatch.setattr(tseng, "points", measured)
    model = tseng.model_balance(Net(), tseng.draws(False))
    assert len(model) == 5 and all(set(g) == {4, 8} and all(g.values()) for g in model)
    # the published run's draws: per draw 0.98, 1.56, 1.18, 0.69, 0.59
    assert "over 8 at 0.98 [0.59, 1.56]" in tseng.balance_unsettled(model)
    net = Net()
    out = tseng.balance(Context(False, lambda _: None, net))
    assert out.verdict == NOT_APPLICABLE and out.kind == TRANSFER and net.asked == []
    assert out.testbed.startswith("not measured") and "were not run" in out.why
    assert out.values["model_balance"]["4"] == pytest.approx(1.1428, abs=1e-3)
    monkeypatch.setattr(tseng, "balance_unsettled", lambda model: "")
    net = Net()
    tseng.balance(Context(False, lambda _: None, net))
    assert sorted(net.asked) == [4] * 5 + [8] * 5
