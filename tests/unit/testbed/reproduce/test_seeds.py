"""testbed.reproduce.seeds: the distribution-free interval of the median over seeds, its
coverage, and a figure judged by it."""

from __future__ import annotations

import pytest

from testbed.reproduce.seeds import MIN_SEEDS, coverage, judge_seeds, median_interval
from testbed.reproduce.verdict import DIFFERS, REPRODUCED, UNDECIDED


def test_coverage_of_order_statistics() -> None:
    assert coverage(6, 1) == pytest.approx(1 - 2 / 64)  # 96.9 %: min and max of 6
    assert coverage(5, 1) == pytest.approx(0.9375)  # too little for 95 %
    assert coverage(10, 2) == pytest.approx(1 - 2 * 11 / 1024)


def test_median_interval_widens_only_as_needed() -> None:
    assert median_interval([3, 1, 2, 6, 5, 4]) == (1, 6)
    assert median_interval(list(range(10))) == (1, 8)  # x_(2), x_(9) at 97.9 %
    with pytest.raises(ValueError, match=f"at least {MIN_SEEDS}"):
        median_interval([1, 2, 3, 4, 5])


def test_judge_seeds_against_a_margin() -> None:
    assert judge_seeds("r", [1.1, 1.2, 1.3, 1.05, 1.4, 1.2], lo=1.0).verdict == REPRODUCED
    j = judge_seeds("r", [0.9, 1.2, 1.3, 1.05, 1.4, 1.2], lo=1.0)
    assert j.verdict == UNDECIDED and "straddles" in j.why()
    assert judge_seeds("r", [0.9] * 6, lo=1.0).verdict == DIFFERS
    assert j.text() == "r 1.200 [0.900, 1.400]"
