"""Range lanes: strict contiguous mode's one serialization per switch (controller.lane says
why and which frames take it).

In strict contiguous mode (ControllerConfig(mode="contiguous-strict")) every switch gets a
range lane, a one-way path out of its bridge and back (testbed.emulation.one_way, which
says why it is two veth pairs and a tc mirror), shaped at the switch's link rate and
carrying range multicasts only (the controller's flows decide what enters it and where it
goes after). The switch's own ports stay shaped as ever, so a range-multicast frame is
serialized once more per switch it crosses (one frame's store and forward)."""

from __future__ import annotations

from controller.lane import LANE_PORTS
from topologies import Topology

from . import one_way


def lane_intfs(switch: str) -> one_way.Intfs:
    """The four ends of a switch's range lane (one_way.intfs)."""
    return one_way.intfs(switch, "rl")


def shaped_intf(switch: str) -> str:
    """The lane end whose egress HTB class runs at the switch's link rate."""
    return lane_intfs(switch)[2]


def setup(topo: Topology, switch: str) -> tuple[list[list[str]], str]:
    """For one switch: the commands making and attaching its range lane, and its `tc -batch`
    (the mirror, and the shaping at the switch's link rate)."""
    return one_way.setup(switch, lane_intfs(switch), LANE_PORTS,
                         one_way.switch_rate(topo, switch))
