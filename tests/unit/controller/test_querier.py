"""controller.querier: querier election (RFC 3376 6.6.2) with another querier's QRV/QQI adopted
within range (4.1.6, 4.1.7), the controller querying again once the other querier is gone,
and router ports (RFC 4541 2.1.1) ageing out."""

from __future__ import annotations

from controller import igmp
from controller.querier import Querier, adopted
from controller.timers import IgmpTimers


def test_another_queriers_timers_are_adopted_within_range() -> None:
    ours = IgmpTimers(query_interval=125.0, query_response_interval=10.0)
    big = adopted(ours, 7, igmp.decode(0xFF))  # QQIC 0xFF: 31744 s
    assert big.query_interval == 125.0 and big.robustness == 7
    assert adopted(ours, 0, 0).query_interval == 125.0 and adopted(ours, 0, 0).robustness == 2
    assert adopted(ours, 3, 1.0).query_interval == 10.0 and adopted(ours, 3, 60).robustness == 3
    q = Querier("10.0.255.254", ours)
    assert q.heard_query("h1", "10.0.0.2", 7, igmp.decode(0xFF), now=0.0)
    assert not q.is_querier(879.0) and q.is_querier(881.0)  # 7 x 125 + 10 / 2: not 18 hours

T = IgmpTimers(query_interval=10.0, query_response_interval=2.0)  # OQPI = 2*10 + 1 = 21 s


def test_a_lower_address_wins_and_the_controller_resumes_after_the_other_querier_present():
    q = Querier("10.0.255.254", T)
    assert q.is_querier(0.0) and q.state(0.0)["role"] == "querier"
    assert q.router_hosts(1.0) == set()
    assert q.heard_query("h3", "10.0.0.4", qrv=3, qqi_s=5.0, now=1.0) is True
    assert not q.is_querier(1.0) and q.router_hosts(1.0) == {"h3"}
    assert q.timers.robustness == 3 and q.timers.query_interval == 5.0  # adopted
    assert q.timers.query_response_interval == 2.0  # not carried by 4.1.6/4.1.7
    # OQPI with the adopted values: 3 * 5 + 1 = 16 s
    assert q.state(2.0) == {"role": "non-querier", "address": "10.0.0.4",
                            "other_present_s": 15.0, "router_ports": {"h3": 15.0}}
    assert not q.is_querier(16.9)
    assert q.is_querier(17.0) and q.timers == T


def test_a_higher_address_changes_nothing_but_marks_a_router_port():
    q = Querier("10.0.0.2", T)
    assert q.heard_query("h5", "10.0.0.6", qrv=2, qqi_s=10.0, now=0.0) is False
    assert q.is_querier(0.0) and q.router_hosts(0.0) == {"h5"}
    assert q.heard_query("h5", "10.0.0.6", qrv=2, qqi_s=10.0, now=5.0) is False
    assert q.router_hosts(5.0) == {"h5"}
    assert q.router_hosts(25.9) == {"h5"} and q.router_hosts(26.0) == set()


def test_the_lowest_of_two_other_queriers_stays_elected():
    q = Querier("10.0.255.254", T)
    q.heard_query("h1", "10.0.0.2", 2, 10.0, 0.0)
    q.heard_query("h3", "10.0.0.4", 2, 10.0, 10.0)  # higher than the present querier
    assert q.state(10.0)["address"] == "10.0.0.2" and q.other_until == 21.0
    q.heard_query("h1", "10.0.0.2", 2, 10.0, 20.0)  # the querier again: its timer restarts
    assert q.other_until == 41.0 and not q.is_querier(40.0)
    assert q.heard_query("h0", "10.0.255.254", 2, 10.0, 41.0) is False  # our own address
    assert q.is_querier(41.0)
