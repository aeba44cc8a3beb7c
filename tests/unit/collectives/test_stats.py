"""collectives.stats: median and spread by linear interpolation between ranks; the tail
percentiles and the rule for which of them a sample states."""

import random
import statistics

import pytest

from collectives.stats import TAIL_LEVELS, level_name, needed, quantile, summarize, tails


def test_one_to_ten() -> None:
    samples = [float(x) for x in range(1, 11)]
    random.Random(7).shuffle(samples)
    s = summarize(samples)
    assert s["n"] == 10
    assert (s["min"], s["max"]) == (1.0, 10.0)
    assert s["median"] == pytest.approx(5.5)
    assert s["p10"] == pytest.approx(1.9)  # rank 0.9: between 1 and 2
    assert s["p90"] == pytest.approx(9.1)  # rank 8.1: between 9 and 10
    assert s["mean"] == pytest.approx(5.5)
    assert set(s) == {"n", "median", "min", "max", "p10", "p90", "mean"}


def test_odd_count_median_is_the_middle_sample() -> None:
    s = summarize([30.0, 10.0, 20.0])
    assert s["median"] == 20.0
    assert s["p10"] == pytest.approx(12.0)  # rank 0.2
    assert s["p90"] == pytest.approx(28.0)  # rank 1.8


def test_median_resists_an_outlier() -> None:
    s = summarize([1.0, 1.1, 0.9, 1.0, 500.0])
    assert s["median"] == 1.0
    assert s["mean"] == pytest.approx(100.8)
    assert s["max"] == 500.0


def test_single_sample() -> None:
    s = summarize([4.25])
    assert s == {"n": 1, "median": 4.25, "min": 4.25, "max": 4.25, "p10": 4.25, "p90": 4.25,
                 "mean": 4.25}


def test_input_is_not_modified() -> None:
    samples = [3.0, 1.0, 2.0]
    summarize(samples)
    assert samples == [3.0, 1.0, 2.0]


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_the_standard_library(seed: int) -> None:
    rng = random.Random(seed)
    samples = [rng.expovariate(1.0) for _ in range(rng.randint(2, 200))]
    s = summarize(samples)
    assert s["median"] == pytest.approx(statistics.median(samples))
    # statistics.quantiles(method="inclusive") interpolates between ranks the same way.
    deciles = statistics.quantiles(samples, n=10, method="inclusive")
    assert s["p10"] == pytest.approx(deciles[0])
    assert s["p90"] == pytest.approx(deciles[-1])
    assert s["min"] <= s["p10"] <= s["median"] <= s["p90"] <= s["max"]


def test_empty_is_an_error() -> None:
    with pytest.raises(ValueError, match="no samples"):
        summarize([])
    with pytest.raises(ValueError):
        summarize(())


# ---- tails: the percentiles a sample can state -----------------------------------------------
def test_levels_and_the_samples_each_needs() -> None:
    assert [level_name(q) for q in TAIL_LEVELS] == ["p50", "p90", "p99", "p99.9"]
    # n (1 - q) >= 1: at least one sample expected at or beyond the percentile
    assert [needed(q) for q in TAIL_LEVELS] == [2, 10, 100, 1000]
    assert needed(0.9999) == 10000  # exact, though 1 / (1 - 0.9999) is 10000.000000000827
    for bad in (0.0, 1.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="between 0 and 1"):
            needed(bad)


def test_cannot_state_p99_9_from_20_samples() -> None:
    t = tails([float(x) for x in range(1, 21)])
    assert t["n"] == 20
    assert t["p99"] is None and t["p99.9"] is None
    assert t["needs"] == {"p99": 100, "p99.9": 1000}
    assert t["p50"] == pytest.approx(10.5) and t["p90"] == pytest.approx(18.1)


@pytest.mark.parametrize(("n", "stated"), [
    (1, []), (2, ["p50"]), (9, ["p50"]), (10, ["p50", "p90"]), (99, ["p50", "p90"]),
    (100, ["p50", "p90", "p99"]), (999, ["p50", "p90", "p99"]),
    (1000, ["p50", "p90", "p99", "p99.9"])])
def test_boundaries(n: int, stated: list[str]) -> None:
    t = tails([float(x) for x in range(n)])
    assert [k for k in ("p50", "p90", "p99", "p99.9") if t[k] is not None] == stated
    assert sorted(t["needs"]) == sorted({"p50", "p90", "p99", "p99.9"} - set(stated))
    assert all(t["needs"][k] > n for k in t["needs"])


def test_at_the_least_count_the_percentile_lies_below_the_largest_sample() -> None:
    """What the rule buys: a stated percentile is never the sample's maximum alone."""
    rng = random.Random(3)
    for q, n in ((0.9, 10), (0.99, 100), (0.999, 1000)):
        xs = sorted(rng.expovariate(1.0) for _ in range(n))
        value = tails(xs)[level_name(q)]
        assert xs[-2] <= value < xs[-1]


def test_tails_read_the_quantiles_as_summarize_does() -> None:
    """One interpolation for both: a point's p50 is its median, its p90 the summary's."""
    rng = random.Random(11)
    samples = [rng.lognormvariate(0.0, 1.0) for _ in range(1000)]
    t, s = tails(samples), summarize(samples)
    assert t["p50"] == s["median"] and t["p90"] == s["p90"]
    assert s["p90"] <= t["p99"] <= t["p99.9"] <= s["max"]
    assert t["p99"] == pytest.approx(statistics.quantiles(samples, n=100,
                                                          method="inclusive")[-1])
    assert t["p99.9"] == pytest.approx(quantile(sorted(samples), 0.999))
    assert t["needs"] == {}


def test_tails_of_nothing_is_an_error() -> None:
    with pytest.raises(ValueError, match="no samples"):
        tails([])
