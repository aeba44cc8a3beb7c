"""testbed.cluster.switch_placement.place: which server every switch runs on: blocks that cut
as few links as the shape allows with hosts balanced, a fat tree's pods together,
switch-bin, and bad placements refused."""

from __future__ import annotations

import pytest

from testbed.cluster.switch_placement import place
from topologies import parse_spec


@pytest.mark.parametrize("spec, servers, cut", [
    ("fattree:k=4,n=2,hosts=16", 2, 8),   # its bisection: 8 of the 16 switch-switch links
    ("fattree:k=4,n=3", 2, 32),           # 64 nodes: bisection 32
    ("fattree:k=4,n=3", 4, 48),           # pods of 16: 3 in 4 of level 1's up links leave
    ("bmin:n=4", 2, 8),
    ("mesh:rows=4,cols=4", 2, 4),          # rows 0-1 | rows 2-3: one link per column
    ("torus:rows=4,cols=4", 2, 8),         # and the wrap-around
])
def test_blocks_cut_as_few_links_as_the_shape_allows_and_balance_hosts(spec, servers, cut):
    topo = parse_spec(spec)
    names = [f"s{i}" for i in range(servers)]
    p = place(topo, names)
    assert len(p.cut) == cut
    per = p.hosts_per_server(topo)
    assert max(per.values()) - min(per.values()) <= max(
        len([h for h in topo.hosts if topo.host_attachment(h)[0] == s.name])
        for s in topo.switches)  # at most one switch's hosts apart
    for h in topo.hosts:  # a host runs beside its switch: no host link is cut
        assert p.server_of[h.name] == p.server_of[topo.host_attachment(h)[0]]
    assert all(a.startswith("s") and b.startswith("s") for a, b in p.cut)


def test_the_pods_of_a_fat_tree_stay_together():
    topo = parse_spec("fattree:k=4,n=2,hosts=16")
    p = place(topo, ["a", "b"])
    assert [p.server_of[f"h{i}"] for i in range(16)] == ["a"] * 8 + ["b"] * 8


def test_switch_bin_is_cluster_editions_and_a_star_stays_whole():
    topo = parse_spec("fattree:k=4,n=2,hosts=16")
    p = place(topo, ["a", "b"], "switch-bin")  # dpid order: every leaf first
    assert p.hosts_per_server(topo) == {"a": 16, "b": 0} and len(p.cut) == 16
    star = place(parse_spec("star:hosts=4"), ["a"])
    assert set(star.server_of.values()) == {"a"} and star.cut == ()
    with pytest.raises(ValueError, match="star-4 has 1 switch.*: b would run nothing"):
        place(parse_spec("star:hosts=4"), ["a", "b"])  # one switch cannot be split


@pytest.mark.parametrize("servers, method, words", [
    ([], "blocks", "at least one server"),
    (["a", "a"], "blocks", "named twice"),
    (["a", "b"], "random", "unknown placement 'random'; choose from blocks, switch-bin"),
])
def test_bad_placements_are_refused(servers, method, words):
    with pytest.raises(ValueError, match=words):
        place(parse_spec("star:hosts=2"), servers, method)
