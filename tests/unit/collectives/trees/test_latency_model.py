"""collectives.trees.latency_model: the t_hold/t_end predictions against the papers' formulas
and toy examples (chapter 3, Tables 4.2 and 4.3, MPICH's binomial tree worked by hand),
size-dependent times and pipelining, and seed 002's LogGP formulas."""

from __future__ import annotations

import math

import pytest

from collectives.trees.latency_model import (
    LogGP,
    PointToPoint,
    completion_times,
    loggp_max,
    predict,
)
from collectives.trees.schedules import build


def test_chapter3_toy_latencies():
    p = PointToPoint.constant(t_hold=2, t_end=5)
    assert [predict(build(a, 4), p) for a in ("sequential", "binomial", "chain")] == [9, 10, 15]


@pytest.mark.parametrize("k", range(2, 20))
def test_table_4_2_formulas(k):
    th, te = 20.0, 55.0
    p = PointToPoint.constant(th, te)
    assert predict(build("sequential", k), p) == (k - 2) * th + te
    assert predict(build("chain", k), p) == (k - 1) * te
    fl = math.floor(math.log2(k))
    # the table prints log2 k x t_end for k a power of two; otherwise (not printed) MPICH's
    # order: the root's first send goes to node 2^fl, the second to the 2^(fl-1) nodes from
    # 2^(fl-1) on, which finish t_hold + fl t_end after the call, the last of all
    assert predict(build("binomial", k), p) == fl * te + (th if k != 2 ** fl else 0)
    slow = PointToPoint.constant(t_hold=80.0, t_end=10.0)  # t_hold > t_end
    assert predict(build("binomial", k), slow) == math.floor(math.log2(k - 1)) * 80.0 + 10.0


def test_binomial_examples_worked_by_hand():
    """MPICH's order, t_hold 20, t_end 55. k=5: 0 sends to 4 (done 55), 2 (75, then 2 -> 3
    at 130), 1 (95): 130. k=12: 0 -> 8 (55; 8 -> 10 -> 11, 8 -> 9: 165), 4 (75; + 2 t_end:
    185), 2 (95; 150), 1 (115): 185. k=17: 0 -> 16 (55), 8 (75; + 3 t_end: 240): 240.
    k=3: 0 -> 2 (55), 1 (75). k=6: 0 -> 4 (55; 4 -> 5: 110), 2 (75; 130), 1 (95): 130."""
    p = PointToPoint.constant(20, 55)
    assert [predict(build("binomial", k), p) for k in (3, 5, 6, 12, 17)] == [75, 130, 130, 185,
                                                                            240]


def test_opt_tree_matches_table_4_3_and_beats_basic_trees():
    p = PointToPoint.constant(20, 55)
    opt = predict(build("opt-tree", 9, t_hold=20, t_end=55), p)
    assert opt == 135
    assert all(opt <= predict(build(a, 9), p) for a in ("sequential", "binomial", "chain",
                                                        "binary"))


def test_size_dependent_times_and_pipelining():
    """Per-byte terms: a fragmented chain of 1 MiB beats the unfragmented chain."""
    p = PointToPoint(hold_s=20e-6, hold_per_byte=0.08e-6, end_s=60e-6, end_per_byte=0.09e-6)
    n = 1 << 20
    whole = predict(build("chain", 8, 0, n), p)
    piped = predict(build("fragmented-chain", 8, 0, n, fragment=64 << 10), p)
    assert piped < whole / 2
    times = completion_times(build("sequential", 4, 0, 1000), p)
    assert times[0] == 0 and times[1] < times[2] < times[3]


def test_loggp_formulas_of_seed_002():
    m = LogGP(L=5.0, o=1.0, g=2.0, G=0.5)
    n, p = 101, 8
    assert loggp_max("sequential", n, p, m) == 5 + 2 + 7 * 100 * 0.5 + 6 * 2
    assert loggp_max("chain", n, p, m) == 7 * (5 + 2 + 100 * 0.5)
    assert loggp_max("binomial", n, p, m) == 3 * (5 + 2 + 50)
    assert loggp_max("binary", n, p, m) == 3 * (5 + 2 * (1 + 50 + 2)) + 2 * (50 + 2)
    assert loggp_max("fragmented-chain", 100, 4, m, fragment=25) == \
        3 * (5 + 2 + 24 * 0.5) + 3 * (2 + 24 * 0.5)
    with pytest.raises(ValueError, match="no LogGP formula"):
        loggp_max("opt-tree", n, p, m)
