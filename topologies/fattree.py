"""Fat tree: the k-ary n-tree of Petrini & Vanneschi, with levels counted from the leaves.

Nodes p = 0..k^n-1; switches <w, l> with level l = 0 (leaf) .. n-1 (top) and w an (n-1)-digit
k-ary word, digit 0 least significant. Node p plugs into leaf <p // k, 0> on port p % k + 1.
<w, l> and <w', l+1> are linked iff w and w' agree on every digit except digit l; the lower
switch uses up port k + w'[l] + 1, the upper one down port w[l] + 1. So each switch has down
ports 1..k and up ports k+1..2k (the top level has none).

Consequence (what the tests check): going only down, <w, l> reaches exactly the nodes p with
p // k^(l+1) == w // k^l, a contiguous block of k^(l+1) nodes aligned to k^(l+1), and its down
ports 1..k lead to that block's k sub-blocks in order. This is Petrini & Vanneschi's wiring
with the level and digit order reversed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from topologies.construction import (
    Count,
    LinkProfile,
    check_size,
    link_profile,
    positive_int,
    power,
)
from topologies.errors import TopologyError
from topologies.model import Host, Link, Switch, Topology


def kary_ntree(k: int, n: int, hosts: int, profile: LinkProfile,
               host_attrs: Callable[[int], dict[str, Any]],
               switch_attrs: Callable[[int, int], dict[str, Any]],
               ) -> tuple[list[Host], list[Switch], list[Link]]:
    """Nodes 0..hosts-1 of the k-ary n-tree and the switches with at least one node below.

    Switches are numbered level by level from the leaves, by word within a level.
    `switch_attrs(level, word)` and `host_attrs(node)` supply the attributes.
    """
    width = k ** (n - 1)
    names: dict[tuple[int, int], str] = {}
    switches: list[Switch] = []
    for level in range(n):
        for word in range(width):
            if (word // k**level) * k ** (level + 1) < hosts:  # first node of its block exists
                switch = Switch.numbered(len(switches) + 1, **switch_attrs(level, word))
                switches.append(switch)
                names[(level, word)] = switch.name
    nodes = [Host.numbered(p, **host_attrs(p)) for p in range(hosts)]
    links = [Link(h.name, 0, names[(0, h.node_id // k)], h.node_id % k + 1, profile.host)
             for h in nodes]
    for level in range(n - 1):
        unit = k**level
        for word in range(width):
            if (level, word) not in names:
                continue
            digit = (word // unit) % k
            for j in range(k):  # an upper neighbour's block contains ours, so it exists
                upper = names[(level + 1, word + (j - digit) * unit)]
                links.append(Link(names[(level, word)], k + j + 1, upper, digit + 1, profile.core))
    return nodes, switches, links


def switch_count(k: int, n: int, hosts: int) -> Count:
    """The switches kary_ntree makes for `hosts` nodes, counted without making them: at
    level l, the k^l words of every k^(l+1)-node block that holds a node."""
    width = power(k, n - 1)
    if isinstance(width, str):
        return width
    return sum(min(width, -(-hosts // k ** (level + 1)) * k**level) for level in range(n))


def digits(node: int, k: int, n: int) -> tuple[int, ...]:
    """The node's n k-ary digits, most significant first."""
    return tuple((node // k**i) % k for i in reversed(range(n)))


def fattree(k: int = 4, n: int = 2, hosts: int | None = None, *, bw: float | None = 100.0,
            core_bw: float | None = None, delay_ms: float = 0.0,
            routing: str = "updown") -> Topology:
    """k^n nodes under n levels of k^(n-1) switches; `hosts` keeps only nodes 0..hosts-1."""
    k = positive_int("fattree", "k", k, minimum=2)
    n = positive_int("fattree", "n", n)
    full = power(k, n)
    count = full if hosts is None else positive_int("fattree", "hosts", hosts)
    if isinstance(full, int) and isinstance(count, int) and count > full:
        raise TopologyError(f"fattree: hosts must be at most k^n = {full}, got {count}")
    check_size("fattree", count, switch_count(k, n, count) if isinstance(count, int) else 0)
    assert isinstance(count, int)  # check_size refuses a count too large to compute
    profile = link_profile("fattree", bw, core_bw, delay_ms)
    nodes, switches, links = kary_ntree(
        k, n, count, profile,
        host_attrs=lambda p: {"digits": digits(p, k, n)},
        switch_attrs=lambda level, word: {"level": level, "index": word})
    return Topology(
        name=f"fattree-k{k}-n{n}" + ("" if hosts is None else f"-h{count}"),
        shape="fattree", routing=routing,
        params={"k": k, "n": n, "hosts": hosts, **profile.record(), "routing": routing},
        hosts=nodes, switches=switches, links=links,
    )
