"""controller.mtree: multicast distribution trees deliver one copy per member, along routing."""

import functools
import gc
import random
from collections import Counter
from collections.abc import Callable

import pytest

from controller import mtree
from controller.mtree import deliveries, distribution_tree, tree_edges
from topologies import Host, Link, Switch, Topology, bmin, fattree, mesh, star, torus, tree

# name -> (builder, k of the k-ary tree for the NCA-level check, or None if not updown)
TOPOS: dict[str, tuple[Callable[[], Topology], int | None]] = {
    "star-6": (lambda: star(6), None),
    "star-5-updown": (lambda: star(5, routing="updown"), 5),
    "tree-3x2": (lambda: tree(3, 2), None),
    "tree-2x3-updown": (lambda: tree(2, 3, routing="updown"), 3),
    "fattree-4-2": (lambda: fattree(4, 2), 4),
    "fattree-2-3": (lambda: fattree(2, 3), 2),
    "fattree-4-2-h10": (lambda: fattree(4, 2, hosts=10), 4),
    "fattree-4-3-h37": (lambda: fattree(4, 3, hosts=37), 4),
    "fattree-2-3-shortest": (lambda: fattree(2, 3, routing="shortest"), None),
    "bmin-3": (lambda: bmin(3), 2),
    "mesh-3x3": (lambda: mesh(3, 3), None),
    "mesh-4x4": (lambda: mesh(4, 4), None),
    "mesh-3x3-shortest": (lambda: mesh(3, 3, routing="shortest"), None),
    "torus-4x4": (lambda: torus(4, 4), None),
    "torus-3x5": (lambda: torus(3, 5), None),
    "torus-4x4-shortest": (lambda: torus(4, 4, routing="shortest"), None),
}


XY = [name for name in TOPOS if name.startswith(("mesh", "torus")) and "shortest" not in name]
UPDOWN = [name for name, (_, k) in TOPOS.items() if k is not None]


@functools.cache
def built(name: str) -> Topology:
    return TOPOS[name][0]()


def cases(topo: Topology, seed: int) -> list[tuple[str, frozenset[str]]]:
    """Every source with: all hosts, each single member, and random subsets."""
    rng = random.Random(seed)
    names = [h.name for h in topo.hosts]
    out = []
    for source in names:
        out.append((source, frozenset(names)))
        out += [(source, frozenset({m})) for m in names if m != source]
        for _ in range(8):
            size = rng.randint(1, len(names))
            out.append((source, frozenset(rng.sample(names, size))))
    return out


def parents(topo: Topology, tree_: dict[str, frozenset[int]]) -> dict[str, list[str]]:
    """node -> the tree nodes that send to it."""
    found: dict[str, list[str]] = {}
    for a, b in tree_edges(topo, tree_):
        found.setdefault(b, []).append(a)
    return found


def tree_path(topo: Topology, source: str, tree_: dict[str, frozenset[int]],
              member: str) -> list[str]:
    """Nodes from the source host to `member` through the tree (parents are unique)."""
    up = {b: a for a, b in tree_edges(topo, tree_)}
    nodes = [member]
    while nodes[-1] in up:
        nodes.append(up[nodes[-1]])
    return [source, *reversed(nodes)]


def check_tree(topo: Topology, source: str, members: frozenset[str],
               tree_: dict[str, frozenset[int]]) -> None:
    targets = members - {source}
    got = deliveries(topo, source, tree_)
    assert got == {h.name: int(h.name in targets) for h in topo.hosts}
    if not targets:
        assert tree_ == {}
        return
    root, _ = topo.host_attachment(source)
    assert root in tree_
    assert all(tree_.values()), "a switch without output ports"
    entered = parents(topo, tree_)
    assert all(len(p) == 1 for p in entered.values()), "a node entered over two links"
    assert root not in entered
    # Every entered switch forwards (no dead branches); every tree switch is entered.
    assert {n for n in entered if not topo.is_host(n)} == set(tree_) - {root}
    assert {n for n in entered if topo.is_host(n)} == targets


@pytest.mark.parametrize("name", TOPOS)
def test_trees_deliver_one_copy_per_member(name: str) -> None:
    topo = built(name)
    for seed, (source, members) in enumerate(cases(topo, 1)):
        tree_ = distribution_tree(topo, source, members)
        try:
            check_tree(topo, source, members, tree_)
        except AssertionError as err:
            raise AssertionError(f"{name} {source} -> {sorted(members)} (case {seed}): "
                                 f"{tree_}") from err


@pytest.mark.parametrize("name", XY)
def test_xy_trees_follow_unicast_routes(name: str) -> None:
    topo = built(name)
    assert topo.routing == "xy"
    for source, members in cases(topo, 2):
        tree_ = distribution_tree(topo, source, members)
        for member in members - {source}:
            assert tree_path(topo, source, tree_, member) == topo.path(source, member), name


def nca_level(k: int, top: int, ids: list[int]) -> int:
    """Lowest level whose switches see all ids below them (capped at the top level)."""
    return next((lv for lv in range(top) if len({i // k ** (lv + 1) for i in ids}) == 1), top)


@pytest.mark.parametrize("name", UPDOWN)
def test_updown_trees_have_one_up_path(name: str) -> None:
    topo, k = built(name), TOPOS[name][1]
    assert topo.routing == "updown" and k is not None
    level = {s.name: s.attrs["level"] for s in topo.switches}
    top_level = max(level.values())
    for source, members in cases(topo, 3):
        tree_ = distribution_tree(topo, source, members)
        targets = members - {source}
        if not targets:
            continue
        ups = [(a, b) for a, b in tree_edges(topo, tree_)
               if b in level and level[b] > level[a]]
        assert len({a for a, _ in ups}) == len(ups), "a switch with two up ports"
        for member in targets:
            path = tree_path(topo, source, tree_, member)[1:-1]
            moves = [level[b] - level[a] for a, b in zip(path, path[1:], strict=False)]
            assert all(abs(m) == 1 for m in moves)
            climb = moves.count(1)
            assert moves == [1] * climb + [-1] * (len(moves) - climb), (name, path)
        # The trunk is one chain from the root; the turn-around is its top.
        root, _ = topo.host_attachment(source)
        chain = [root]
        for a, b in sorted(ups, key=lambda e: level[e[0]]):
            assert a == chain[-1]
            chain.append(b)
        turn = chain[-1]
        assert level[turn] == max(level[s] for s in tree_)
        ids = [topo.host(m).node_id for m in {source, *targets}]
        assert level[turn] == nca_level(k, top_level, ids), (name, source, sorted(targets))


def test_updown_member_on_source_leaf_is_served_from_the_trunk() -> None:
    # h1 shares h0's leaf, h5 does not: the route to h1 alone never climbs to the ancestor.
    topo = fattree(4, 2)
    tree_ = distribution_tree(topo, "h0", ["h1", "h5"])
    check_tree(topo, "h0", frozenset({"h1", "h5"}), tree_)
    leaf, _ = topo.host_attachment("h0")
    ups = [p for p in tree_[leaf] if topo.neighbour(leaf, p) not in ("h0", "h1", "h2", "h3")]
    assert len(ups) == 1
    assert topo.port_to(leaf, "h1") in tree_[leaf]
    assert topo.switch(topo.neighbour(leaf, ups[0])).attrs["level"] == 1


def test_updown_without_common_ancestor_on_any_route_still_gives_a_tree() -> None:
    # Leaves s1 (h0), s2 (h1), s3 (h2, h3); s4 over s1+s2, s5 over s2+s3, s6 on top.
    # From h1, d-mod-k sends h0 up via s4 and h3 up via s5: both turn below s6.
    links = [Link("h0", 0, "s1", 1), Link("h1", 0, "s2", 1), Link("h2", 0, "s3", 1),
             Link("h3", 0, "s3", 2), Link("s1", 2, "s4", 1), Link("s2", 2, "s4", 2),
             Link("s2", 3, "s5", 1), Link("s3", 3, "s5", 2), Link("s4", 3, "s6", 1),
             Link("s5", 3, "s6", 2)]
    levels = [0, 0, 0, 1, 1, 2]
    topo = Topology("lopsided", "file", [Host.numbered(i) for i in range(4)],
                    [Switch.numbered(i + 1, level=lv) for i, lv in enumerate(levels)],
                    links, routing="updown")
    tree_ = distribution_tree(topo, "h1", ["h0", "h3"])
    check_tree(topo, "h1", frozenset({"h0", "h3"}), tree_)
    assert tree_["s2"] == {2, 3}  # falls back to the unicast routes
    for source, members in cases(topo, 4):
        check_tree(topo, source, members, distribution_tree(topo, source, members))


def test_star_tree_is_the_member_ports() -> None:
    topo = star(6)
    assert distribution_tree(topo, "h0", ["h3", "h1"]) == {"s1": frozenset({2, 4})}
    assert tree_edges(topo, {"s1": frozenset({4, 2})}) == [("s1", "h1"), ("s1", "h3")]


def test_mesh_tree_shares_the_common_prefix() -> None:
    topo = mesh(3, 3)  # s1 s2 s3 / s4 s5 s6 / s7 s8 s9, ports 2=E 3=W 4=S 5=N, host on 1
    tree_ = distribution_tree(topo, "h0", ["h8", "h2", "h5"])
    assert tree_ == {"s1": frozenset({2}), "s2": frozenset({2}), "s3": frozenset({1, 4}),
                     "s6": frozenset({1, 4}), "s9": frozenset({1})}
    assert tree_edges(topo, tree_) == [("s1", "s2"), ("s2", "s3"), ("s3", "h2"), ("s3", "s6"),
                                       ("s6", "h5"), ("s6", "s9"), ("s9", "h8")]


def test_source_listed_as_member_is_not_sent_to() -> None:
    topo = torus(3, 3)
    with_source = distribution_tree(topo, "h4", ["h4", "h0", "h8"])
    assert with_source == distribution_tree(topo, "h4", ["h0", "h8"])
    assert deliveries(topo, "h4", with_source)["h4"] == 0
    assert distribution_tree(topo, "h4", ["h4"]) == {}


def test_empty_member_set() -> None:
    assert distribution_tree(mesh(2, 2), "h0", []) == {}
    assert distribution_tree(fattree(2, 2), "h0", set()) == {}


@pytest.mark.parametrize("members", [["h1", "h99"], ["s1"], [1], ["x"]])
def test_unknown_member_is_refused(members) -> None:
    with pytest.raises(ValueError, match="not hosts"):
        distribution_tree(mesh(2, 2), "h0", members)


@pytest.mark.parametrize("source", ["h9", "s1", 0])
def test_unknown_source_is_refused(source) -> None:
    with pytest.raises(ValueError, match="not a host"):
        distribution_tree(mesh(2, 2), source, ["h1"])


def test_single_string_is_one_member() -> None:
    topo = star(12)
    assert distribution_tree(topo, "h0", "h11") == distribution_tree(topo, "h0", ["h11"])


def test_output_is_deterministic() -> None:
    topo = fattree(2, 3)
    members = ["h7", "h2", "h3", "h5"]
    first = distribution_tree(topo, "h1", members)
    again = distribution_tree(fattree(2, 3), "h1", reversed(members))
    assert list(first.items()) == list(again.items())
    dpids = [topo.switch(s).dpid for s in first]
    assert dpids == sorted(dpids)


def test_deliveries_counts_duplicates_and_refuses_loops() -> None:
    topo = mesh(2, 2)  # s1 s2 / s3 s4
    # s1 sends east and south; both s2 and s3 send on to s4, which delivers to h3 twice.
    diamond = {"s1": frozenset({2, 4}), "s2": frozenset({4}), "s3": frozenset({2}),
               "s4": frozenset({1})}
    assert deliveries(topo, "h0", diamond) == {"h0": 0, "h1": 0, "h2": 0, "h3": 2}
    # Sending back to the source and dropping at switches outside the tree.
    assert deliveries(topo, "h0", {"s1": frozenset({1, 2})}) == {"h0": 1, "h1": 0, "h2": 0,
                                                                 "h3": 0}
    ring = {"s1": frozenset({2}), "s2": frozenset({4}), "s4": frozenset({3, 1}),
            "s3": frozenset({5})}
    with pytest.raises(ValueError, match="loop"):
        deliveries(topo, "h0", ring)


def test_level_cache_is_dropped_with_the_topology() -> None:
    topo = fattree(2, 2)
    distribution_tree(topo, "h0", ["h3"])
    key = id(topo)
    assert key in mtree._LEVELS
    del topo
    gc.collect()
    assert key not in mtree._LEVELS


def test_the_sources_of_one_group_spread_over_the_spines() -> None:
    """Every host of a 4-ary 2-tree multicasting to all (an Allgather's group): the trunks
    end at all four spines, four sources each, and no spine-to-leaf link carries more than
    the 3 blocks of the other leaves' sources on that spine (all 16 trees had climbed to one
    spine, 12 blocks down each of its links)."""
    topo = fattree(4, 2)
    hosts = [h.name for h in topo.hosts]
    level = {s.name: s.attrs["level"] for s in topo.switches}
    tops: Counter[str] = Counter()
    down: Counter[tuple[str, str]] = Counter()
    for source in hosts:
        edges = tree_edges(topo, distribution_tree(topo, source, hosts))
        tops.update(b for a, b in edges if b in level and level[b] == 1)
        down.update((a, b) for a, b in edges if a in level and level[a] == 1)
    assert sorted(tops.values()) == [4, 4, 4, 4]
    assert max(down.values()) == 3
