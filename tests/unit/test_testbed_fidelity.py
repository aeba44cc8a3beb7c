"""testbed.fidelity: what a loaded link should carry, and when a result is flagged."""

from __future__ import annotations

import pytest

from testbed.fidelity import CPU_LIMIT, expected_rates, judge


def test_expected_rates_uniform_below_capacity() -> None:
    offered = {h: 20.0 for h in ("a", "b", "c")}
    share = {s: {d: 0.5 for d in offered if d != s} for s in offered}
    cap = dict.fromkeys(offered, 100.0)
    assert expected_rates(offered, share, cap) == pytest.approx(offered)


def test_a_hot_spot_caps_what_its_senders_can_carry() -> None:
    # four senders put 60 Mbit/s each towards "hot" (100 Mbit/s link): 240 in, 100 taken
    offered = {s: 60.0 for s in ("a", "b", "c", "d")}
    share = {s: {"hot": 1.0} for s in offered}
    cap = {**dict.fromkeys(offered, 100.0), "hot": 100.0}
    got = expected_rates(offered, share, cap)
    assert got == pytest.approx(dict.fromkeys(offered, 25.0))


def test_own_link_caps_the_offer() -> None:
    got = expected_rates({"a": 150.0}, {"a": {"b": 1.0}}, {"a": 100.0, "b": 1000.0})
    assert got == {"a": 100.0}


def test_judge_flags_cpu_and_slow_links() -> None:
    quiet = judge(0.5, [], 2.0)
    assert quiet["ok"] and quiet["flags"] == []
    busy = judge(CPU_LIMIT + 0.01, [], 2.0)
    assert not busy["ok"] and "cpu" in busy["flags"][0]
    slow = judge(0.5, [{"link": "s1-eth2", "expected_mbit": 50.0, "achieved_mbit": 20.0,
                        "ratio": 0.4}], 2.0)
    assert slow["flags"] == ["s1-eth2 carried 20.0 of 50.0 Mbit/s expected"]
    fine = judge(0.5, [{"link": "s1-eth2", "expected_mbit": 50.0, "achieved_mbit": 48.0,
                        "ratio": 0.96}], 2.0)
    assert fine["ok"]


def test_links_under_loss_are_recorded_not_judged() -> None:
    slow = [{"link": "s1-eth2", "expected_mbit": 50.0, "achieved_mbit": 20.0, "ratio": 0.4}]
    got = judge(0.5, slow, 2.0, judge_links=False)
    assert got["ok"] and got["links"] == slow and got["links_judged"] is False
