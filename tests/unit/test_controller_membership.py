"""Membership timers: reports, leaves with last-member queries, fast leave, expiry."""

from __future__ import annotations

from controller.membership import IgmpTimers, Membership


def test_rfc_defaults():
    t = IgmpTimers()
    assert t.membership_interval == 260.0 and t.last_member_time == 2.0
    assert t.startup_interval == 125.0 / 4


def test_report_refresh_and_expiry():
    m = Membership(IgmpTimers(query_interval=2, query_response_interval=1))  # 5 s
    assert m.report("239.1.1.1", "h1", now=0.0) is True
    assert m.report("239.1.1.1", "h1", now=1.0) is False  # refresh, not new
    assert m.members("239.1.1.1") == {"h1"}
    assert m.expire(5.9) == []
    assert m.expire(6.0) == [("239.1.1.1", "h1")]
    assert m.groups() == []


def test_leave_waits_for_last_member_time_unless_reported_again():
    m = Membership(IgmpTimers(last_member_interval=0.5))  # last member time 1 s
    m.report("g", "h1", 0.0)
    m.report("g", "h2", 0.0)
    assert m.leave("g", "h1", now=10.0) is False
    assert ("g", "h1") in m.leaving
    m.report("g", "h1", 10.5)  # answered the group query: stays
    assert ("g", "h1") not in m.leaving and m.expire(11.5) == []
    m.leave("g", "h2", now=20.0)
    assert m.expire(21.0) == [("g", "h2")]
    assert m.members("g") == {"h1"}


def test_fast_leave_and_unknown_leave():
    m = Membership()
    m.report("g", "h1", 0.0)
    assert m.leave("g", "h9", 1.0) is False
    assert m.leave("g", "h1", 1.0, fast=True) is True
    assert m.groups() == []


def test_remove_member_and_snapshot():
    m = Membership(IgmpTimers(query_interval=10, query_response_interval=1))
    m.report("a", "h1", 0.0)
    m.report("b", "h1", 0.0)
    m.report("b", "h2", 0.0)
    assert m.snapshot(1.0) == {"a": {"h1": 20.0}, "b": {"h1": 20.0, "h2": 20.0}}
    assert m.remove_member("h1") == ["a", "b"]
    assert m.groups() == ["b"]
