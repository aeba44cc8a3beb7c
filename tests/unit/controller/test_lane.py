"""controller.lane, strict contiguous mode's range lanes: the option's settings, the lane
rule (each copy of a range multicast queues in its output port's class, so two share a
serialization exactly where their ports overlap; none outside strict mode or for link-local
groups), and the OpenFlow messages the app sends: a key's tagged buckets, a switch's exits."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from controller import lane
from controller.config import ControllerConfig
from controller.membership import Membership
from controller.multicast import MulticastPolicy
from controller.ofutil import COOKIE_LANE, COOKIE_MASK, PRIO_MCAST
from testbed.emulation.hub import MEDIUM_PORTS
from topologies import parse_spec

STRICT = ControllerConfig(mode="contiguous-strict")
RANGE = "239.255.4.7"


def test_the_lane_ports_are_not_the_hubs() -> None:
    assert not set(lane.LANE_PORTS) & set(MEDIUM_PORTS)
    assert lane.PRIO_EXIT > lane.PRIO_LANE > PRIO_MCAST


def test_strict_is_a_contiguous_mode() -> None:
    assert STRICT.contiguous and STRICT.strict
    plain = ControllerConfig(mode="contiguous")
    assert plain.contiguous and not plain.strict
    assert not ControllerConfig().contiguous and not ControllerConfig().strict
    assert ControllerConfig.from_json(STRICT.to_json()) == STRICT
    import argparse

    from controller.__main__ import add_arguments, config_from

    ap = argparse.ArgumentParser()
    add_arguments(ap)
    assert config_from(ap.parse_args(STRICT.to_args())) == STRICT


def test_strict_mode_decides_as_contiguous_mode() -> None:
    topo = parse_spec("fattree:k=4,n=2")
    got = {m: MulticastPolicy(topo, ControllerConfig(mode=m), Membership()).decide(
        RANGE, "h0", 1.0) for m in ("contiguous", "contiguous-strict")}
    assert got["contiguous"] == got["contiguous-strict"]
    assert got["contiguous"].members == ("h4", "h5", "h6", "h7")


def _through(strict: bool, group: str, ports: frozenset[int], exits: tuple[lane.Exit, ...]
             ) -> list[tuple[int | None, int]]:
    """Where a key's copies on one switch leave it: (the lane class each queued in, None
    for none; the port it goes out of), following the lane's exits."""
    out_of = {e.tag: e.port for e in exits}
    got = []
    for b in lane.buckets(strict, group, ports):
        if b.port == lane.LANE_IN:
            assert b.tag is not None
            got.append((b.tag, out_of[b.tag]))
        else:
            got.append((None, b.port))
    return sorted(got, key=str)


SWITCH_PORTS = range(1, 9)  # a leaf of the fat tree k=4,n=2: hosts on 1-4, spines on 5-8


@pytest.mark.parametrize("ports", [frozenset({1}), frozenset({1, 3}), frozenset({2, 3, 5})])
def test_in_strict_mode_each_copy_queues_in_its_ports_class_and_leaves_by_that_port(
        ports: frozenset[int]) -> None:
    exits = lane.exits(SWITCH_PORTS)
    assert _through(True, RANGE, ports, exits) == sorted((p, p) for p in ports)
    assert lane.serializations(True, RANGE, ports) == ports
    # gap-free IGMP groups contiguous mode serves are range multicasts too
    assert lane.serializations(True, "239.1.1.1", ports) == ports
    assert lane.exits(SWITCH_PORTS) == tuple(lane.Exit(p, p) for p in SWITCH_PORTS)


@pytest.mark.parametrize(("a", "b", "shared"), [
    ({1}, {3}, set()),  # disjoint receivers on one switch: side by side
    ({1, 2}, {3, 4}, set()),
    ({1, 2}, {2}, {2}),  # overlapping: one after the other on port 2 only
    ({2, 3, 5}, {3, 5, 6}, {3, 5}),  # and on a shared up port
    ({1, 2, 3}, {1, 2, 3}, {1, 2, 3}),
])
def test_two_range_multicasts_share_a_serialization_exactly_where_their_ports_overlap(
        a: set[int], b: set[int], shared: set[int]) -> None:
    sa = lane.serializations(True, RANGE, frozenset(a))
    sb = lane.serializations(True, "239.255.9.9", frozenset(b))
    assert sa & sb == shared
    # the rest of each goes side by side with the other: each in a class of its own
    assert (sa - sb, sb - sa) == (a - b, b - a)


@pytest.mark.parametrize(("strict", "group"), [(False, RANGE), (False, "239.1.1.1"),
                                               (True, "224.0.0.251")])
def test_outside_strict_mode_and_for_link_local_groups_no_lane(strict: bool,
                                                              group: str) -> None:
    assert not lane.laned(strict, group)
    assert lane.buckets(strict, group, frozenset({3, 2})) == (lane.Bucket(2), lane.Bucket(3))
    assert lane.serializations(strict, group, frozenset({2, 3})) == frozenset()


@pytest.mark.parametrize("port", [0, 4095, -1])
def test_a_port_no_vlan_id_can_name_has_no_class(port: int) -> None:
    with pytest.raises(ValueError, match="VLAN id in 1..4094"):
        lane.lane_tag(port)
    with pytest.raises(ValueError):
        lane.exits([1, port])


# ---- the OpenFlow messages the app sends -------------------------------------------------
class FakeDatapath:
    """A switch that records what the controller sends it."""

    def __init__(self) -> None:
        from os_ken.ofproto import ofproto_v1_3, ofproto_v1_3_parser

        self.id = 1
        self.ofproto, self.ofproto_parser = ofproto_v1_3, ofproto_v1_3_parser
        self.sent: list[Any] = []

    def send_msg(self, msg: Any) -> None:
        self.sent.append(msg)


def _app(config: ControllerConfig) -> Any:
    from controller.app import McastlabController

    app = McastlabController.__new__(McastlabController)  # no os-ken app start-up
    app.config = config
    app.ip_of = {"h0": "10.0.0.1"}
    app.group_ids, app._next_gid, app._matches = {}, Counter(), {}
    app.key_ids, app._key_seq = {}, itertools.count(1)
    return app


def _flows(dp: FakeDatapath) -> list[tuple[int, int, int | None, int | None, list[str]]]:
    """(command, priority, in_port, vlan_vid, actions) of every flow mod sent."""
    out = []
    for m in dp.sent:
        if type(m).__name__ != "OFPFlowMod":
            continue
        acts = [a for i in m.instructions for a in i.actions]
        out.append((m.command, m.priority, m.match.get("in_port"), m.match.get("vlan_vid"),
                    [_action(a) for a in acts]))
    return out


def _action(a: Any) -> str:
    kind = type(a).__name__
    if kind == "OFPActionOutput":
        return f"output:{a.port}"
    if kind == "OFPActionGroup":
        return "group"
    if kind == "OFPActionPushVlan":
        return f"push_vlan:{a.ethertype:#x}"
    if kind == "OFPActionSetField":
        return f"set_vlan_vid:{a.value:#x}"
    return {"OFPActionPopVlan": "pop_vlan"}[kind]


def _buckets(dp: FakeDatapath) -> list[tuple[int, list[list[str]]]]:
    """(command, each bucket's actions) of every group mod sent."""
    return [(m.command, [[_action(a) for a in b.actions] for b in m.buckets])
            for m in dp.sent if type(m).__name__ == "OFPGroupMod"]


def test_the_app_sends_tagged_copies_into_the_lane_and_removes_them() -> None:
    app, dp = _app(STRICT), FakeDatapath()
    ofp = dp.ofproto
    key = (RANGE, "h0")
    app._install_on(dp, key, frozenset({3, 2}))
    assert _buckets(dp) == [(ofp.OFPGC_ADD, [
        ["push_vlan:0x8100", f"set_vlan_vid:{0x1000 | p:#x}", f"output:{lane.LANE_IN}"]
        for p in (2, 3)])]
    assert _flows(dp) == [(ofp.OFPFC_ADD, PRIO_MCAST, None, None, ["group"])]
    dp.sent.clear()
    app._install_on(dp, key, frozenset())  # refused (a failed node): drop
    assert _flows(dp) == [(ofp.OFPFC_ADD, PRIO_MCAST, None, None, [])]
    assert _buckets(dp) == [(ofp.OFPGC_DELETE, [])]
    dp.sent.clear()
    app._install_on(dp, key, frozenset({4}))
    app._uninstall_on(dp, key)
    assert _flows(dp)[-1] == (ofp.OFPFC_DELETE_STRICT, PRIO_MCAST, None, None, [])
    assert _buckets(dp)[-1] == (ofp.OFPGC_DELETE, [])


def test_the_app_gives_a_strict_switch_an_exit_per_port() -> None:
    app, dp = _app(STRICT), FakeDatapath()
    ofp = dp.ofproto
    app.topo = parse_spec("star:hosts=3")
    app.name_of = {1: "s1"}
    assert app._program_lane(dp) == 4
    flows = _flows(dp)
    first = dp.sent[0]  # the older exits go first
    assert (first.command, first.cookie, first.cookie_mask) == (
        ofp.OFPFC_DELETE, COOKIE_LANE, COOKIE_MASK)
    assert flows[1:] == [
        (ofp.OFPFC_ADD, lane.PRIO_LANE, lane.LANE_OUT, None, []),
        *((ofp.OFPFC_ADD, lane.PRIO_EXIT, lane.LANE_OUT, 0x1000 | p, ["pop_vlan", f"output:{p}"])
          for p in (1, 2, 3))]
    plain, dp2 = _app(ControllerConfig(mode="contiguous")), FakeDatapath()
    plain.topo, plain.name_of = app.topo, app.name_of
    assert plain._program_lane(dp2) == 0 and dp2.sent == []


def test_without_strict_mode_the_app_sends_the_group_to_the_ports() -> None:
    app, dp = _app(ControllerConfig(mode="contiguous")), FakeDatapath()
    app._install_on(dp, (RANGE, "h0"), frozenset({2, 3}))
    assert _flows(dp) == [(dp.ofproto.OFPFC_ADD, PRIO_MCAST, None, None, ["group"])]
    assert _buckets(dp) == [(dp.ofproto.OFPGC_ADD, [["output:2"], ["output:3"]])]
