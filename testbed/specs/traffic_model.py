"""Background traffic model (Nupairoj 1998, ch. 6), pure: no sockets, no root.

Each generator loops: think for t ~ Exp(mean t_comp), then send a message of a size drawn
uniformly from [1, 2*size-1] (mean `size`) to a destination chosen by the pattern. Load is
the offered load normalised to the link rate, so t_comp = size*8 / (load * link bit/s).
Bulk patterns stream to one fixed partner instead, paced to load x link rate.

The host program (testbed.hostprogs.traffic_gen) and the unit tests share this module, so
what the tests check is what runs inside the emulated hosts.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, fields
from typing import Any

PATTERNS = ("uniform", "hotspot", "local", "bulk-tcp", "bulk-udp")
TRANSPORTS = ("tcp", "udp")
HOST_SETS = ("others", "all", "members")
BULK = {"bulk-tcp": "tcp", "bulk-udp": "udp"}

UDP_PAYLOAD = 1400  # bulk-udp datagram payload: one unfragmented frame on a 1500 B MTU
BULK_TCP_CHUNK = 16384  # bulk-tcp write size: fine enough for pacing, coarse enough for CPU
MAX_UDP_MESSAGE = 65507  # a UDP message is one datagram, so 2*size-1 must fit in one
BEHIND_LIMIT = 4.0  # mean think times a sender may lag before it stops trying to catch up
MIN_SLACK_S = 0.02  # ...but at least this long: scheduler jitter is not back-pressure


def _is_number(value: object) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value))


@dataclass(frozen=True)
class TrafficSpec:
    """One traffic table. `hosts`: "others" (hosts outside the broadcast's communicator),
    "all", "members" (the communicator's hosts) or explicit host names; the caller resolves
    them. `size` and `transport` do not apply to the bulk patterns (they fix their own)."""

    pattern: str
    load: float
    size: int = 1024
    hot_fraction: float = 0.0
    hot: str | None = None
    transport: str = "tcp"
    hosts: str | list[str] = "others"

    def __post_init__(self) -> None:
        if self.pattern not in PATTERNS:
            raise ValueError(f"pattern: unknown {self.pattern!r} (one of {', '.join(PATTERNS)})")
        if not _is_number(self.load) or self.load < 0:
            raise ValueError(f"load: must be a number >= 0, got {self.load!r}")
        if isinstance(self.size, bool) or not isinstance(self.size, int) or self.size < 1:
            raise ValueError(f"size: must be an integer >= 1 (bytes), got {self.size!r}")
        if not _is_number(self.hot_fraction) or not 0 <= self.hot_fraction <= 1:
            raise ValueError(f"hot_fraction: must be a number in [0, 1], "
                             f"got {self.hot_fraction!r}")
        if self.hot_fraction > 0 and self.pattern != "hotspot":
            raise ValueError(f"hot_fraction: only applies to pattern 'hotspot', "
                             f"not {self.pattern!r}")
        if self.hot is not None:
            if not isinstance(self.hot, str) or not self.hot:
                raise ValueError(f"hot: must be a host name, got {self.hot!r}")
            if self.pattern != "hotspot":
                raise ValueError(f"hot: only applies to pattern 'hotspot', not {self.pattern!r}")
        if self.transport not in TRANSPORTS:
            raise ValueError(f"transport: unknown {self.transport!r} "
                             f"(one of {', '.join(TRANSPORTS)})")
        if (self.transport == "udp" and self.pattern not in BULK
                and 2 * self.size - 1 > MAX_UDP_MESSAGE):
            raise ValueError(f"size: a UDP message is one datagram, so size must be <= "
                             f"{(MAX_UDP_MESSAGE + 1) // 2}, got {self.size}")
        hosts = self.hosts
        if isinstance(hosts, str):
            if hosts not in HOST_SETS:
                raise ValueError(f"hosts: unknown {hosts!r} (one of {', '.join(HOST_SETS)} "
                                 "or a list of host names)")
        elif isinstance(hosts, list | tuple):
            if not all(isinstance(h, str) and h for h in hosts):
                raise ValueError(f"hosts: a list must hold host names, got {list(hosts)!r}")
            dup = sorted({h for h in hosts if hosts.count(h) > 1})
            if dup:
                raise ValueError(f"hosts: listed more than once: {', '.join(dup)}")
            object.__setattr__(self, "hosts", list(hosts))
        else:
            raise ValueError(f"hosts: must be one of {', '.join(HOST_SETS)} or a list of "
                             f"host names, got {hosts!r}")
        object.__setattr__(self, "load", float(self.load))
        object.__setattr__(self, "hot_fraction", float(self.hot_fraction))

    @classmethod
    def from_dict(cls, table: dict[str, Any]) -> TrafficSpec:
        """Build from a parsed table (TOML/JSON); errors start with the offending key."""
        known = [f.name for f in fields(cls)]
        for key in table:
            if key not in known:
                raise ValueError(f"{key}: unknown key (known: {', '.join(known)})")
        for key in ("pattern", "load"):
            if key not in table:
                raise ValueError(f"{key}: missing (required)")
        pattern = table["pattern"]
        if pattern in BULK and "transport" in table and table["transport"] != BULK[pattern]:
            raise ValueError(f"transport: {pattern} always uses {BULK[pattern]}, "
                             f"got {table['transport']!r}")
        return cls(**table)

    @property
    def transport_used(self) -> str:
        return BULK.get(self.pattern, self.transport)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def mean_size(spec: TrafficSpec) -> int:
    """Mean bytes per send: the message size, or the bulk patterns' fixed write size."""
    if spec.pattern == "bulk-udp":
        return UDP_PAYLOAD
    if spec.pattern == "bulk-tcp":
        return BULK_TCP_CHUNK
    return spec.size


def burstiness(spec: TrafficSpec) -> float:
    """E[X^2] / E[X]^2 of the bytes X one message adds to a window: with exponential think
    times the bytes in a window of n expected messages are a compound Poisson sum, whose
    standard deviation is sqrt(burstiness / n) of its mean. Sizes are uniform on
    1..2*size-1 (`MessageSource.next`); 0 for the paced bulk streams, whose bytes in a window
    hardly vary."""
    if spec.pattern in BULK:
        return 0.0
    top = 2 * spec.size - 1
    return 1 + (top * top - 1) / 12 / spec.size**2


def think_mean_s(spec: TrafficSpec, link_mbit: float) -> float:
    """Mean gap between sends so one generator offers load x link rate; inf for load 0.
    Bulk TCP at load >= 1 is unpaced (0)."""
    if spec.load <= 0:
        return math.inf
    if spec.pattern == "bulk-tcp" and spec.load >= 1:
        return 0.0
    return mean_size(spec) * 8 / (spec.load * link_mbit * 1e6)


def accepted_load(received_bytes: int, window_s: float, generators: int,
                  link_mbit: float) -> float:
    """Delivered payload rate normalised like the offered load (per generator, per link)."""
    if window_s <= 0 or generators <= 0:
        return 0.0
    return received_bytes * 8 / window_s / (generators * link_mbit * 1e6)


@dataclass
class MessageSource:
    """One generator's event stream: `next(rng)` -> (think seconds, destination, bytes)."""

    src: str
    pattern: str
    dests: list[str]
    think_mean: float  # inf: never sends
    size: int
    hot: str | None = None
    hot_fraction: float = 0.0

    @classmethod
    def from_config(cls, cfg: dict[str, Any]) -> MessageSource:
        """From one host's entry of `plan` (None think time = load 0)."""
        think = cfg["think_mean_s"]
        return cls(cfg["host"], cfg["pattern"], list(cfg["dests"]),
                   math.inf if think is None else float(think), int(cfg["size"]),
                   cfg.get("hot"), float(cfg.get("hot_fraction", 0.0)))

    @property
    def sends(self) -> bool:
        return math.isfinite(self.think_mean) and bool(self.dests)

    def next(self, rng: random.Random) -> tuple[float, str, int]:
        if not self.sends:
            raise ValueError(f"{self.src} does not send (load 0 or no destination)")
        if self.pattern in BULK:  # paced stream: constant gaps, fixed partner and size
            return self.think_mean, self.dests[0], self.size
        think = rng.expovariate(1.0 / self.think_mean) if self.think_mean > 0 else 0.0
        if (self.hot is not None and self.src != self.hot
                and rng.random() < self.hot_fraction):
            dst = self.hot
        else:
            dst = rng.choice(self.dests)
        return think, dst, rng.randint(1, 2 * self.size - 1)


class Pacer:
    """Keeps the offered rate (due += think) but, once it lags more than BEHIND_LIMIT mean
    think times (at least MIN_SLACK_S: the network pushed back, not the OS scheduler),
    restarts from now instead of bursting to catch up."""

    def __init__(self, start: float, think_mean: float, behind: float = BEHIND_LIMIT,
                 min_slack: float = MIN_SLACK_S) -> None:
        self.due = start
        self.slack = max(behind * think_mean, min_slack)
        self.resets = 0

    def advance(self, think: float, now: float) -> float:
        """The time the next send is due, `think` after the previous one."""
        self.due += think
        if now - self.due > self.slack and think > 0:
            self.due = now
            self.resets += 1
        return self.due


def _partners(group: list[str]) -> dict[str, str]:
    return {h: group[(i + 1) % len(group)] for i, h in enumerate(group)}


def plan(spec: TrafficSpec, group: list[str], neighbours: dict[str, list[str]],
         link_mbit: float, seed: int) -> dict[str, dict[str, Any]]:
    """Each generator host's JSON-able config: pattern, destinations, think time, seed.
    Raises ValueError (key-prefixed) when the group cannot carry the pattern."""
    if len(set(group)) != len(group):
        raise ValueError("hosts: a host appears twice in the generator group")
    if not _is_number(link_mbit) or link_mbit <= 0:
        raise ValueError(f"link_mbit: must be > 0, got {link_mbit!r}")
    if not group:
        return {}
    think = think_mean_s(spec, link_mbit)
    sending = spec.load > 0
    if sending and len(group) < 2:
        raise ValueError(f"hosts: {spec.pattern} traffic needs at least 2 generator hosts, "
                         f"got {len(group)}")
    hot = None
    if spec.pattern == "hotspot":
        hot = spec.hot if spec.hot is not None else group[0]
        if hot not in group:
            raise ValueError(f"hot: {hot!r} is not one of the generator hosts "
                             f"({', '.join(group)})")
    partner = _partners(group)
    out: dict[str, dict[str, Any]] = {}
    for i, host in enumerate(group):
        if spec.pattern in BULK:
            dests = [partner[host]] if len(group) > 1 else []
        elif spec.pattern == "local":
            dests = [d for d in neighbours.get(host, []) if d != host]
            bad = [d for d in dests if d not in group]
            if bad:
                raise ValueError(f"neighbours: {host}'s neighbours {bad} are not generators")
            if sending and not dests:
                raise ValueError(f"neighbours: {host} has no neighbour in the group")
        else:
            dests = [d for d in group if d != host]
        out[host] = {
            "host": host, "pattern": spec.pattern, "transport": spec.transport_used,
            "load": spec.load, "size": mean_size(spec), "dests": dests,
            "think_mean_s": think if math.isfinite(think) else None,
            "hot": hot, "hot_fraction": spec.hot_fraction if hot else 0.0,
            "seed": seed * 1_000_003 + i,
        }
    return out


def destination_shares(planned: dict[str, dict[str, Any]]) -> dict[str, dict[str, float]]:
    """share[s][d]: the fraction of s's messages that go to d, as MessageSource draws them
    from `plan`'s configs (what the fidelity check needs to know which links should carry
    what)."""
    shares: dict[str, dict[str, float]] = {}
    for host, cfg in planned.items():
        dests = cfg["dests"]
        if not dests:
            continue
        hot, p = cfg["hot"], cfg["hot_fraction"]
        p = p if hot is not None and host != hot else 0.0
        mine = dict.fromkeys(dests, (1 - p) / len(dests))
        if p:
            mine[hot] = mine.get(hot, 0.0) + p
        shares[host] = mine
    return shares
