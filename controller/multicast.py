"""What to do with multicast from one source to one group (pure): a distribution tree, or
a refusal with its reason, or a drop because nobody joined.

IGMP mode delivers a group from a source to the hosts whose IGMPv3 source filters admit
that source (an any-source join admits every source), and to the ports with a multicast
router behind them (RFC 4541 section 2.1.2). Contiguous mode imitates hardware
multicast that only reaches one contiguous node range (Coll2003's Quadrics Elite switches):
a range address 239.255.lo.hi is delivered to nodes lo..hi without any join, and an IGMP
group is served only if its members form one gap-free range; either is refused when it
contains a failed or excluded node. Link-local groups (224.0.0.0/24, other than IGMP, which
the controller consumes) reach every host, as RFC 4541 asks of snooping switches.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from topologies import Topology

from . import mtree, ranges
from .config import ControllerConfig
from .membership import Membership

LINK_LOCAL = ipaddress.IPv4Network("224.0.0.0/24")

Tree = dict[str, frozenset[int]]


@dataclass(frozen=True)
class Decision:
    """`tree` (switch -> ports) when delivered; else `kind` says why it is dropped."""

    kind: str  # "tree" | "unregistered" | "refused"
    members: tuple[str, ...] = ()
    tree: Tree = field(default_factory=dict)
    reason: str = ""


def is_link_local(group: str) -> bool:
    return ipaddress.IPv4Address(group) in LINK_LOCAL


class MulticastPolicy:
    def __init__(self, topo: Topology, config: ControllerConfig, membership: Membership) -> None:
        self.topo = topo
        self.config = config
        self.membership = membership
        self.failed: set[int] = set()
        self.routers: frozenset[str] = frozenset()  # hosts with a multicast router behind
        self._ids = {h.name: h.node_id for h in topo.hosts}

    def host_names(self, ids: range | list[int]) -> tuple[str, ...]:
        return tuple(self.topo.hosts[i].name for i in ids)

    def decide(self, group: str, source: str, now: float) -> Decision:
        """The forwarding decision for datagrams from host `source` to `group` at time `now`:
        the members whose source filters admit the source's address."""
        if is_link_local(group):
            members = tuple(h.name for h in self.topo.hosts)
        elif self.config.contiguous:
            return self._contiguous(group, source, now)
        else:
            ip = self.topo.hosts[self._ids[source]].ip
            wanted = self.membership.admitting(group, ip, now) | self.routers
            members = tuple(sorted((m for m in wanted if self._ids[m] not in self.failed),
                                   key=self._ids.__getitem__))
            if not members:
                if self.config.unregistered == "drop":
                    return Decision("unregistered")
                members = tuple(h.name for h in self.topo.hosts
                                if h.node_id not in self.failed)
        return self._tree(source, members)

    def _contiguous(self, group: str, source: str, now: float) -> Decision:
        n = len(self.topo.hosts)
        if ranges.is_range_address(group):
            span = ranges.parse_range_group(group)
            if span is None or span[1] >= n:
                return Decision("refused", reason=f"{group} names no node range of this "
                                                  f"{n}-node network")
            ids = list(range(span[0], span[1] + 1))
        else:
            ids = sorted(self._ids[m] for m in self.membership.members(group, now))
            if not ids:
                return Decision("unregistered")
        members = self.host_names(ids)
        reason = ranges.refusal_reason(ids, self.failed)
        if reason:
            return Decision("refused", members=members, reason=reason)
        return self._tree(source, members)

    def _tree(self, source: str, members: tuple[str, ...]) -> Decision:
        receivers = tuple(m for m in members if m != source)
        tree = mtree.distribution_tree(self.topo, source, receivers) if receivers else {}
        return Decision("tree", members=members, tree=tree)
