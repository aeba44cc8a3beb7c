"""OpenFlow 1.3 pieces the controller's parts share: priorities, cookies, message helpers."""

from __future__ import annotations

from typing import Any

PRIO_IGMP = 300
PRIO_MCAST = 200
PRIO_MCAST_MISS = 10
COOKIE_MCAST = 0x4D43 << 48  # "MC": every (group, source) flow carries it plus its key id
COOKIE_UNICAST = 0x5543 << 48  # "UC": the unicast entries
COOKIE_LANE = 0x524C << 48  # "RL": a switch's range-lane exits (controller.lane)
COOKIE_MASK = 0xFFFF << 48
PRIO_LLDP = 400
PRIO_ARP = 75  # above the destination-MAC entries: all ARP reaches the controller
LLDP_PERIOD = 1.0  # s between LLDP rounds in discovery mode
MCAST_NET = ("224.0.0.0", "240.0.0.0")


def packet_out(dp: Any, ports: list[int], data: bytes, in_port: int | None = None) -> None:
    """Send `data` out of `ports` of switch `dp` (from the controller unless `in_port`)."""
    parser, ofp = dp.ofproto_parser, dp.ofproto
    dp.send_msg(parser.OFPPacketOut(
        dp, buffer_id=ofp.OFP_NO_BUFFER,
        in_port=ofp.OFPP_CONTROLLER if in_port is None else in_port, data=data,
        actions=[parser.OFPActionOutput(p) for p in ports]))
