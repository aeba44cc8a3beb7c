"""IGMP's timers and counts (RFC 3376 section 8), derived from the four values a querier
configures; the defaults are the RFC's."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class IgmpTimers:
    robustness: int = 2
    query_interval: float = 125.0          # s between general queries
    query_response_interval: float = 10.0  # max response time advertised in general queries
    last_member_interval: float = 1.0      # s between group-specific queries after a leave

    @property
    def membership_interval(self) -> float:
        """How long a report keeps a member (RFC 3376 8.4: QRV * QI + QRI); also the Older
        Host Present interval (8.13)."""
        return self.robustness * self.query_interval + self.query_response_interval

    @property
    def last_member_count(self) -> int:
        """How many group(-and-source)-specific queries are sent (8.7: the robustness)."""
        return self.robustness

    @property
    def last_member_time(self) -> float:
        """How long a member that left stays, unless it reports again (LMQC * LMQI)."""
        return self.last_member_count * self.last_member_interval

    @property
    def startup_interval(self) -> float:
        return self.query_interval / 4

    @property
    def other_querier_present(self) -> float:
        """How long another querier that was heard keeps this one quiet (8.5)."""
        return self.robustness * self.query_interval + self.query_response_interval / 2
