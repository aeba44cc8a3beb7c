"""collectives.trees.inputs: t_hold at the count of back-to-back sends a broadcast's busiest
node makes (every tree's count; OPT-Tree's settled count), the wire time and the check that a
measured t_hold is not below it."""

from __future__ import annotations

import math

import pytest

from collectives.opttree import opt_children, opt_table
from collectives.trees.inputs import (
    HoldTable,
    below_wire,
    busiest,
    sends_for,
    settled,
    table_of,
    timing,
    wire_s,
)
from collectives.trees.schedules import build

WIRE = 0.89e-3  # a 1 KiB message at 10 Mbit/s, headers counted
LONE = 0.14e-3  # what a lone 1 KiB send held its sender here (the token bucket let it out)


def emulated(most: int, sizes=(1024,), end: float = 0.25e-3) -> HoldTable:
    """A table as the emulated link gives it: the first send leaves at once, every later
    one after its predecessor's wire time."""
    row = tuple((LONE + (s - 1) * WIRE) / s for s in range(1, most + 1))
    return HoldTable(tuple(sizes), tuple(row for _ in sizes), tuple(end for _ in sizes))


@pytest.mark.parametrize(("algorithm", "k", "want"), [
    ("sequential", 8, 7), ("sequential", 16, 15), ("binomial", 8, 3), ("binomial", 16, 4),
    ("binomial", 9, 4), ("chain", 8, 1), ("binary", 15, 2), ("sequential", 1, 0)])
def test_the_busiest_node_sends_as_its_tree_says(algorithm, k, want):
    assert busiest(build(algorithm, k, 0, 1024)) == want


def test_t_hold_is_taken_at_the_count_asked_within_what_was_measured():
    table = emulated(7)
    assert table.most == 7
    assert table.at(1).t_hold(1024) == pytest.approx(LONE)
    assert table.at(7).t_hold(1024) == pytest.approx((LONE + 6 * WIRE) / 7)
    assert table.at(30).t_hold(1024) == table.at(7).t_hold(1024)  # clamped to the most
    assert table.at(0).t_hold(1024) == table.at(1).t_hold(1024)
    # more sends, nearer the wire time: one lone send would price 1 KiB at 0.14 ms
    holds = [table.at(s).t_hold(1024) for s in range(1, 8)]
    assert holds == sorted(holds) and holds[-1] < WIRE


def test_each_tree_is_priced_at_its_own_busiest_count():
    table = emulated(15)
    assert sends_for("sequential", 16, 1024, table) == 15
    assert sends_for("binomial", 16, 1024, table) == 4
    assert sends_for("chain", 16, 1024, table) == 1
    # a network-aware tree without its placement: as the tree it places
    assert sends_for("u-mesh", 16, 1024, table) == sends_for("binomial", 16, 1024, table)


def test_opt_tree_settles_where_its_busiest_node_sends_the_count_it_was_built_at():
    table = emulated(15)
    s = sends_for("opt-tree", 16, 1024, table)
    p2p = table.at(s)
    tree = build("opt-tree", 16, 0, 1024, t_hold=p2p.t_hold(1024), t_end=p2p.t_end(1024))
    assert busiest(tree) == s
    # DYN-Tree and the mesh's OPT tree count as the OPT-Tree they build at zero load
    assert sends_for("dyn-tree", 16, 1024, table) == s
    assert sends_for("opt-mesh", 16, 1024, table) == s


def test_a_cycle_settles_at_its_largest_count():
    table = emulated(6)
    # a builder whose busiest count alternates 2 -> 4 -> 2: the larger is kept
    from collectives.ops import Schedule, Send

    def alternating(p2p):
        s = 4 if p2p.t_hold(1024) < table.at(3).t_hold(1024) else 2
        return Schedule("x", 6, 0, 0, (tuple(Send(1 + i, 0, 0) for i in range(s)),))

    assert settled(alternating, table) == 4


def test_timing_gives_opt_tree_what_its_tree_settles_at():
    table = emulated(15)
    got = timing("opt-tree", 1024, table, 16)
    s = sends_for("opt-tree", 16, 1024, table)
    assert got == {"t_hold": pytest.approx(table.at(s).t_hold(1024)), "t_end": 0.25e-3}
    assert timing("opt-tree", 1024, table)["t_hold"] == table.at(15).t_hold(1024)
    # the tree it is then built from is OPT-Tree's table under those times
    children = opt_children(16, opt_table(16, got["t_hold"], got["t_end"]).j)
    assert build("opt-tree", 16, 0, 1024, **got).parents() == [
        None, *(next(p for p, cs in children.items() if c in cs) for c in range(1, 16))]


def test_a_dynamic_tree_gets_its_six_terms_where_the_software_share_was_measured():
    table = emulated(7, sizes=(1024, 65536))
    got = timing("dyn-tree", 1024, table, 8, software=[40e-6, 900e-6])
    assert {"t_hs", "t_hd", "t_ns", "t_nd", "t_rs", "t_rd"} <= set(got)
    # at the broadcast's size the terms add up to what was measured
    assert got["t_hs"] + 1024 * got["t_hd"] == pytest.approx(40e-6)
    assert got["t_hs"] + got["t_ns"] + 1024 * (got["t_hd"] + got["t_nd"]) == \
        pytest.approx(got["t_hold"])
    assert "t_hs" not in timing("dyn-tree", 1024, table, 8)  # none measured: t_hold/t_end


def test_the_wire_time_counts_every_frames_headers():
    assert wire_s(1024, 10) == pytest.approx((1024 + 90) * 8 / 10e6)
    frames = math.ceil(65536 / 1448)
    assert wire_s(65536, 10) == pytest.approx((65536 + frames * 90) * 8 / 10e6)
    assert wire_s(0, 10) == pytest.approx(90 * 8 / 10e6)


def test_a_t_hold_below_the_wire_time_of_the_sends_that_waited_is_caught():
    # one lone send: nothing waited, nothing to check (t_end's kind of time)
    assert not below_wire(LONE, 1, 1024, 10)
    # 7 sends at 0.78 ms each: 6 of them waited 0.89 ms: fine
    assert not below_wire((LONE + 6 * WIRE) / 7, 7, 1024, 10)
    # 7 sends priced as the lone one: the measurement did not hold the link
    assert below_wire(LONE, 7, 1024, 10)


def test_tables_refuse_what_does_not_fit():
    with pytest.raises(ValueError):
        table_of([1, 2], [[1.0]], [1.0, 2.0])
    with pytest.raises(ValueError):
        table_of([1, 2], [[1.0], [1.0, 2.0]], [1.0, 2.0])
    with pytest.raises(ValueError):
        table_of([], [], [])
