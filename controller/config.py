"""Controller settings. They travel in the environment (``MCASTLAB_CONTROLLER``, JSON) so
that ``python -m controller`` and ``ryu-manager controller.app`` configure the app alike."""

from __future__ import annotations

import ipaddress
import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from .listener import Limits
from .membership import MAX_GROUPS, MAX_SOURCES
from .timers import IgmpTimers

ENV_TOPOLOGY = "MCASTLAB_TOPOLOGY"
ENV_API_SOCKET = "MCASTLAB_API_SOCKET"
ENV_CONFIG = "MCASTLAB_CONTROLLER"

# contiguous-strict: contiguous mode whose range multicasts through a switch share one lane
# (controller.lane), one at a time as Coll2003's Elite switches send them
MODES = ("igmp", "contiguous", "contiguous-strict")
LOOPBACK = "127.0.0.1"
UNREGISTERED = ("drop", "flood")


@dataclass(frozen=True)
class ControllerConfig:
    mode: str = "igmp"
    unregistered: str = "drop"     # multicast to a group nobody joined: drop or flood
    fast_leave: bool = False       # drop a member at its leave, without group queries
    querier: bool = True
    timers: IgmpTimers = field(default_factory=IgmpTimers)
    querier_ip: str = "10.0.255.254"
    igmp_rate: float = 200.0       # IGMP messages per second per host the controller
                                   # processes (burst: twice that); a flood beyond is counted
    data_rate: float = 1000.0      # multicast data packet-ins per second per host handled
                                   # (burst: twice that); beyond: dropped, counted
    max_groups: int = MAX_GROUPS   # groups one host may join (controller.membership)
    max_sources: int = MAX_SOURCES  # sources one host's state of a group may hold
    listen: str = LOOPBACK         # the OpenFlow address: a Unix socket's path (the testbed's
                                   # runs), loopback, or a private address (cluster)
    allow: tuple[str, ...] = ()    # switches' addresses that may connect off loopback
    tls_key: str = ""              # OpenFlow over TLS: the controller's key and certificate,
    tls_cert: str = ""             # and the CA the switches' certificates must be signed by
    tls_ca: str = ""
    # the OpenFlow listener on a TCP address (controller.listener): a TLS handshake's time
    # from accept, the handshakes under way at once (one more drops the oldest), the
    # connections open at once (one more is closed)
    handshake_timeout: float = Limits.handshake_timeout
    max_handshakes: int = Limits.max_handshakes
    max_connections: int = Limits.max_connections

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; choose from {', '.join(MODES)}")
        if self.unregistered not in UNREGISTERED:
            raise ValueError(f"unknown unregistered policy {self.unregistered!r}; "
                             f"choose from {', '.join(UNREGISTERED)}")
        t = self.timers
        if min(t.query_interval, t.query_response_interval, t.last_member_interval) <= 0 \
                or t.robustness < 1:
            raise ValueError("IGMP timers must be positive and robustness at least 1")
        if min(self.igmp_rate, self.data_rate) <= 0:
            raise ValueError("the IGMP and data packet-in rate limits must be positive")
        if min(self.max_groups, self.max_sources) < 1:
            raise ValueError("the groups and sources a host may hold must be at least 1")
        if t.query_response_interval >= t.query_interval:
            raise ValueError("the query response interval must be below the query interval")
        check_listen(self.listen, self.allow)
        tls = (self.tls_key, self.tls_cert, self.tls_ca)
        if any(tls) and not all(tls):
            raise ValueError("OpenFlow over TLS needs --tls-key, --tls-cert and --tls-ca")
        if self.tls and self.unix:
            raise ValueError("TLS is for OpenFlow over TCP, not on a Unix socket")
        Limits(self.handshake_timeout, self.max_handshakes, self.max_connections)  # checked

    @property
    def limits(self) -> Limits:
        """The OpenFlow listener's limits (on a TCP address)."""
        return Limits(self.handshake_timeout, self.max_handshakes, self.max_connections)

    @property
    def contiguous(self) -> bool:
        """Contiguous-range semantics (either contiguous mode)."""
        return self.mode.startswith("contiguous")

    @property
    def strict(self) -> bool:
        """Range multicasts through a switch are serialized in its range lane."""
        return self.mode == "contiguous-strict"

    @property
    def tls(self) -> bool:
        """OpenFlow over TLS, switches authenticated by their certificates."""
        return bool(self.tls_key)

    @property
    def unix(self) -> bool:
        """OpenFlow on a Unix socket (`listen` is its path)."""
        return self.listen.startswith("/")

    def admits(self, address: Any) -> bool:
        """A switch connecting from `address` (the socket's peer) may stay: on a Unix socket
        always (its file's mode decided who may connect), from loopback always, else when
        its address is allowed."""
        if not isinstance(address, tuple):
            return True
        return _address(address[0]).is_loopback or address[0] in self.allow

    def to_args(self) -> list[str]:
        """The `python -m controller` options that give this configuration."""
        t = self.timers
        args = ["--mode", self.mode, "--unregistered", self.unregistered,
                "--query-interval", f"{t.query_interval:g}",
                "--query-response", f"{t.query_response_interval:g}",
                "--last-member-interval", f"{t.last_member_interval:g}",
                "--robustness", str(t.robustness), "--igmp-rate", f"{self.igmp_rate:g}",
                "--data-rate", f"{self.data_rate:g}", "--max-groups", str(self.max_groups),
                "--max-sources", str(self.max_sources)]
        args += ["--listen", self.listen] + (["--allow", ",".join(self.allow)] if self.allow
                                             else [])
        if self.tls:
            args += ["--tls-key", self.tls_key, "--tls-cert", self.tls_cert,
                     "--tls-ca", self.tls_ca]
        args += ["--handshake-timeout", f"{self.handshake_timeout:g}",
                 "--max-handshakes", str(self.max_handshakes),
                 "--max-connections", str(self.max_connections)]
        return args + ["--fast-leave"] * self.fast_leave + ["--no-querier"] * (not self.querier)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ControllerConfig:
        d = json.loads(text)
        d["timers"] = IgmpTimers(**d.get("timers", {}))
        d["allow"] = tuple(d.get("allow", ()))
        return cls(**d)

    @classmethod
    def from_env(cls) -> ControllerConfig:
        text = os.environ.get(ENV_CONFIG)
        return cls.from_json(text) if text else cls()


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        raise ValueError(f"{text!r} is not an IP address") from None


def check_listen_address(listen: str) -> bool:
    """ValueError unless `listen` is loopback or private (a cluster's own network, never a
    public or unspecified one); whether it is loopback."""
    where = _address(listen)
    if not (where.is_loopback or where.is_private) or where.is_unspecified:
        raise ValueError(f"the controller listens on loopback or a private address, not "
                         f"{listen}")
    return where.is_loopback


def check_listen(listen: str, allow: tuple[str, ...]) -> None:
    """The OpenFlow address is a Unix socket's path, loopback or private, and off loopback
    only the listed switches' addresses may connect."""
    if listen.startswith("/"):
        if allow:
            raise ValueError("--allow is for a TCP address; a Unix socket's file mode says "
                             "who may connect")
        return
    loopback = check_listen_address(listen)
    for peer in allow:
        _address(peer)
    if not loopback and not allow:
        raise ValueError(f"listening on {listen} needs the switches' addresses to allow "
                         "(--allow), so that nothing else on that network connects")
