"""testbed.reproduce.verdict: a flagged, failed or wrong point never supports "reproduced",
every other verdict says why; the Wilson and bootstrap intervals and the margin rule; a
point's median, spread and whether it is a result."""

from __future__ import annotations

import pytest

from testbed.reproduce.verdict import (
    DIFFERS,
    EMULATOR,
    NO_RESULT,
    NOT_APPLICABLE,
    REPRODUCED,
    TRANSFER,
    UNDECIDED,
    Outcome,
    no_result,
    wilson,
)

from .stand_ins import point


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


def test_an_interval_over_few_jobs_says_how_often_it_holds_the_median():
    """The bootstrap interval of one point over up to 6 jobs is the range of their medians,
    which holds the jobs' median with 1 - 2^(1 - n): 75 % over 3 jobs (not 95 %), 94 % over
    5; the judged parts and the claim's text carry it."""
    from testbed.reproduce.verdict import Part, coverage, interval_note, judge, judged_outcome

    assert [round(coverage(n), 4) for n in (2, 3, 5, 6)] == [0.5, 0.75, 0.9375, 0.9688]
    jobs = {"a": [1.0, 1.2, 0.9, 1.1, 1.05], "b": [2.0, 2.1, 1.9, 2.2, 2.05]}
    one = judge(jobs, [Part("a alone", lambda m: m["a"], keys=("a",))])[0]
    assert one.interval == (0.9, 1.2) and one.jobs == 5  # the range of the five
    out = judged_outcome(jobs, [Part("b / a", lambda m: m["b"] / m["a"], hi=3)], "t",
                         values={}, points=[])
    assert out.values["intervals"]["b / a"]["jobs"] == 5
    assert out.values["intervals"]["b / a"]["coverage"] == 0.938
    assert interval_note(5) in out.testbed and "94 %" in interval_note(5)
    assert "75 %" in interval_note(3)


def test_a_paired_bootstrap_resamples_whole_jobs():
    """Two points measured in the same jobs, one job slow for both: drawn apart, a ratio
    of them meets the slow job of one against a fast job of the other and spans the margin;
    drawn by job (paired) the slowness cancels. The i-th values of every point must exist."""
    from testbed.reproduce.verdict import Part, bootstrap, judge

    jobs = {"a": [10.0, 10.2, 13.0], "b": [5.0, 5.1, 6.5]}  # job 3 slow for both
    ratio = lambda m: m["a"] / m["b"]  # noqa: E731
    assert bootstrap(jobs, ratio) == (10.0 / 6.5, 13.0 / 5.0)
    lo, hi = bootstrap(jobs, ratio, paired=True)
    assert 1.99 <= lo <= hi <= 2.01
    (apart,), (paired,) = (judge(jobs, [Part("a / b", ratio, lo=1.9, paired=p)])
                           for p in (False, True))
    assert (apart.verdict, paired.verdict) == (UNDECIDED, REPRODUCED)
    with pytest.raises(ValueError, match="as many jobs"):
        bootstrap({"a": [1.0, 2.0], "b": [1.0]}, ratio, paired=True)


def test_an_undecided_outcome_says_what_keeps_the_jobs_from_settling_it():
    """undecided_because gives the noise, and where each undecided part's jobs lie, to an
    undecided verdict only."""
    from testbed.reproduce.verdict import Part, jobs_inside, judged_outcome, undecided_because

    assert jobs_inside([0.76, 0.79, 0.68, 1.006, 0.8], None, 1.0) == \
        "4 of 5 jobs inside (0.68-0.80), 1 outside (1.01)"
    assert jobs_inside([1.3, 1.2], 0.0, 1.0) == "0 of 2 jobs inside, 2 outside (1.20, 1.30)"
    assert jobs_inside([-0.17, 0.08, 0.12, -0.07], -0.1, 0.1) == \
        "2 of 4 jobs inside (-0.07 to 0.08), 2 outside (-0.17, 0.12)"
    assert jobs_inside([0.5, 0.5], 0.0, 1.0, ".1f") == "2 of 2 jobs inside (0.5)"
    noise = ": one job of five lies apart"

    def out(hi: float):
        jobs = {"r": [0.9, 1.1, 1.2, 0.95, 1.05]}
        got = judged_outcome(jobs, [Part("r", lambda m: m["r"], hi=hi, keys=("r",))], "t",
                             values={}, points=[], differs=": mechanism")
        return undecided_because(got, noise, jobs)

    straddles, outside, inside = out(1.0), out(0.5), out(2.0)
    assert straddles.verdict == UNDECIDED
    assert straddles.why.endswith("(r: 2 of 5 jobs inside (0.90-0.95), 3 outside "
                                  "(1.05, 1.10, 1.20)): one job of five lies apart"), straddles.why
    assert outside.verdict == DIFFERS and outside.why.endswith(": mechanism")
    assert inside.verdict == REPRODUCED and inside.why == ""
