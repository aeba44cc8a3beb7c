"""RFC 3376 section 6.4's tables, row by row, on controller.source_filter (GMI 22 s, LMQT 2 s
with these timers), then section 6.5's timers running out and what a port admits."""

import pytest

from controller.membership import IgmpTimers
from controller.source_filter import EXCLUDE, INCLUDE, Query, SourceFilter

T = IgmpTimers(query_interval=10.0, query_response_interval=2.0, last_member_interval=1.0)
GMI, LMQT = 22.0, 2.0
NOW = 100.0


def include(*a: str) -> SourceFilter:
    return SourceFilter(INCLUDE, 0.0, {s: NOW + 5 for s in a})


def exclude(x: tuple[str, ...], y: tuple[str, ...], group: float = NOW + 7) -> SourceFilter:
    return SourceFilter(EXCLUDE, group, {**{s: NOW + 5 for s in x}, **{s: NOW - 1 for s in y}})


def lists(f: SourceFilter) -> tuple[str, set[str], set[str]]:
    return f.mode, f.running(NOW), f.stopped(NOW) if f.mode == EXCLUDE else set()


def test_the_constants_match_the_timers() -> None:
    assert T.membership_interval == GMI and T.last_member_time == LMQT


# ---- 6.4.1: current-state records ----------------------------------------------------------
def test_include_is_in_adds_the_sources() -> None:
    f = include("a", "b")
    assert f.apply("is_in", {"b", "c"}, NOW, T) == []
    assert lists(f) == (INCLUDE, {"a", "b", "c"}, set())
    assert f.timers["c"] == f.timers["b"] == NOW + GMI and f.timers["a"] == NOW + 5


def test_include_is_ex_turns_exclude_with_a_and_b_running_b_minus_a_stopped() -> None:
    f = include("a", "b")
    assert f.apply("is_ex", {"b", "c"}, NOW, T) == []
    assert lists(f) == (EXCLUDE, {"b"}, {"c"})  # EXCLUDE (A*B, B-A), A-B deleted
    assert f.group_timer == NOW + GMI and "a" not in f.timers


def test_exclude_is_in_adds_to_x_and_takes_from_y() -> None:
    f = exclude(("a",), ("b", "c"))
    assert f.apply("is_in", {"b", "d"}, NOW, T) == []
    assert lists(f) == (EXCLUDE, {"a", "b", "d"}, {"c"})  # EXCLUDE (X+A, Y-A)
    assert f.timers["d"] == NOW + GMI and f.group_timer == NOW + 7


def test_exclude_is_ex_keeps_a_minus_y_and_y_times_a() -> None:
    f = exclude(("a", "b"), ("c", "d"))
    assert f.apply("is_ex", {"b", "c", "e"}, NOW, T) == []
    assert lists(f) == (EXCLUDE, {"b", "e"}, {"c"})  # EXCLUDE (A-Y, Y*A)
    assert f.timers["e"] == NOW + GMI and f.timers["b"] == NOW + 5
    assert f.group_timer == NOW + GMI


# ---- 6.4.2: state-change records -------------------------------------------------------------
def test_include_allow_and_block() -> None:
    f = include("a")
    assert f.apply("allow", {"b"}, NOW, T) == []
    assert lists(f) == (INCLUDE, {"a", "b"}, set())
    assert f.apply("block", {"b", "z"}, NOW, T) == [Query(frozenset({"b"}))]  # Q(G,A*B)
    assert lists(f) == (INCLUDE, {"a", "b"}, set()) and f.timers["b"] == NOW + LMQT


def test_include_to_ex_and_to_in() -> None:
    f = include("a", "b")
    assert f.apply("to_ex", {"b", "c"}, NOW, T) == [Query(frozenset({"b"}))]
    assert lists(f) == (EXCLUDE, {"b"}, {"c"}) and f.timers["b"] == NOW + LMQT
    g = include("a", "b")
    assert g.apply("to_in", {"b", "c"}, NOW, T) == [Query(frozenset({"a"}))]  # Q(G,A-B)
    assert lists(g) == (INCLUDE, {"a", "b", "c"}, set()) and g.timers["a"] == NOW + LMQT


def test_exclude_allow_and_block() -> None:
    f = exclude(("a",), ("b", "c"))
    assert f.apply("allow", {"c"}, NOW, T) == []
    assert lists(f) == (EXCLUDE, {"a", "c"}, {"b"})
    g = exclude(("a",), ("b",), group=NOW + 7)
    # EXCLUDE (X+(A-Y), Y): d new, at the group timer, then queried with a (A-Y)
    assert g.apply("block", {"a", "b", "d"}, NOW, T) == [Query(frozenset({"a", "d"}))]
    assert lists(g) == (EXCLUDE, {"a", "d"}, {"b"})
    assert g.timers["d"] == g.timers["a"] == NOW + LMQT


def test_exclude_to_ex_and_to_in() -> None:
    f = exclude(("a", "b"), ("c", "d"), group=NOW + 7)
    assert f.apply("to_ex", {"b", "c", "e"}, NOW, T) == [Query(frozenset({"b", "e"}))]
    assert lists(f) == (EXCLUDE, {"b", "e"}, {"c"})
    assert f.timers["e"] == NOW + LMQT and f.group_timer == NOW + GMI
    g = exclude(("a", "b"), ("c",), group=NOW + 7)
    assert g.apply("to_in", {"b", "c"}, NOW, T) == [Query(frozenset({"a"})), Query()]
    assert lists(g) == (EXCLUDE, {"a", "b", "c"}, set())
    assert g.timers["a"] == NOW + LMQT and g.group_timer == NOW + LMQT


def test_an_unknown_record_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown group record type"):
        include("a").apply("mode_is_weird", set(), NOW, T)


# ---- 6.5 and 6.3: timers running out, and what is forwarded ----------------------------------
def test_exclude_turns_include_when_the_group_timer_runs_out() -> None:
    f = exclude(("a",), ("b",), group=NOW + 3)
    f.timers["a"] = NOW + 10
    f.expire(NOW + 4)
    assert f.mode == INCLUDE and f.timers == {"a": NOW + 10} and f.has_members(NOW + 4)
    f.expire(NOW + 11)
    assert not f.has_members(NOW + 11)


def test_a_port_admits_what_its_state_asks_for() -> None:
    f = include("a")
    assert f.admits("a", NOW) and not f.admits("b", NOW)
    g = exclude(("a",), ("b",))
    assert g.admits("a", NOW) and not g.admits("b", NOW) and g.admits("c", NOW)
    leave = include()  # TO_IN({}) of the last source: no member once queried out
    leave.apply("allow", {"a"}, NOW, T)
    leave.apply("to_in", set(), NOW, T)
    assert leave.admits("a", NOW + 1) and not leave.admits("a", NOW + LMQT)
