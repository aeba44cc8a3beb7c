"""IGMPv3 source-filter state of one group on one port, as RFC 3376 section 6 keeps it on a
multicast router (pure: time is passed in; the controller wires it in later).

State is INCLUDE (A) or EXCLUDE (X, Y): A and X are sources with a running timer (forwarded),
Y sources whose timer ran out (blocked in EXCLUDE mode). A timer is stored as the absolute
time it runs out, so "timer = 0" is a deadline at or before now. Section 6.4's tables (the
RFC's rows quoted beside the code) give the new state and actions per record:

    Router State   Report Rec'd  New Router State      Actions
    INCLUDE (A)    IS_IN (B)     INCLUDE (A+B)         (B)=GMI
    INCLUDE (A)    IS_EX (B)     EXCLUDE (A*B,B-A)     (B-A)=0, Delete (A-B), Group Timer=GMI
    EXCLUDE (X,Y)  IS_IN (A)     EXCLUDE (X+A,Y-A)     (A)=GMI
    EXCLUDE (X,Y)  IS_EX (A)     EXCLUDE (A-Y,Y*A)     (A-X-Y)=GMI, Delete (X-A),
                                                       Delete (Y-A), Group Timer=GMI
    INCLUDE (A)    ALLOW (B)     INCLUDE (A+B)         (B)=GMI
    INCLUDE (A)    BLOCK (B)     INCLUDE (A)           Send Q(G,A*B)
    INCLUDE (A)    TO_EX (B)     EXCLUDE (A*B,B-A)     (B-A)=0, Delete (A-B),
                                                       Send Q(G,A*B), Group Timer=GMI
    INCLUDE (A)    TO_IN (B)     INCLUDE (A+B)         (B)=GMI, Send Q(G,A-B)
    EXCLUDE (X,Y)  ALLOW (A)     EXCLUDE (X+A,Y-A)     (A)=GMI
    EXCLUDE (X,Y)  BLOCK (A)     EXCLUDE (X+(A-Y),Y)   (A-X-Y)=Group Timer, Send Q(G,A-Y)
    EXCLUDE (X,Y)  TO_EX (A)     EXCLUDE (A-Y,Y*A)     (A-X-Y)=Group Timer, Delete (X-A),
                                                       Delete (Y-A), Send Q(G,A-Y),
                                                       Group Timer=GMI
    EXCLUDE (X,Y)  TO_IN (A)     EXCLUDE (X+A,Y-A)     (A)=GMI, Send Q(G,X-A), Send Q(G)

Sending Q(G,S) lowers the timers of the sources in S that run longer to LMQT (section
6.6.3.2), sending Q(G) the group timer (6.6.3.1); the queries themselves are returned for the
controller to send, and the state keeps [Last Member Query Count] - 1 retransmissions of each
(`retransmissions`, called every Last Member Query Interval), with the S flag set for the
sources (or the group) whose timer a report raised above LMQT meanwhile. Timers running out
(section 6.5): in INCLUDE mode a source goes; in EXCLUDE mode, when the group timer runs out,
the state turns INCLUDE with the sources whose timers still run. A state with no source in
INCLUDE mode has no member.

Older hosts (section 7.3.2): a v1 or v2 report starts that version's Older Host Present
timer; while one runs, the port is in that compatibility mode and `translate` turns the
messages as the RFC's table says:

    Group Compatibility Mode   IGMPv3 Message Type
    IGMPv2 or IGMPv1 mode:     BLOCK (x) -> ignore;  TO_EX (x) -> TO_EX ( {} )
    IGMPv1 mode:               IGMPv2 Leave -> ignore
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .timers import IgmpTimers

INCLUDE, EXCLUDE = "include", "exclude"
RECORDS = ("is_in", "is_ex", "to_in", "to_ex", "allow", "block")  # RFC 3376 4.2.12


@dataclass(frozen=True)
class Query:
    """A query to send: group-specific (no sources) or group-and-source-specific; `suppress`
    is the S flag (Suppress Router-Side Processing, section 4.1.5)."""

    sources: frozenset[str] = frozenset()
    suppress: bool = False


def translate(record: str, sources: set[str], version: int,
              compat: int) -> tuple[str, set[str]] | None:
    """A message of IGMP `version` as a group record under compatibility mode `compat`
    (section 7.3.2); None when the mode says to ignore it. v1/v2 reports arrive as IS_EX {}
    and v2 leaves as TO_IN {} (controller.igmp)."""
    if compat < 3 and record == "block":
        return None
    if compat < 3 and record == "to_ex":
        return record, set()
    if compat == 1 and version == 2 and record == "to_in":
        return None
    return record, sources


@dataclass
class SourceFilter:
    mode: str = INCLUDE
    group_timer: float = 0.0  # EXCLUDE mode only: when it runs out
    timers: dict[str, float] = field(default_factory=dict)  # source -> when it runs out
    retransmit: dict[str, int] = field(default_factory=dict)  # source -> Q(G,S) still to send
    group_retransmit: int = 0  # Q(G) still to send
    older: dict[int, float] = field(default_factory=dict)  # 1 or 2 -> Older Host Present end

    def compat(self, now: float) -> int:
        """The group compatibility mode: the lowest version whose host is present."""
        return min((v for v, t in self.older.items() if t > now), default=3)

    def heard_older(self, version: int, now: float, timers: IgmpTimers) -> None:
        """A v1 or v2 report: that version's Older Host Present timer (8.13) restarts."""
        if version < 3:
            self.older[version] = now + timers.membership_interval

    # ---- the lists of section 6.4 --------------------------------------------------------
    def running(self, now: float) -> set[str]:
        """A in INCLUDE mode, X in EXCLUDE mode."""
        return {s for s, t in self.timers.items() if t > now}

    def stopped(self, now: float) -> set[str]:
        """Y in EXCLUDE mode: the sources the port asked not to get."""
        return {s for s, t in self.timers.items() if t <= now}

    def admits(self, source: str, now: float) -> bool:
        """Whether traffic from `source` is forwarded to this port (section 6.3)."""
        if self.mode == INCLUDE:
            return self.timers.get(source, now) > now
        return self.timers.get(source, math.inf) > now  # not stopped (one look, not a set)

    def has_members(self, now: float) -> bool:
        return self.mode == EXCLUDE or any(t > now for t in self.timers.values())

    def querying(self) -> bool:
        """Whether retransmissions of a group or group-and-source-specific query are due."""
        return self.group_retransmit > 0 or any(self.retransmit.values())

    def empty(self, now: float) -> bool:
        """Nothing left to keep: no member and no query to repeat."""
        return not self.has_members(now) and not self.querying()

    def view(self, now: float) -> tuple[str, frozenset[str], frozenset[str]]:
        """What decides forwarding: the mode and the sources forwarded and blocked."""
        stopped = self.stopped(now) if self.mode == EXCLUDE else set()
        return self.mode, frozenset(self.running(now)), frozenset(stopped)

    def deadlines(self) -> set[float]:
        """The times at which forwarding may change by itself (timers running out)."""
        return set(self.timers.values()) | ({self.group_timer} if self.mode == EXCLUDE
                                            else set())

    # ---- records ------------------------------------------------------------------------
    def apply(self, record: str, sources: set[str], now: float,
              timers: IgmpTimers) -> list[Query]:
        """Take one group record (RECORDS) with its source list; returns the queries to send.
        The state is brought up to `now` first (section 6.5)."""
        if record not in RECORDS:
            raise ValueError(f"unknown group record type {record!r} (one of {RECORDS})")
        self.expire(now)
        gmi = now + timers.membership_interval
        b = set(sources)
        queries: list[Query | None] = []  # None: nothing to ask, dropped on return
        if self.mode == INCLUDE:
            a = self.running(now)
            if record in ("is_in", "allow", "to_in"):
                self._set(b, gmi)
                if record == "to_in":
                    queries.append(self._query(a - b, now, timers))
            elif record == "block":
                queries.append(self._query(a & b, now, timers))
            else:  # is_ex, to_ex: EXCLUDE (A*B, B-A)
                self.timers = {s: t for s, t in self.timers.items() if s in b}  # Delete (A-B)
                self._set(b - a, now)  # (B-A)=0
                self.mode, self.group_timer = EXCLUDE, gmi
                if record == "to_ex":
                    queries.append(self._query(a & b, now, timers))
            return [q for q in queries if q is not None]
        x, y = self.running(now), self.stopped(now)
        if record in ("is_in", "allow", "to_in"):  # EXCLUDE (X+A, Y-A)
            self._set(b, gmi)
            if record == "to_in":
                queries += [self._query(x - b, now, timers), self._group_query(now, timers)]
        elif record == "block":  # EXCLUDE (X+(A-Y), Y)
            self._set(b - x - y, self.group_timer)
            queries.append(self._query(b - y, now, timers))
        else:  # is_ex, to_ex: EXCLUDE (A-Y, Y*A)
            self._set(b - x - y, gmi if record == "is_ex" else self.group_timer)
            self.timers = {s: t for s, t in self.timers.items() if s in b}  # Delete X-A, Y-A
            if record == "to_ex":
                queries.append(self._query(b - y, now, timers))
            self.group_timer = gmi
        return [q for q in queries if q is not None]

    def expire(self, now: float) -> None:
        """Section 6.5: timers that ran out by `now`."""
        if self.mode == EXCLUDE and self.group_timer <= now:
            self.mode, self.group_timer = INCLUDE, 0.0
        if self.mode == INCLUDE:
            self.timers = {s: t for s, t in self.timers.items() if t > now}
        self.retransmit = {s: n for s, n in self.retransmit.items() if s in self.timers}
        self.older = {v: t for v, t in self.older.items() if t > now}

    def retransmissions(self, now: float, timers: IgmpTimers) -> list[Query]:
        """The retransmissions due now (one round, sections 6.6.3.1 and 6.6.3.2): Q(G) with
        the S flag set when the group timer is above LMQT; Q(G,S) split in two, the sources
        whose timers are above LMQT with the S flag, the others without."""
        self.expire(now)
        lmqt = now + timers.last_member_time
        out: list[Query] = []
        if self.group_retransmit > 0:
            self.group_retransmit -= 1
            if self.mode == EXCLUDE:
                out.append(Query(suppress=self.group_timer > lmqt))
        due = {s for s, n in self.retransmit.items() if n > 0}
        self.retransmit = {s: n - 1 for s, n in self.retransmit.items() if n > 1}
        for flag in (True, False):
            part = frozenset(s for s in due if (self.timers[s] > lmqt) == flag)
            if part:
                out.append(Query(part, suppress=flag))
        return out

    def lower(self, query: Query, deadline: float) -> None:
        """What a query asks about runs out by `deadline` at the latest: the listed sources'
        timers, or for Q(G) the group timer of an EXCLUDE state (sections 6.6.1, 6.6.3)."""
        for s in query.sources:
            if s in self.timers:
                self.timers[s] = min(self.timers[s], deadline)
        if not query.sources and self.mode == EXCLUDE:
            self.group_timer = min(self.group_timer, deadline)

    def run_out(self, queries: list[Query], now: float) -> None:
        """Fast leave: what the queries ask about is gone now, and nobody is asked."""
        for q in queries:
            self.lower(q, now)
        self.retransmit, self.group_retransmit = {}, 0
        self.expire(now)

    def describe(self, now: float) -> dict[str, Any]:
        """The state as /groups shows it: mode, compatibility mode, timers left (s),
        forwarded and blocked sources, whether queries are being retransmitted."""
        left = [t - now for t in self.timers.values() if t > now]
        expires = self.group_timer - now if self.mode == EXCLUDE else max(left, default=0.0)
        return {"mode": self.mode, "compat": f"v{self.compat(now)}",
                "expires_in_s": round(max(expires, 0.0), 3),
                "sources": {s: round(t - now, 3) for s, t in sorted(self.timers.items())
                            if t > now},
                "blocked": sorted(self.stopped(now)) if self.mode == EXCLUDE else [],
                "leaving": self.querying()}

    # ---- helpers --------------------------------------------------------------------------
    def _set(self, sources: set[str], deadline: float) -> None:
        for s in sources:
            self.timers[s] = deadline

    def _query(self, sources: set[str], now: float, timers: IgmpTimers) -> Query | None:
        """Q(G,S): the sources' timers that run longer are lowered to LMQT (6.6.3.2)."""
        if not sources:
            return None
        query = Query(frozenset(sources))
        self.lower(query, now + timers.last_member_time)
        for s in sources:
            self.retransmit[s] = timers.last_member_count - 1
        return query

    def _group_query(self, now: float, timers: IgmpTimers) -> Query:
        """Q(G): the group timer is lowered to LMQT (6.6.3.1)."""
        query = Query()
        self.lower(query, now + timers.last_member_time)
        self.group_retransmit = timers.last_member_count - 1
        return query
