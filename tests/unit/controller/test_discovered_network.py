"""controller.discovered_network.Discovered: the topology a discovery becomes (hosts numbered
by IP), a link found late forgets the hosts learnt on its ports, and a disconnected
discovery is not yet a topology."""

from __future__ import annotations

from controller.discovered_network import Discovered


def _tree() -> Discovered:
    """s1 on top of s2 and s3; hosts on s2:1, s2:2, s3:1."""
    d = Discovered()
    for dpid in (1, 2, 3):
        d.add_switch(dpid, {1, 2, 3})
    assert d.add_link((2, 3), (1, 1)) and d.add_link((3, 3), (1, 2))
    assert not d.add_link((1, 1), (2, 3))  # the same link seen from the other end
    return d


def test_topology_from_discovery_numbers_hosts_by_ip():
    d = _tree()
    assert d.topology() is None  # no hosts yet
    assert d.learn_host("10.0.0.3", "00:00:00:00:00:03", (3, 1))
    assert d.learn_host("10.0.0.1", "00:00:00:00:00:01", (2, 1))
    assert not d.learn_host("10.0.0.9", "00:00:00:00:00:09", (1, 1))  # a link port
    assert not d.learn_host("0.0.0.0", "00:00:00:00:00:07", (2, 2))
    assert not d.learn_host("10.0.0.1", "00:00:00:00:00:01", (2, 1))  # nothing new
    topo = d.topology()
    assert [(h.name, h.ip) for h in topo.hosts] == [("h0", "10.0.0.1"), ("h1", "10.0.0.3")]
    assert topo.path("h0", "h1") == ["h0", "s2", "s1", "s3", "h1"]
    assert d.edge_ports() == [(1, 3), (2, 1), (2, 2), (3, 1), (3, 2)]


def test_a_link_found_late_forgets_hosts_learnt_on_its_ports():
    d = Discovered()
    d.add_switch(1, {1, 2})
    d.add_switch(2, {1, 2})
    d.learn_host("10.0.0.5", "00:00:00:00:00:05", (1, 2))  # really a switch port
    d.learn_host("10.0.0.1", "00:00:00:00:00:01", (1, 1))
    d.add_link((1, 2), (2, 2))
    assert set(d.hosts) == {"10.0.0.1"}
    d.remove_switch(2)
    assert d.links == {} and set(d.ports) == {1}


def test_disconnected_discovery_is_not_yet_a_topology():
    d = Discovered()
    d.add_switch(1, {1})
    d.add_switch(2, {1})
    d.learn_host("10.0.0.1", "00:00:00:00:00:01", (1, 1))
    d.learn_host("10.0.0.2", "00:00:00:00:00:02", (2, 1))
    assert d.topology() is None  # no link between the switches found yet
    d.add_switch(1, {1, 2})
    d.add_switch(2, {1, 2})
    d.add_link((1, 2), (2, 2))
    assert len(d.topology().hosts) == 2
