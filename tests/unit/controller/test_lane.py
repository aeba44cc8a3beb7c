"""controller.lane, strict contiguous mode's range lane: the option's settings, which keys
enter the lane and leave it to the group (none outside strict mode or for link-local groups,
a refused key dropped), and the OpenFlow entries the app sends for a key and removes with
it."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import pytest

from controller import lane
from controller.config import ControllerConfig
from controller.membership import Membership
from controller.multicast import MulticastPolicy
from controller.ofutil import PRIO_MCAST
from testbed.emulation.hub import MEDIUM_PORTS
from topologies import parse_spec

STRICT = ControllerConfig(mode="contiguous-strict")
RANGE = "239.255.4.7"


def test_the_lane_ports_are_not_the_hubs() -> None:
    assert not set(lane.LANE_PORTS) & set(MEDIUM_PORTS)
    assert lane.PRIO_LANE > PRIO_MCAST


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


def test_in_strict_mode_a_key_enters_the_lane_and_its_exit_replicates() -> None:
    ports = frozenset({1, 3})
    into, = [e for e in lane.entries(True, RANGE, ports) if e.action == lane.INTO_LANE]
    out, = [e for e in lane.entries(True, RANGE, ports) if e.action == lane.GROUP]
    assert (into.priority, into.in_port) == (PRIO_MCAST, None)  # from every other port
    assert (out.priority, out.in_port) == (lane.PRIO_LANE, lane.LANE_OUT)
    assert lane.entries(True, RANGE, ports)[0] == out  # the exit exists first
    # gap-free IGMP groups contiguous mode serves are range multicasts too
    assert lane.laned(True, "239.1.1.1")


@pytest.mark.parametrize(("strict", "group"), [(False, RANGE), (False, "239.1.1.1"),
                                               (True, "224.0.0.251")])
def test_outside_strict_mode_and_for_link_local_groups_no_lane(strict: bool,
                                                              group: str) -> None:
    assert not lane.laned(strict, group)
    assert lane.entries(strict, group, frozenset({2})) == (
        lane.Entry(PRIO_MCAST, None, lane.GROUP),)
    assert lane.stale(strict, group, frozenset()) == ()


def test_a_refused_key_drops_and_loses_its_lane_exit() -> None:
    assert lane.entries(True, RANGE, frozenset()) == (lane.Entry(PRIO_MCAST, None, lane.DROP),)
    assert lane.stale(True, RANGE, frozenset()) == (
        lane.Entry(lane.PRIO_LANE, lane.LANE_OUT, lane.GROUP),)
    assert lane.stale(True, RANGE, frozenset({1})) == ()
    assert set(lane.all_entries(True, RANGE)) == {
        lane.Entry(PRIO_MCAST, None, lane.INTO_LANE),
        lane.Entry(lane.PRIO_LANE, lane.LANE_OUT, lane.GROUP)}


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


def _flows(dp: FakeDatapath) -> list[tuple[int, int, int | None, str]]:
    """(command, priority, in_port, action) of every flow mod sent."""
    out = []
    for m in dp.sent:
        if type(m).__name__ != "OFPFlowMod":
            continue
        acts = [a for i in m.instructions for a in i.actions]
        what = ("group" if acts and type(acts[0]).__name__ == "OFPActionGroup" else
                f"output:{acts[0].port}" if acts else "drop")
        out.append((m.command, m.priority, m.match.get("in_port"), what))
    return out


def test_the_app_sends_the_lanes_entries_and_removes_them() -> None:
    app, dp = _app(STRICT), FakeDatapath()
    ofp = dp.ofproto
    key = (RANGE, "h0")
    app._install_on(dp, key, frozenset({2, 3}))
    assert _flows(dp) == [(ofp.OFPFC_ADD, lane.PRIO_LANE, lane.LANE_OUT, "group"),
                          (ofp.OFPFC_ADD, PRIO_MCAST, None, f"output:{lane.LANE_IN}")]
    dp.sent.clear()
    app._install_on(dp, key, frozenset())  # refused (a failed node): drop, no exit left
    assert _flows(dp) == [(ofp.OFPFC_DELETE_STRICT, lane.PRIO_LANE, lane.LANE_OUT, "drop"),
                          (ofp.OFPFC_ADD, PRIO_MCAST, None, "drop")]
    dp.sent.clear()
    app._uninstall_on(dp, key)
    assert sorted(_flows(dp), key=str) == sorted(
        [(ofp.OFPFC_DELETE_STRICT, lane.PRIO_LANE, lane.LANE_OUT, "drop"),
         (ofp.OFPFC_DELETE_STRICT, PRIO_MCAST, None, "drop")], key=str)


def test_without_strict_mode_the_app_sends_the_group_entry_alone() -> None:
    app, dp = _app(ControllerConfig(mode="contiguous")), FakeDatapath()
    app._install_on(dp, (RANGE, "h0"), frozenset({2, 3}))
    assert _flows(dp) == [(dp.ofproto.OFPFC_ADD, PRIO_MCAST, None, "group")]
