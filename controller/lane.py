"""Each switch's range lane in strict contiguous mode (pure: which flow entries a
(group, source) key gets on one switch).

Coll2003's Elite switches send a hardware multicast through the whole subtree spanning its
range, one at a time: two range multicasts whose subtrees share a switch are serialized.
An OVS switch replicates each multicast to its own output ports, every port serializing
its own frames, so two range multicasts through one switch go side by side at full rate
each. In strict contiguous mode ("contiguous-strict") every switch therefore has a range
lane: a one-way path out of the bridge and back into it, shaped by one HTB class at the
switch's link rate (made by the emulation, testbed.emulation.lane, which says why it is two
veth pairs and a tc mirror rather than one looped pair). A range-multicast frame that
enters the switch from any other port is sent into the lane; what comes out of the lane is
replicated by the key's group as in plain contiguous mode:

    port --> LANE_IN ==[one HTB class, the link rate]==> LANE_OUT --> group: the range's ports

So every range multicast crossing a switch shares one serialization at the link rate. Two
entries per key: from LANE_OUT (matched first, PRIO_LANE) to the group, from anywhere else
(PRIO_MCAST) into the lane. Unicast, IGMP-mode multicast and link-local groups never enter
a lane.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from .ofutil import PRIO_MCAST

LANE_PORTS = (65002, 65003)  # OpenFlow port numbers of the lane's two ends: in, out
LANE_IN, LANE_OUT = LANE_PORTS
PRIO_LANE = PRIO_MCAST + 1  # the lane's exit, above the entry into it
LINK_LOCAL = ipaddress.IPv4Network("224.0.0.0/24")

GROUP, INTO_LANE, DROP = "group", "lane", "drop"


@dataclass(frozen=True)
class Entry:
    """One flow entry of a key: its priority, the in_port it also matches (None: any) and
    what it does (GROUP: the key's group, INTO_LANE: output to LANE_IN, DROP)."""

    priority: int
    in_port: int | None
    action: str


def laned(strict: bool, group: str) -> bool:
    """Whether `group`'s frames go through the lanes: in strict mode, every group but the
    link-local ones (which reach every host as control traffic, not as a range multicast).
    Range addresses and the IGMP groups contiguous mode serves as one gap-free range alike:
    both are one hardware multicast to a node range."""
    return strict and ipaddress.IPv4Address(group) not in LINK_LOCAL


def entries(strict: bool, group: str, ports: frozenset[int]) -> tuple[Entry, ...]:
    """The flow entries a key gets on one switch whose tree ports are `ports` (empty: a drop
    entry at the source's switch)."""
    if not ports:
        return (Entry(PRIO_MCAST, None, DROP),)
    if laned(strict, group):
        # the exit first: a frame must never leave the lane before its exit entry exists
        return (Entry(PRIO_LANE, LANE_OUT, GROUP), Entry(PRIO_MCAST, None, INTO_LANE))
    return (Entry(PRIO_MCAST, None, GROUP),)


def stale(strict: bool, group: str, ports: frozenset[int]) -> tuple[Entry, ...]:
    """Entries a key may still have on a switch from an earlier tree that `entries(...,
    ports)` does not overwrite (same priority and match overwrite): the lane's exit when the
    key now drops there."""
    if laned(strict, group) and not ports:
        return (Entry(PRIO_LANE, LANE_OUT, GROUP),)
    return ()


def all_entries(strict: bool, group: str) -> tuple[Entry, ...]:
    """Every entry a key can have on a switch (to remove it there)."""
    return entries(strict, group, frozenset({0}))
