"""Bidirectional butterfly MIN (Xu & Ni) of 2x2 switches, with turnaround routing.

Topologically the BMIN with 2^n nodes and n stages of 2^(n-1) switches is the 2-ary n-tree,
so it is built by the fat-tree construction: ports 1-2 face the nodes ("left"/down), ports 3-4
the next stage ("right"/up, absent on the last stage), and turnaround routing is 'updown'.
"""

from __future__ import annotations

from topologies.construction import check_size, link_profile, positive_int, power
from topologies.fattree import kary_ntree, switch_count
from topologies.model import Topology


def bmin(n: int = 3, *, bw: float | None = 100.0, core_bw: float | None = None,
         delay_ms: float = 0.0, routing: str = "updown") -> Topology:
    """2^n nodes (host attr address: n-bit binary), switches with attrs stage == level, index."""
    n = positive_int("bmin", "n", n)
    full = power(2, n)
    check_size("bmin", full, switch_count(2, n, full) if isinstance(full, int) else 0)
    profile = link_profile("bmin", bw, core_bw, delay_ms)
    nodes, switches, links = kary_ntree(
        2, n, 2**n, profile,
        host_attrs=lambda p: {"address": format(p, f"0{n}b")},
        switch_attrs=lambda stage, word: {"stage": stage, "level": stage, "index": word})
    return Topology(
        name=f"bmin-n{n}", shape="bmin", routing=routing,
        params={"n": n, **profile.record(), "routing": routing},
        hosts=nodes, switches=switches, links=links,
    )
