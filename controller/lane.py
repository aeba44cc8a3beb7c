"""Strict contiguous mode's range lanes: one lossless serialization per egress port of a
switch, which every range-multicast copy to that port passes (pure: the group buckets a
(group, source) key gets on one switch, and the exit entries every switch gets).

Coll2003 (section 3): the Elite switches "serialize incoming multicast packets if there is
some overlap among the requested output ports, otherwise they can proceed in parallel". An
OVS port serializes its own frames too (its HTB at the link rate), but a frame queued there
stays charged to the send buffer of OVS's one packet socket, and about 100 queued full
frames make OVS drop what follows (testbed.emulation.one_way): two range multicasts
meeting at one port would lose frames instead of taking turns. In strict contiguous mode
("contiguous-strict") every switch therefore has a range lane: a one-way path out of the
bridge (OpenFlow port LANE_IN) and back into it (LANE_OUT) holding one HTB class per port
of the switch at that port's link rate, each a lossless queue of 1000 frames (made by the
emulation, testbed.emulation.lane). A key's group sends its copy for tree port p into the
lane tagged with VLAN id lane_tag(p), which picks p's class; what leaves the lane tagged so
is untagged and sent to p by the switch's exit entry for p (one per port, not per key):

    in port --> group: per tree port p, push VLAN p, output LANE_IN
                ==[class p, p's link rate]==> LANE_OUT --exit p: pop VLAN--> p

So two range multicasts share a serialization exactly at the output ports both request,
and go side by side at full rate where their ports are disjoint, at any switch: the tree
ports of a key are its requested output ports there (down to the range, and up on the
trunk towards the root switch). Frames out of the lane meet the port's own HTB at the same
rate, where they barely queue. Unicast, IGMP-mode multicast and link-local groups never
enter a lane.

What stays different from Elite (docs/controller.md, "Strict contiguous mode"):
- Elite holds a multicast as one worm: blocked at one requested port, it waits at all of
  them, so the loser of an overlap reaches none of its receivers before the winner is done.
  Here each copy waits only in its own port's queue: the loser's other ports go on at once.
- Elite's arbiter lets one multicast through an overlapping port, then the other; a port's
  queue here takes frames in arrival order, so two multicasts sharing a port interleave
  and both end about when the two would have ended one after the other.
- Elite cuts through; here a frame is stored and forwarded once more per switch (the lane
  class, then the port), and Elite's combined acknowledgement is not modelled.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from .ofutil import PRIO_MCAST

LANE_PORTS = (65002, 65003)  # OpenFlow port numbers of the lane's two ends: in, out
LANE_IN, LANE_OUT = LANE_PORTS
PRIO_LANE = PRIO_MCAST + 1  # out of the lane: dropped unless an exit takes it
PRIO_EXIT = PRIO_MCAST + 2  # out of the lane with a port's tag: to that port
MAX_TAG = 4094  # the highest VLAN id
ETH_TYPE_VLAN = 0x8100  # the tag's (802.1Q)
LINK_LOCAL = ipaddress.IPv4Network("224.0.0.0/24")


@dataclass(frozen=True)
class Bucket:
    """One copy a key's group makes: output to `port`, tagged first with VLAN id `tag`
    (None: untagged, straight to a tree port)."""

    port: int
    tag: int | None = None


@dataclass(frozen=True)
class Exit:
    """A switch's exit entry for one port: what leaves the lane (in_port LANE_OUT) tagged
    `tag` is untagged and sent to `port` (priority PRIO_EXIT)."""

    tag: int
    port: int


def laned(strict: bool, group: str) -> bool:
    """Whether `group`'s frames go through the lanes: in strict mode, every group but the
    link-local ones (which reach every host as control traffic, not as a range multicast).
    Range addresses and the IGMP groups contiguous mode serves as one gap-free range alike:
    both are one hardware multicast to a node range."""
    return strict and ipaddress.IPv4Address(group) not in LINK_LOCAL


def lane_tag(port: int) -> int:
    """The VLAN id that sends a copy into `port`'s class of the lane (and out to `port`):
    the port number itself, so the emulation's classifier is the identity (class 1:tag)."""
    if not 1 <= port <= MAX_TAG:
        raise ValueError(f"port {port}: a range lane tags copies with their port number, "
                         f"a VLAN id in 1..{MAX_TAG}")
    return port


def buckets(strict: bool, group: str, ports: frozenset[int]) -> tuple[Bucket, ...]:
    """The buckets of a key's group on one switch whose tree ports are `ports`: one per
    port, into the lane tagged with the port when the key is laned."""
    if laned(strict, group):
        return tuple(Bucket(LANE_IN, lane_tag(p)) for p in sorted(ports))
    return tuple(Bucket(p) for p in sorted(ports))


def serializations(strict: bool, group: str, ports: frozenset[int]) -> frozenset[int]:
    """The lane classes (by tag) a key's frames queue in on one switch: the ones two keys
    share are where they are serialized; none outside strict mode (each port's own queue
    then serializes, and loses what overflows OVS's socket)."""
    return frozenset(b.tag for b in buckets(strict, group, ports) if b.tag is not None)


def exits(ports: Iterable[int]) -> tuple[Exit, ...]:
    """A switch's exit entries, one per port it has (whether or not a tree uses it)."""
    return tuple(Exit(lane_tag(p), p) for p in sorted(ports))
