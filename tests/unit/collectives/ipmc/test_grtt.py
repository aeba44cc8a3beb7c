"""collectives.ipmc.grtt: the group round trip estimate follows NORM's rules: up almost at
once, down by at most 10 % a sample, never below its floor."""

import pytest

from collectives.ipmc.grtt import GroupRoundTrip


def test_a_larger_sample_is_taken_almost_at_once():
    g = GroupRoundTrip(0.001)
    assert g.update(0.005) == pytest.approx(0.25 * 0.001 + 0.75 * 0.005)


def test_a_smaller_sample_lowers_it_by_at_most_ten_percent_per_sample():
    g = GroupRoundTrip(0.010)
    assert g.update(0.001) == pytest.approx(0.009)
    assert g.update(0.001) == pytest.approx(0.0081)
    assert g.update(0.008) == pytest.approx(0.008)  # not below the sample itself


def test_it_never_falls_below_its_floor():
    g = GroupRoundTrip(0.002, floor=0.0015)
    for _ in range(10):
        g.update(0.0001)
    assert g.value == pytest.approx(0.0015)
