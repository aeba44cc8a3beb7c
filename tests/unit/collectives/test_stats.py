"""collectives.stats.summarize: median and spread by linear interpolation between ranks."""

import random
import statistics

import pytest

from collectives.stats import summarize


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
