"""controller.source_filter: RFC 3376 section 6.4's tables, row by row (GMI 22 s, LMQT 2 s with
these timers), section 6.5's timers running out and what a port admits, and the Linux
kernel's bridge IGMPv3 selftest cases."""

import pytest

from controller.source_filter import EXCLUDE, INCLUDE, Query, SourceFilter
from controller.timers import IgmpTimers

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


# ---- the Linux kernel's bridge IGMPv3 selftests (tools/testing/selftests/net/forwarding/
# bridge_igmp.sh), translated: their setups, records and which sources are forwarded after;
# sources 1, 2, 3, 20, ... stand for 192.0.2.x, 100 for a source no record named -----------
def kernel_include() -> tuple[SourceFilter, float]:
    """v3include_test's state: IS_IN(1, 2, 3) from nothing."""
    f = SourceFilter()
    f.apply("is_in", {"1", "2", "3"}, NOW, T)
    return f, NOW + 1


def kernel_exclude() -> tuple[SourceFilter, float]:
    """The v3exc_* tests' state: INCLUDE(1, 2, 3) + IS_EX(1, 2, 20, 21) = EXCLUDE(X={1, 2},
    Y={20, 21}), source 3 deleted."""
    f, now = kernel_include()
    f.apply("is_ex", {"1", "2", "20", "21"}, now, T)
    assert lists_at(f, now) == (EXCLUDE, {"1", "2"}, {"20", "21"}) and "3" not in f.timers
    return f, now + 1


def lists_at(f: SourceFilter, now: float) -> tuple[str, set[str], set[str]]:
    return f.mode, f.running(now), f.stopped(now) if f.mode == EXCLUDE else set()


KERNEL = {  # test: (setup, record, sources, forwarded, blocked)
    "v3include_test": (None, None, set(), {"1", "2", "3"}, {"100"}),
    "v3inc_allow_test": (kernel_include, "allow", {"10", "11", "12"}, {"10", "11", "12"},
                         {"100"}),
    "v3inc_is_include_test": (kernel_include, "is_in", {"10", "11", "12"},
                              {"10", "11", "12"}, {"100"}),
    "v3inc_is_exclude_test": (kernel_include, "is_ex", {"1", "2", "20", "21"},
                              {"1", "2", "100"}, {"20", "21"}),
    "v3inc_to_exclude_test": (kernel_include, "to_ex", {"1", "20", "30"}, {"1", "100"},
                              {"20", "30"}),
    "v3exc_allow_test": (kernel_exclude, "allow", {"20", "30"},
                         {"1", "2", "20", "30", "100"}, {"21"}),
    "v3exc_is_include_test": (kernel_exclude, "is_in", {"20", "30"},
                              {"1", "2", "20", "30", "100"}, {"21"}),
    "v3exc_is_exclude_test": (kernel_exclude, "is_ex", {"20", "30"}, {"30", "100"}, {"20"}),
    "v3exc_to_exclude_test": (kernel_exclude, "to_ex", {"1", "20", "30"},
                              {"1", "30", "100"}, {"20"}),
    "v3exc_block_test": (kernel_exclude, "block", {"1", "20", "30"},
                         {"1", "2", "30", "100"}, {"20", "21"}),
}


@pytest.mark.parametrize("name", sorted(KERNEL))
def test_the_kernels_bridge_igmp_cases(name: str) -> None:
    setup, record, sources, forwarded, blocked = KERNEL[name]
    f, now = (setup or kernel_include)()
    if record is not None:
        f.apply(record, sources, now, T)
    assert {s for s in forwarded | blocked if f.admits(s, now)} == forwarded


def test_the_kernels_block_and_timeout_cases_after_the_timers_run_out() -> None:
    # v3inc_block_test: BLOCK(1, 20, 30) queries source 1; unconfirmed, it goes after LMQT
    f, now = kernel_include()
    assert f.apply("block", {"1", "20", "30"}, now, T) == [Query(frozenset({"1"}))]
    later = now + LMQT
    assert {s for s in ("1", "2", "3", "100") if f.admits(s, later)} == {"2", "3"}
    # v3exc_timeout_test: ALLOW(20, 30), then the group timer runs out: INCLUDE(20, 30)
    g, now = kernel_exclude()
    g.apply("allow", {"20", "30"}, now, T)
    out = g.group_timer
    g.expire(out)
    assert g.mode == INCLUDE and g.running(out) == {"20", "30"}
    assert not g.admits("100", out) and not g.admits("21", out)
