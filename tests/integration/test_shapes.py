"""Every topology shape at a small size, on the real stack: all-pairs ping with no loss and
TCP between the two most distant hosts, along routes the controller installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from testbed.emulation.network import Emulation
from topologies import parse_spec

from .netutil import all_pairs_ping, tcp_transfer

SHAPES = [
    "star:hosts=4",
    "tree:leaves=2,hosts_per_leaf=2",
    "fattree:k=2,n=3",
    "mesh:rows=2,cols=3",
    "torus:rows=3,cols=3",
    "bmin:n=2",
    str(Path(__file__).parents[2] / "topologies/examples/dumbbell.toml"),
]


@pytest.mark.parametrize("spec", SHAPES)
def test_all_pairs_ping_and_tcp_between_most_distant(spec, caps, clean_after):
    topo = parse_spec(spec)
    with Emulation(topo, caps=caps) as emu:
        reached = all_pairs_ping(emu)
        n = len(topo.hosts)
        assert len(reached) == n * (n - 1)
        unreached = [pair for pair, ok in reached.items() if not ok]
        assert not unreached, f"{spec}: no reply for {unreached}"

        a, b = topo.diameter_pair()
        assert topo.hops(a.name, b.name) == max(
            topo.hops(x.name, y.name) for x in topo.hosts for y in topo.hosts)
        # iperf3's receiver counts what arrived by the end of the test: up to a queue's worth
        # (HTB's 1000 frames, 1.5 MB) can still be in flight then, so the transfer is larger
        got = tcp_transfer(emu, a.name, b.name, nbytes=8_000_000)
        assert got["sent"]["bytes"] >= 8_000_000
        assert got["received"]["bytes"] > 4_000_000
        # Links are 100 Mbit/s: TCP gets through, and no faster than the shaped rate.
        assert 5e6 < got["received"]["bits_per_second"] < 105e6


def test_link_rate_is_enforced(caps, clean_after):
    with Emulation(parse_spec("star:hosts=2,bw=10"), caps=caps) as emu:
        got = tcp_transfer(emu, "h0", "h1", nbytes=3_000_000)
    assert 6e6 < got["received"]["bits_per_second"] < 10.5e6, got
