"""controller.forwarding: the proactive unicast entries follow the topology's routing table."""

import pytest

from controller.forwarding import (
    ETH_TYPE_ARP,
    ETH_TYPE_IPV4,
    PRIO_L2,
    PRIO_UNICAST,
    FlowEntry,
    unicast_entries,
)
from topologies import Topology, parse_spec

SPECS = [
    "star:hosts=1",
    "star:hosts=5",
    "mesh:rows=2,cols=3",
    "mesh:rows=3,cols=3,routing=shortest",
    "torus:rows=3,cols=3",
    "fattree:k=4,n=2",
    "fattree:k=2,n=3,routing=shortest",
    "tree:leaves=3,hosts_per_leaf=2",
]


def _entries_by_kind(entries: list[FlowEntry]) -> dict[str, dict[str, FlowEntry]]:
    """kind ("ipv4", "arp", "eth") -> matched address -> entry; fails on duplicates."""
    kinds: dict[str, dict[str, FlowEntry]] = {"ipv4": {}, "arp": {}, "eth": {}}
    for entry in entries:
        match = entry.match_dict()
        if match.get("eth_type") == ETH_TYPE_IPV4:
            assert set(match) == {"eth_type", "ipv4_dst"}
            kind, key = "ipv4", match["ipv4_dst"]
        elif match.get("eth_type") == ETH_TYPE_ARP:
            assert set(match) == {"eth_type", "arp_tpa"}
            kind, key = "arp", match["arp_tpa"]
        else:
            assert set(match) == {"eth_dst"}
            kind, key = "eth", match["eth_dst"]
        assert key not in kinds[kind], f"duplicate {kind} entry for {key}"
        kinds[kind][key] = entry
    return kinds


@pytest.fixture(params=SPECS)
def topo(request: pytest.FixtureRequest) -> Topology:
    return parse_spec(request.param)


def test_every_switch_gets_a_table(topo: Topology) -> None:
    table = unicast_entries(topo)
    assert sorted(table) == sorted(sw.dpid for sw in topo.switches)
    for entries in table.values():
        assert len(entries) == 3 * len(topo.hosts)


def test_entries_for_every_host_follow_next_hops(topo: Topology) -> None:
    table = unicast_entries(topo)
    next_hops = topo.next_hops()
    for sw in topo.switches:
        kinds = _entries_by_kind(table[sw.dpid])
        for host in topo.hosts:
            port = next_hops[sw.name][host.name]
            ipv4, arp, eth = kinds["ipv4"][host.ip], kinds["arp"][host.ip], kinds["eth"][host.mac]
            assert (ipv4.out_port, arp.out_port, eth.out_port) == (port, port, port)
            assert ipv4.priority == arp.priority == PRIO_UNICAST
            assert eth.priority == PRIO_L2
        assert set(kinds["ipv4"]) == set(kinds["arp"]) == {h.ip for h in topo.hosts}
        assert set(kinds["eth"]) == {h.mac for h in topo.hosts}


def test_own_switch_points_at_the_host_port(topo: Topology) -> None:
    table = unicast_entries(topo)
    for host in topo.hosts:
        switch, port = topo.host_attachment(host.name)
        kinds = _entries_by_kind(table[topo.switch(switch).dpid])
        assert kinds["ipv4"][host.ip].out_port == port
        assert kinds["arp"][host.ip].out_port == port
        assert kinds["eth"][host.mac].out_port == port
        assert topo.neighbour(switch, port) == host.name


def test_following_the_entries_delivers_every_packet(topo: Topology) -> None:
    """Walk the installed ipv4 entries switch by switch: each destination is reached, no loop."""
    tables = {sw.name: _entries_by_kind(unicast_entries(topo)[sw.dpid])["ipv4"]
              for sw in topo.switches}
    for src in topo.hosts:
        for dst in topo.hosts:
            node, seen = topo.host_attachment(src.name)[0], [src.name]
            while node != dst.name:
                assert node in tables, f"{src.name}->{dst.name} delivered to host {node}"
                assert node not in seen, f"{src.name}->{dst.name} loops at {node}"
                seen.append(node)
                node = topo.neighbour(node, tables[node][dst.ip].out_port)
            if src != dst:
                assert [*seen, dst.name] == topo.path(src.name, dst.name)


def test_flow_entry_match_dict_and_hashability() -> None:
    entry = FlowEntry(PRIO_UNICAST, (("eth_type", ETH_TYPE_IPV4), ("ipv4_dst", "10.0.0.1")), 3)
    assert entry.match_dict() == {"eth_type": 0x0800, "ipv4_dst": "10.0.0.1"}
    same = FlowEntry(PRIO_UNICAST, (("eth_type", ETH_TYPE_IPV4), ("ipv4_dst", "10.0.0.1")), 3)
    assert entry == same and len({entry, same}) == 1
    with pytest.raises(AttributeError):
        entry.out_port = 4  # type: ignore[misc]


def test_entries_are_deterministic() -> None:
    assert unicast_entries(parse_spec("mesh:rows=2,cols=3")) == \
        unicast_entries(parse_spec("mesh:rows=2,cols=3"))
