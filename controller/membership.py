"""Group membership with IGMP timers (pure: time is passed in): per group and member, the
member's IGMPv3 source-filter state (controller.source_filter), fed with group records.

Each member is a host (one per switch port in the testbed's topologies), so the per-port
state of RFC 3376 section 6 is kept per host. v1 and v2 messages arrive as the records
section 7.3.2 maps them to (a report is IS_EX {}, a leave TO_IN {}). Groups in the
source-specific range 232/8 take no EXCLUDE-mode record and no v1/v2 report (RFC 4604
section 2.2.1). Timer defaults are RFC 3376's; tests and labs shorten them with
`IgmpTimers(query_interval=...)`.
"""

from __future__ import annotations

import heapq
import ipaddress
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from .source_filter import Query, SourceFilter, translate
from .timers import IgmpTimers

SSM_RANGE = ipaddress.IPv4Network("232.0.0.0/8")
# What one port (member) may make the controller hold: hostile hosts must not grow its
# state without bound (1000 groups a host is what the groups benchmark asks of it)
MAX_GROUPS, MAX_SOURCES = 4096, 1024


@dataclass(frozen=True)
class Outcome:
    """What one record did: the queries to send to the member's port, whether forwarding
    may have changed, or why it was ignored."""

    queries: tuple[Query, ...] = ()
    changed: bool = False
    ignored: str = ""


def is_ssm(group: str) -> bool:
    return ipaddress.IPv4Address(group) in SSM_RANGE


@dataclass
class Membership:
    timers: IgmpTimers = field(default_factory=IgmpTimers)
    max_groups: int = MAX_GROUPS    # groups a member may be in; a record for one more: ignored
    max_sources: int = MAX_SOURCES  # sources a member's state of a group may hold
    _groups: dict[str, dict[str, SourceFilter]] = field(default_factory=dict)
    _deadlines: list[tuple[float, str, str]] = field(default_factory=list)  # a heap
    # member -> how many groups it holds a state in, kept with _groups: the cap's check on
    # every record costs the same at any number of groups
    _held: dict[str, int] = field(default_factory=dict)

    # ---- what hosts say -----------------------------------------------------------------------
    def record(self, group: str, member: str, record: str, sources: frozenset[str] | set[str],
               now: float, version: int = 3, fast: bool = False) -> Outcome:
        """One group record from `member` (IGMP `version` 1 and 2 as section 7.3.2 maps
        them). `fast`: the sources (or the group) a query would ask about go at once, right
        when one host sits behind each port."""
        if is_ssm(group) and (version < 3 or record in ("is_ex", "to_ex")):
            return Outcome(ignored="ssm_exclude")
        known = self._groups.get(group, {}).get(member)
        if known is None and self._held.get(member, 0) >= self.max_groups:
            return Outcome(ignored="groups_cap")
        have = known.timers if known else {}  # the union's size: the record's sources looked up
        if len(have) + sum(s not in have for s in set(sources)) > self.max_sources:
            return Outcome(ignored="sources_cap")
        members = self._groups.setdefault(group, {})
        state = known or SourceFilter()
        queued = state.deadlines()  # each has its entry in _deadlines already (_settle)
        state.expire(now)
        plain = translate(record, set(sources), version, state.compat(now))
        if plain is None:
            if not members:
                del self._groups[group]
            return Outcome(ignored="older_version_mode")
        before = state.view(now)
        queries = state.apply(*plain, now, self.timers)
        state.heard_older(version, now, self.timers)
        if fast and queries:
            state.run_out(queries, now)
            queries = []
        if known is None:
            self._held[member] = self._held.get(member, 0) + 1
        members[member] = state
        self._settle(group, member, now, queued)
        return Outcome(tuple(queries), changed=state.view(now) != before)

    def report(self, group: str, member: str, now: float, version: int = 2) -> bool:
        """A v1/v2 membership report (IS_EX {}): True when `member` is new in `group`."""
        new = member not in self.members(group, now)
        self.record(group, member, "is_ex", set(), now, version)
        return new and member in self.members(group, now)

    def leave(self, group: str, member: str, now: float, fast: bool = False) -> bool:
        """A v2 leave (TO_IN {}): the member stays for the last-member time unless it reports
        again. True when the member is gone now."""
        if member not in self.members(group, now):
            return False
        self.record(group, member, "to_in", set(), now, 2, fast=fast)
        return member not in self.members(group, now)

    def heard_query(self, group: str, sources: tuple[str, ...], now: float) -> None:
        """Another querier's Q(G) or Q(G,S) with the S flag clear (section 6.6.1): the
        group's timers (or the listed sources' timers) on every port go down to LMQT."""
        query = Query(frozenset(sources))
        for member, state in list(self._groups.get(group, {}).items()):
            queued = state.deadlines()
            state.expire(now)
            state.lower(query, now + self.timers.last_member_time)
            self._settle(group, member, now, queued)

    # ---- timers -------------------------------------------------------------------------------
    def _settle(self, group: str, member: str, now: float,
                queued: set[float] | frozenset[float] = frozenset()) -> None:
        """Drop a state with nothing left; schedule the times its forwarding may change,
        those not `queued` before: a record that sets one timer adds one entry, not one per
        source (a port refreshing one of 1024 sources added 1024 entries a record, which
        stayed for the membership interval)."""
        state = self._groups[group][member]
        if state.empty(now):
            self._remove(group, member)
            return
        for t in state.deadlines() - queued:
            if t > now:
                heapq.heappush(self._deadlines, (t, group, member))

    def expire(self, now: float) -> list[tuple[str, str]]:
        """Run out the timers due by `now`; returns the (group, member) pairs whose
        forwarding changed (section 6.5)."""
        changed: set[tuple[str, str]] = set()
        while self._deadlines and self._deadlines[0][0] <= now:
            t, g, m = heapq.heappop(self._deadlines)
            state = self._groups.get(g, {}).get(m)
            if state is None or t not in state.deadlines():
                continue  # a timer since restarted or deleted
            state.expire(now)
            changed.add((g, m))
            if state.empty(now):
                self._remove(g, m)
        return sorted(changed)

    def retransmissions(self, group: str, member: str, now: float) -> list[Query]:
        """The query retransmissions due for this member's port (one round)."""
        state = self._groups.get(group, {}).get(member)
        if state is None:
            return []
        queries = state.retransmissions(now, self.timers)
        if state.empty(now):
            self._remove(group, member)
        return queries

    def querying(self, group: str, member: str) -> bool:
        state = self._groups.get(group, {}).get(member)
        return state is not None and state.querying()

    # ---- members ------------------------------------------------------------------------------
    def _remove(self, group: str, member: str) -> None:
        members = self._groups.get(group, {})
        if members.pop(member, None) is not None:
            held = self._held.pop(member) - 1
            if held:
                self._held[member] = held
        if not members:
            self._groups.pop(group, None)

    def remove_member(self, member: str) -> list[str]:
        """Forget a member everywhere (its port went down); returns the groups it left."""
        groups = [g for g, ms in self._groups.items() if member in ms]
        for g in groups:
            self._remove(g, member)
        return groups

    def rename(self, mapping: dict[str, str | None]) -> None:
        """Members renamed (None: gone), when a discovered network renumbers its hosts."""
        for g in list(self._groups):
            ms = {new: s for m, s in self._groups[g].items()
                  if (new := mapping.get(m, m)) is not None}
            if ms:
                self._groups[g] = ms
            else:
                del self._groups[g]
        self._held = dict(Counter(m for ms in self._groups.values() for m in ms))
        self._deadlines = [(t, g, new) for t, g, m in self._deadlines
                           if (new := mapping.get(m, m)) is not None]
        heapq.heapify(self._deadlines)

    def members(self, group: str, now: float) -> frozenset[str]:
        """The members that want some source of `group`."""
        return frozenset(m for m, s in self._groups.get(group, {}).items()
                         if s.has_members(now))

    def admitting(self, group: str, source: str, now: float) -> frozenset[str]:
        """The members whose state admits traffic from `source` (an IP address) to `group`."""
        return frozenset(m for m, s in self._groups.get(group, {}).items()
                         if s.admits(source, now))

    def groups(self) -> list[str]:
        return sorted(self._groups)

    def snapshot(self, now: float) -> dict[str, dict[str, dict[str, Any]]]:
        """group -> member -> its state with seconds left, for the JSON state."""
        return {g: {m: s.describe(now) for m, s in sorted(ms.items())}
                for g, ms in sorted(self._groups.items())}

