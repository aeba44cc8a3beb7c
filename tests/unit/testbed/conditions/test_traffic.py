"""testbed.conditions.traffic's pure helpers (no root, no sockets): host sets resolved and
unknown names refused, the nearest group hosts, the generator hosts' link rate, and bad
input refused."""

from __future__ import annotations

import pytest

from testbed.conditions.traffic import Traffic, flows, link_rate, neighbours, resolve_hosts
from testbed.errors import UsageError
from testbed.specs.traffic_model import (
    TrafficSpec,
)
from topologies import parse_spec

GROUP = ["h0", "h1", "h2", "h3", "h4"]


# ---- testbed.conditions.traffic's pure helpers (no emulation needed) ------
class _FakeEmu:
    def __init__(self, spec: str) -> None:
        self.topo = parse_spec(spec)


def test_resolve_hosts_sets_and_unknown_names() -> None:
    topo = parse_spec("star:hosts=5")
    members = ["h3", "h1"]
    assert resolve_hosts(TrafficSpec("uniform", 0.1), topo, members) == ["h0", "h2", "h4"]
    assert resolve_hosts(TrafficSpec("uniform", 0.1, hosts="members"), topo,
                         members) == ["h1", "h3"]
    assert resolve_hosts(TrafficSpec("uniform", 0.1, hosts="all"), topo, members) == GROUP
    assert resolve_hosts(TrafficSpec("uniform", 0.1, hosts=["h4", "h0"]), topo,
                         members) == ["h4", "h0"]
    with pytest.raises(UsageError, match="traffic hosts: unknown host.* h9"):
        resolve_hosts(TrafficSpec("uniform", 0.1, hosts=["h0", "h9"]), topo, members)
    with pytest.raises(UsageError, match="members: unknown host"):
        resolve_hosts(TrafficSpec("uniform", 0.1), topo, ["x1"])


def test_neighbours_are_the_nearest_group_hosts() -> None:
    topo = parse_spec("tree:leaves=3,hosts_per_leaf=2")  # h0 h1 | h2 h3 | h4 h5
    assert neighbours(topo, ["h0", "h1", "h2", "h3"]) == {
        "h0": ["h1"], "h1": ["h0"], "h2": ["h3"], "h3": ["h2"]}
    # alone on its leaf: every host one leaf away is equally near
    assert neighbours(topo, ["h0", "h2", "h3", "h5"])["h0"] == ["h2", "h3", "h5"]


def test_link_rate_of_the_generator_hosts() -> None:
    assert link_rate(parse_spec("star:hosts=3,bw=40"), ["h0", "h1"]) == 40.0
    assert link_rate(parse_spec("star:hosts=3,bw=none"), ["h0"]) is None


def test_traffic_refuses_bad_input_and_does_nothing_without_hosts() -> None:
    emu = _FakeEmu("star:hosts=4")
    with pytest.raises(UsageError, match="unknown host"):
        Traffic(emu, TrafficSpec("uniform", 0.1, hosts=["h7"]), members=[])
    with pytest.raises(UsageError, match="^traffic: hot: 'h3' is not one of"):
        Traffic(emu, TrafficSpec("hotspot", 0.1, hot="h3", hosts=["h0", "h1"]), members=[])
    with pytest.raises(UsageError, match="^traffic: hosts: uniform traffic needs at least 2"):
        Traffic(emu, TrafficSpec("uniform", 0.1), members=["h0", "h1", "h2"])
    with Traffic(emu, TrafficSpec("uniform", 0.1), members=GROUP[:4]) as tr:
        assert tr.hosts == [] and not tr.procs
    assert tr.result is None
    assumed = Traffic(_FakeEmu("star:hosts=2,bw=none"), TrafficSpec("uniform", 0.1, hosts="all"),
                      members=[])
    assert assumed.link_mbit == 1000.0 and assumed.link_assumed


def test_flows_are_the_pairs_the_generators_are_configured_to_send_between() -> None:
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2")  # h0 h1 | h2 h3
    members = ["h0", "h1"]
    # "others": h2 and h3 send to each other, all of their messages
    assert flows(TrafficSpec("uniform", 0.2), topo, members) == [
        ("h2", "h3", 1.0), ("h3", "h2", 1.0)]
    every = flows(TrafficSpec("uniform", 0.2, hosts="all"), topo, members)
    assert len(every) == 12 and ("h0", "h3", pytest.approx(1 / 3)) in every
    # local: each to its nearest other generator; bulk: each to the next one, a ring
    assert sorted(flows(TrafficSpec("local", 0.2, hosts="all"), topo, members)) == [
        ("h0", "h1", 1.0), ("h1", "h0", 1.0), ("h2", "h3", 1.0), ("h3", "h2", 1.0)]
    assert flows(TrafficSpec("bulk-tcp", 0.5, hosts=["h0", "h2", "h3"]), topo, []) == [
        ("h0", "h2", 1.0), ("h2", "h3", 1.0), ("h3", "h0", 1.0)]
    hot = dict(((a, b), s) for a, b, s in flows(
        TrafficSpec("hotspot", 0.2, hot="h1", hot_fraction=0.5, hosts="all"), topo, []))
    assert hot[("h0", "h1")] == pytest.approx(0.5 + 0.5 / 3)  # the hot host's extra share
    assert flows(TrafficSpec("uniform", 0.0, hosts="all"), topo, []) == []  # none sent
    with pytest.raises(ValueError, match="needs at least 2"):
        flows(TrafficSpec("uniform", 0.1), topo, ["h0", "h1", "h2"])
