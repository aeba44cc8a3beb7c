"""collectives.trees.dyntree: DYN-Tree's estimates and split against Nupairoj1998's section 6.3
and 6.4 numbers: OPT-Tree at zero load, tending to binomial under load; send costs smoothed
per size, and bad parameters refused."""

from __future__ import annotations

import pytest

from collectives.opttree import opt_children, opt_table, tree_latency
from collectives.trees.dyntree import (
    BASELINE,
    SendCost,
    StaticParams,
    estimates,
    from_measured,
    split,
)

M = 1024


def test_static_parameters_at_1_kib_match_the_baseline():
    # t_hold = 1915 + 2*1024 = 3963, t_end = 12498 (section 6.4)
    assert BASELINE.static(M) == (3963, 12498)


@pytest.mark.parametrize(("k", "opt"), [(32, 44811), (64, 52737), (128, 57918)])
def test_no_contention_opt_latency_of_section_6_4(k, opt):
    hold, end = BASELINE.static(M)
    assert opt_table(k, hold, end).t[k] == opt


def test_at_zero_load_dyn_tree_is_opt_tree():
    # no queueing: t_as = t_hold + t_ns + n t_nd; t^e_hol = 1390 + 2048 = 3438 < 3963
    t_as = 3963 + 1390 + 2 * M
    hold, end = estimates(BASELINE, M, t_as, M)
    assert (hold, end) == BASELINE.static(M)


def test_end_minus_hol_is_constant_so_dyn_tree_tends_to_binomial():
    # t^e_end - t^e_hol = t_hs + m t_hd + t_rs + m t_rd = 9060 at 1 KiB, whatever the load
    for queued in (0, 5000, 50000, 500000):
        t_as = 3963 + 1390 + 2 * M + queued
        hold, end = estimates(BASELINE, M, t_as, M)
        hol_e = t_as - (1915 + 2 * M) - 2 * M + 2 * M
        assert end - hol_e == 9060
        if queued >= 5000:
            assert hold == hol_e
    hold, end = estimates(BASELINE, M, 3963 + 1390 + 2 * M + 500000, M)
    assert end / hold < 1.02  # end/hold -> 1: the binomial shape


@pytest.mark.parametrize("k", [1, 2, 5, 9, 33])
@pytest.mark.parametrize(("hold", "end"), [(20, 55), (55, 20), (10, 10)])
def test_split_applied_recursively_is_the_opt_tree(k, hold, end):
    children: dict[int, list[int]] = {}
    stack = [(0, k)]
    while stack:
        lo, hi = stack.pop()
        for child, child_hi in split(lo, hi, hold, end):
            children.setdefault(lo, []).append(child)
            stack.append((child, child_hi))
    assert children == opt_children(k, opt_table(k, hold, end).j)
    if k > 1:
        assert tree_latency(children, hold, end) == opt_table(k, hold, end).t[k]


def test_send_cost_is_a_broadcasts_mean_smoothed_per_size():
    c = SendCost(alpha=0.5)
    c.close()  # a leaf sends nothing: no estimate
    assert c.t_as is None
    c.record(4.0, 100)  # a node's sends of one broadcast: their mean, as t_hold is measured
    c.record(8.0, 100)
    assert c.t_as is None  # counts once the broadcast is over
    c.close()
    assert (c.t_as, c.n) == (6.0, 100)
    c.record(10.0, 100)
    c.close()
    assert c.t_as == 8.0
    c.record(4.0, 200)  # another size: start over
    c.close()
    assert (c.t_as, c.n) == (4.0, 200)


def test_at_zero_load_the_estimates_are_the_measured_hold_and_end_again():
    from collectives.trees.dyn_bcast import static_params

    # a lone small message's t_end below the back-to-back t_hold (the emulated link lets a
    # first frame out at once): the split still adds up, with a negative receiving term
    for hold, end in ((250e-6, 160e-6), (18.6e-3, 18.7e-3), (2.0, 5.0)):
        p = static_params({"t_hold": hold, "t_end": end})
        assert p.static(1024) == pytest.approx((hold, end))
        assert p.t_hs + p.t_ns + p.t_rs == pytest.approx(end)
        # a send at zero load costs what t_hold measured: the same hold and end
        assert estimates(p, 1024, hold, 1024) == pytest.approx((hold, end))
        # a loaded link: sends take twice as long; hold and end grow
        h2, e2 = estimates(p, 1024, 2 * hold, 1024)
        assert h2 >= hold and e2 == pytest.approx(end + hold)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        StaticParams(-1, 0, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        split(3, 3, 1, 1)
    with pytest.raises(ValueError):
        SendCost(alpha=0)


def test_the_static_terms_come_from_what_was_measured_as_section_6_3_splits_them():
    """t_hs, t_hd from how long a send's call held the sender; t_ns, t_nd from the rest of
    t_hold (until the message had left); t_rs, t_rd from the rest of t_end: lines through
    the sizes measured, exact at each."""
    sizes, soft = [1024, 65536], [40e-6, 700e-6]
    holds, ends = [0.9e-3, 54e-3], [0.3e-3, 53e-3]
    p = from_measured(sizes, soft, holds, ends, 1024)
    for m, s, h, e in zip(sizes, soft, holds, ends, strict=True):
        assert p.t_hs + m * p.t_hd == pytest.approx(s)
        assert p.t_ns + m * p.t_nd == pytest.approx(h - s)
        assert p.static(m)[1] == pytest.approx(e)
    one = from_measured([1024], [40e-6], [0.9e-3], [0.3e-3], 1024)  # one size: constants
    assert (one.t_hd, one.t_nd, one.t_rd) == (0, 0, 0)
    assert (one.t_hs, one.t_ns, one.t_rs) == pytest.approx((40e-6, 0.86e-3, -0.6e-3))


def test_the_thesis_sender_takes_the_longer_part_and_a_fifo_sender_both():
    """Section 6.3's max(t_hs + m t_hd, t^e_hol) is a sender whose channel drains while it
    computes (send_order overlapped); a fifo sender waits for each message to leave, so its
    software and its channel add. Either way, at zero load DYN-Tree gets the t_hold that
    send order measures."""
    p = from_measured([1024], [40e-6], [0.9e-3], [0.3e-3], 1024)
    assert estimates(p, 1024, pipelined=False) == pytest.approx((0.9e-3, 0.3e-3))
    assert estimates(p, 1024, pipelined=True) == pytest.approx((0.86e-3, 0.3e-3))
    assert estimates(BASELINE, M, pipelined=True) == BASELINE.static(M)  # the thesis's
    loaded = estimates(p, 1024, 0.9e-3 + 0.5e-3, 1024, pipelined=False)  # t_sq + t_cont
    assert loaded == pytest.approx((1.4e-3, 0.8e-3))


def test_a_send_cheaper_than_at_zero_load_is_no_negative_wait():
    """A lone frame an emulated link lets out at once makes a node's send cheaper than the
    zero-load one measured back to back: t_sq and t_cont are waits, never below zero, so
    the estimates stay the zero-load ones (DYN-Tree stays OPT-Tree)."""
    p = from_measured([1024], [40e-6], [0.9e-3], [0.3e-3], 1024)
    for pipelined in (True, False):
        assert estimates(p, 1024, 0.14e-3, 1024, pipelined) == estimates(p, 1024,
                                                                          None, None,
                                                                          pipelined)
