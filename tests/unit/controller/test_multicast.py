"""controller.multicast.MulticastPolicy, the per-(group, source) decision: IGMP mode and source
filters, the unregistered policy (drop or flood), link-local groups, failed members, and
contiguous mode with range addresses and gap-free ranges."""

from __future__ import annotations

from controller.config import ControllerConfig
from controller.membership import Membership
from controller.mtree import deliveries
from controller.multicast import MulticastPolicy
from topologies import parse_spec


def policy(spec: str = "fattree:k=2,n=3", **cfg) -> MulticastPolicy:
    return MulticastPolicy(parse_spec(spec), ControllerConfig(**cfg), Membership())


def joined(p: MulticastPolicy, group: str, *hosts: str) -> None:
    for h in hosts:
        p.membership.report(group, h, now=0.0)


def test_igmp_mode_delivers_to_members_only():
    p = policy()
    joined(p, "239.1.1.1", "h2", "h5", "h0")
    d = p.decide("239.1.1.1", "h0", 1.0)
    assert d.kind == "tree" and d.members == ("h0", "h2", "h5")
    got = deliveries(p.topo, "h0", d.tree)
    assert {h for h, n in got.items() if n} == {"h2", "h5"}  # the sender gets no copy


def test_source_filters_pick_the_receivers_of_each_source():
    p = policy("star:hosts=5")
    ip = {h.name: h.ip for h in p.topo.hosts}
    m = p.membership
    m.record("232.1.1.1", "h1", "is_in", {ip["h0"]}, now=0.0)  # SSM: only h0
    m.record("232.1.1.1", "h2", "allow", {ip["h0"], ip["h3"]}, now=0.0)
    m.record("232.1.1.1", "h4", "is_ex", set(), now=0.0)  # refused in the SSM range
    m.record("239.1.1.1", "h1", "is_ex", {ip["h3"]}, now=0.0)  # all but h3
    m.record("239.1.1.1", "h2", "is_ex", set(), now=0.0)  # any source
    assert p.decide("232.1.1.1", "h0", 1.0).members == ("h1", "h2")
    assert p.decide("232.1.1.1", "h3", 1.0).members == ("h2",)
    assert p.decide("232.1.1.1", "h4", 1.0).kind == "unregistered"
    assert p.decide("239.1.1.1", "h0", 1.0).members == ("h1", "h2")
    assert p.decide("239.1.1.1", "h3", 1.0).members == ("h2",)
    m.record("239.1.1.1", "h2", "block", {ip["h0"]}, now=2.0)  # asks, keeps it till LMQT
    assert p.decide("239.1.1.1", "h0", 3.0).members == ("h1", "h2")
    assert p.decide("239.1.1.1", "h0", 4.0).members == ("h1",)


def test_unregistered_drop_or_flood():
    assert policy().decide("239.1.1.1", "h0", 1.0).kind == "unregistered"
    p = policy(unregistered="flood")
    d = p.decide("239.1.1.1", "h3", 1.0)
    got = deliveries(p.topo, "h3", d.tree)
    assert sum(got.values()) == 7 and got["h3"] == 0


def test_link_local_reaches_every_host_but_the_sender():
    d = policy().decide("224.0.0.251", "h1", 1.0)
    assert d.kind == "tree"
    assert deliveries(policy().topo, "h1", d.tree) == {f"h{i}": int(i != 1) for i in range(8)}


def test_failed_members_are_left_out_in_igmp_mode():
    p = policy()
    joined(p, "239.1.1.1", "h2", "h3")
    p.failed = {3}
    assert p.decide("239.1.1.1", "h0", 1.0).members == ("h2",)


def test_contiguous_range_address():
    p = policy(mode="contiguous")
    d = p.decide("239.255.2.5", "h0", 1.0)
    assert d.kind == "tree" and d.members == ("h2", "h3", "h4", "h5")
    assert {h for h, n in deliveries(p.topo, "h0", d.tree).items() if n} == {"h2", "h3", "h4",
                                                                              "h5"}
    p.failed = {4}
    d = p.decide("239.255.2.5", "h0", 1.0)
    assert d.kind == "refused" and "failed node(s) 4" in d.reason
    assert p.decide("239.255.6.9", "h0", 1.0).kind == "refused"  # beyond node 7


def test_contiguous_igmp_group_needs_one_gap_free_range():
    p = policy(mode="contiguous")
    joined(p, "239.1.1.1", "h1", "h2", "h4")
    d = p.decide("239.1.1.1", "h0", 1.0)
    assert d.kind == "refused" and "gap at 3" in d.reason
    joined(p, "239.1.1.1", "h3")
    assert p.decide("239.1.1.1", "h0", 1.0).kind == "tree"
    assert p.decide("239.2.2.2", "h0", 1.0).kind == "unregistered"
