"""testbed.emulation.lane: strict contiguous mode gives every switch a shaped range lane (a
veth loop) recorded for teardown; across servers, or without the ingress mirror, it is
refused."""

from __future__ import annotations

import pytest

from controller import lane
from controller.config import ControllerConfig
from testbed.cluster.spread import Spread
from testbed.emulation import lane as emu_lane
from testbed.emulation.environment import Capabilities
from testbed.emulation.network import Emulation
from testbed.errors import CapabilityError, UsageError
from testbed.specs.cluster import LOCAL, from_servers
from topologies import parse_spec

from .machines import caps as all_caps

STRICT = ControllerConfig(mode="contiguous-strict")


def caps(**overrides: object) -> Capabilities:
    """A fully capable machine, with the ingress mirror the range lanes are made with."""
    return all_caps(**{"ingress_shaping": True, **overrides})


# ---- the emulation's side ----------------------------------------------------------------
def test_strict_mode_gives_every_switch_a_shaped_lane_recorded_for_teardown() -> None:
    topo = parse_spec("fattree:k=4,n=2,bw=20")
    emu = Emulation(topo, caps=caps(), controller_config=STRICT)
    assert emu.lanes and not emu.standalone
    intfs = set(emu.network_on(LOCAL)[1])
    assert all(set(emu_lane.lane_intfs(sw.name)) <= intfs for sw in topo.switches)
    cmds, tc = emu_lane.setup(topo, "s1")
    assert cmds[0] == ["ip", "link", "add", "s1-rl0", "type", "veth", "peer", "name", "s1-rl1"]
    assert f"ofport_request={lane.LANE_IN}" in cmds[-1]
    assert f"ofport_request={lane.LANE_OUT}" in cmds[-1]
    assert cmds[1] == ["ip", "link", "add", "s1-rl2", "type", "veth", "peer", "name", "s1-rl3"]
    assert {"s1-rl0", "s1-rl3"} <= set(cmds[-1])
    # OVS sends into rl0; a mirror (a clone no socket owns) at rl1's ingress is queued on rl2
    assert "dev s1-rl2 " in tc and "rate 20mbit" in tc and emu_lane.shaped_intf("s1") == "s1-rl2"
    assert "dev s1-rl1 parent ffff:" in tc and "mirred egress mirror dev s1-rl2" in tc
    _, unshaped = emu_lane.setup(parse_spec("star:hosts=4,bw=none"), "s1")
    assert "htb" not in unshaped and "mirror dev s1-rl2" in unshaped
    plain = Emulation(topo, caps=caps(), controller_config=ControllerConfig(mode="contiguous"))
    assert not plain.lanes
    assert not intfs - set(plain.network_on(LOCAL)[1]) - {
        i for sw in topo.switches for i in emu_lane.lane_intfs(sw.name)}


def test_strict_mode_across_servers_is_refused() -> None:
    topo = parse_spec("star:hosts=4")
    with pytest.raises(UsageError, match="range lanes"):
        Emulation(topo, caps=caps(), controller_config=STRICT,
                  cluster=Spread(topo, from_servers("node2")))


def test_strict_mode_without_the_ingress_mirror_is_refused() -> None:
    with pytest.raises(CapabilityError, match="act_mirred"):
        Emulation(parse_spec("star:hosts=4"), caps=caps(ingress_shaping=False),
                  controller_config=STRICT)
