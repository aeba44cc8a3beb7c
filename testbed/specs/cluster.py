"""What a cluster is: its servers, how nodes are placed on them, the tunnels between them and
where the controller listens; from a spec's ``[cluster]`` table or ``--servers a,b``.

    [cluster]
    servers = ["root@10.1.0.2"]                 # the other servers: the run starts here
                                                # (localhost), which comes first
    placement = "blocks"                        # METHODS
    tunnel = "auto"                             # gretap where the kernel has it, else vxlan
    listen = "10.1.0.1"                         # the controller's address (default: the
                                                # launching server's address towards the others)
    ssh_config = "cluster_ssh_config"           # optional: ssh -F FILE

A server is ``[user@]host``: a name ssh resolves (through the ssh config) or an address;
the user defaults to root (the servers run Mininet, OVS and the hosts as root).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from controller.config import check_listen_address

METHODS = ("blocks", "switch-bin")  # how nodes are placed: testbed.cluster.switch_placement
TUNNELS = ("auto", "gretap", "vxlan")
KEYS = {"servers", "placement", "tunnel", "listen", "ssh_config"}
LOCAL = "localhost"
_SERVER = re.compile(r"(?:(?P<user>[a-z_][a-z0-9_-]*)@)?(?P<host>[A-Za-z0-9][A-Za-z0-9.:-]*)")


@dataclass(frozen=True)
class Server:
    host: str
    user: str = "root"

    @property
    def local(self) -> bool:
        return self.host == LOCAL

    def __str__(self) -> str:
        return self.host if self.user == "root" else f"{self.user}@{self.host}"


@dataclass(frozen=True)
class ClusterSpec:
    servers: tuple[Server, ...]
    placement: str = "blocks"
    tunnel: str = "auto"
    listen: str | None = None
    ssh_config: str | None = None

    @property
    def names(self) -> list[str]:
        return [s.host for s in self.servers]

    def to_dict(self) -> dict[str, Any]:
        """The ``[cluster]`` table that gives this cluster back (from_dict)."""
        table: dict[str, Any] = {"servers": [str(s) for s in self.servers],
                                 "placement": self.placement, "tunnel": self.tunnel}
        return table | {k: v for k in ("listen", "ssh_config")
                        if (v := getattr(self, k)) is not None}


def server(text: str) -> Server:
    m = _SERVER.fullmatch(text.strip())
    if not m:
        raise ValueError(f"a server is [user@]host, got {text!r}")
    return Server(m["host"], m["user"] or "root")


def from_servers(text: str, **options: str | None) -> ClusterSpec:
    """--servers a,b (--placement P --tunnel K --ssh-config F)."""
    return from_dict({"servers": [t for t in text.split(",") if t.strip()],
                      **{k: v for k, v in options.items() if v is not None}})


def from_dict(table: dict[str, Any]) -> ClusterSpec:
    """The ``[cluster]`` table; ValueError naming the key at fault."""
    for key in table:
        if key not in KEYS:
            raise ValueError(f"cluster.{key}: unknown key (known: {', '.join(sorted(KEYS))})")
    raw = table.get("servers")
    if not isinstance(raw, list) or not raw or not all(isinstance(s, str) for s in raw):
        raise ValueError("cluster.servers: a list of the other servers, '[user@]host' each "
                         f"(this one, {LOCAL}, comes first by itself), got {raw!r}")
    try:
        servers = tuple(server(s) for s in ([] if raw[0] == LOCAL else [LOCAL]) + raw)
    except ValueError as exc:
        raise ValueError(f"cluster.servers: {exc}") from None
    if len(servers) < 2:
        raise ValueError(f"cluster.servers: at least one server besides {LOCAL}")
    if LOCAL in raw[1:]:
        raise ValueError(f"cluster.servers: only the first server may be {LOCAL} (the one "
                         "the run starts on)")
    hosts = [s.host for s in servers]
    if len(set(hosts)) != len(hosts):
        raise ValueError(f"cluster.servers: a server named twice in {', '.join(hosts)}")
    options = {}
    for key, choices in (("placement", METHODS), ("tunnel", TUNNELS)):
        value = table.get(key, choices[0])
        if value not in choices:
            raise ValueError(f"cluster.{key}: unknown {value!r} (one of {', '.join(choices)})")
        options[key] = value
    for key in ("listen", "ssh_config"):
        value = table.get(key)
        if value is not None and not (isinstance(value, str) and value):
            raise ValueError(f"cluster.{key}: must be a string, got {value!r}")
        options[key] = value
    if options["listen"] is not None:
        try:  # the controller's own rule: loopback or private, never public
            check_listen_address(options["listen"])
        except ValueError as exc:
            raise ValueError(f"cluster.listen: {exc}") from None
    return ClusterSpec(servers, **options)
