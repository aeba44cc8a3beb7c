"""Who queries, and where the routers are (pure: time is passed in).

Querier election (RFC 3376 section 6.6.2): every router starts as querier; one that hears a
query from a lower IP address stops querying and starts the Other Querier Present timer,
and becomes querier again when it runs out. A non-querier adopts the querier's QRV and QQI
(sections 4.1.6 and 4.1.7), so memberships time out as the querier expects: a QRV within
1..7 (a 0 keeps ours), a QQI within our query response interval and our own query interval
(a 0 keeps ours). The RFC lets QQIC reach 31744 s; adopted whole, one query from any host
would keep the controller quiet for 2 x 31744 s, nearly 18 hours.

Router ports (RFC 4541 section 2.1.1): a host port where a query was heard has a multicast
router behind it; reports and leaves go to router ports only (never to other hosts, whose
v1/v2 report suppression would otherwise silence them), and multicast data goes there too
(section 2.1.2). A router port ages out after the Other Querier Present interval.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field, replace
from typing import Any

from .timers import IgmpTimers


@dataclass
class Querier:
    address: str  # the controller's own querier address
    configured: IgmpTimers
    other: str = ""  # the querier heard, while it is present
    other_until: float = 0.0
    adopted: IgmpTimers | None = None  # its QRV and QQI, while it is present
    routers: dict[str, float] = field(default_factory=dict)  # host -> when its port ages out

    @property
    def timers(self) -> IgmpTimers:
        """The timers in force: ours, or those adopted from the elected querier."""
        return self.adopted or self.configured

    def heard_query(self, host: str, src_ip: str, qrv: int, qqi_s: float, now: float) -> bool:
        """A query from `src_ip` behind `host`'s port: `host`'s is a router port now. Returns
        whether this controller just stopped being querier."""
        was = self.is_querier(now)
        best = self.address if was else self.other
        if src_ip != self.address and _ip(src_ip) <= _ip(best):  # it wins, or is the winner
            self.other = src_ip
            self.adopted = adopted(self.configured, qrv, qqi_s)
            self.other_until = now + self.timers.other_querier_present
        self.routers[host] = now + self.timers.other_querier_present
        return was and not self.is_querier(now)

    def is_querier(self, now: float) -> bool:
        if self.other and self.other_until <= now:
            self.other, self.adopted = "", None
        return not self.other

    def router_hosts(self, now: float) -> frozenset[str]:
        """The hosts whose ports have a multicast router behind them."""
        self.routers = {h: t for h, t in self.routers.items() if t > now}
        return frozenset(self.routers)

    def state(self, now: float) -> dict[str, Any]:
        querier = self.is_querier(now)
        return {"role": "querier" if querier else "non-querier",
                "address": self.address if querier else self.other,
                "other_present_s": 0.0 if querier else round(self.other_until - now, 3),
                "router_ports": {h: round(t - now, 3)
                                 for h, t in sorted(self.routers.items()) if t > now}}


def _ip(addr: str) -> ipaddress.IPv4Address:
    return ipaddress.IPv4Address(addr)


def adopted(ours: IgmpTimers, qrv: int, qqi_s: float) -> IgmpTimers:
    """Our timers with another querier's QRV and QQI, each kept within its range (see the
    module's docstring); 0 keeps ours."""
    robustness = min(max(qrv, 1), 7) if qrv else ours.robustness
    qi = min(max(qqi_s, ours.query_response_interval), ours.query_interval) if qqi_s \
        else ours.query_interval
    return replace(ours, robustness=robustness, query_interval=qi)
