"""Group membership with IGMP timers (pure: time is passed in).

Each member is a host (one per switch port in the testbed's topologies). Timer defaults are
RFC 3376's; tests and labs shorten them with `IgmpTimers(query_interval=...)`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class IgmpTimers:
    robustness: int = 2
    query_interval: float = 125.0          # s between general queries
    query_response_interval: float = 10.0  # max response time advertised in general queries
    last_member_interval: float = 1.0      # s between group-specific queries after a leave

    @property
    def membership_interval(self) -> float:
        """How long a report keeps a member (RFC 3376 8.4: QRV * QI + QRI)."""
        return self.robustness * self.query_interval + self.query_response_interval

    @property
    def last_member_time(self) -> float:
        """How long a member that left stays, unless it reports again (LMQC * LMQI)."""
        return self.robustness * self.last_member_interval

    @property
    def startup_interval(self) -> float:
        return self.query_interval / 4


@dataclass
class Membership:
    timers: IgmpTimers = field(default_factory=IgmpTimers)
    # group -> member -> expiry time
    _groups: dict[str, dict[str, float]] = field(default_factory=dict)
    # (group, member) pairs that sent a leave and are being queried
    leaving: set[tuple[str, str]] = field(default_factory=set)

    def report(self, group: str, member: str, now: float) -> bool:
        """A membership report: True when `member` is new in `group`."""
        members = self._groups.setdefault(group, {})
        new = member not in members
        members[member] = now + self.timers.membership_interval
        self.leaving.discard((group, member))
        return new

    def leave(self, group: str, member: str, now: float, fast: bool = False) -> bool:
        """A leave: the member stays for the last-member time unless it reports again
        (`fast`: gone at once, right when one host sits behind each port). True when the
        member is removed now."""
        members = self._groups.get(group)
        if not members or member not in members:
            return False
        if fast:
            self._remove(group, member)
            return True
        members[member] = min(members[member], now + self.timers.last_member_time)
        self.leaving.add((group, member))
        return False

    def expire(self, now: float) -> list[tuple[str, str]]:
        """Remove and return the (group, member) pairs whose time is up."""
        gone = [(g, m) for g, ms in self._groups.items() for m, t in ms.items() if t <= now]
        for g, m in gone:
            self._remove(g, m)
        return gone

    def _remove(self, group: str, member: str) -> None:
        members = self._groups.get(group, {})
        members.pop(member, None)
        self.leaving.discard((group, member))
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
            ms = {mapping.get(m, m): t for m, t in self._groups[g].items()}
            ms.pop(None, None)  # type: ignore[call-overload]
            if ms:
                self._groups[g] = ms  # type: ignore[assignment]
            else:
                del self._groups[g]
        self.leaving = {(g, mapping.get(m, m)) for g, m in self.leaving
                        if mapping.get(m, m) is not None}  # type: ignore[misc]

    def members(self, group: str) -> frozenset[str]:
        return frozenset(self._groups.get(group, {}))

    def groups(self) -> list[str]:
        return sorted(self._groups)

    def snapshot(self, now: float) -> dict[str, dict[str, float]]:
        """group -> member -> seconds left, for the JSON state."""
        return {g: {m: round(t - now, 3) for m, t in sorted(ms.items())}
                for g, ms in sorted(self._groups.items())}
