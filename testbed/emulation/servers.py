"""Where one run's network lies, as the emulation asks it (the interface it calls): which
server every node is on, the runner of a server's root-namespace commands, and the steps of
a run that concern the servers. `OneMachine` is this machine alone: every node here, no
holds, no tunnels. testbed.cluster.spread.Spread, the network across servers, is a
OneMachine too and is handed to ``Emulation(cluster=...)``: the emulation calls nothing
else of it and never imports the cluster, which stands above it.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from controller.config import ControllerConfig

from ..specs.cluster import LOCAL, Server
from . import run_records, shell

T = TypeVar("T")


class LocalServer:
    """The server the run starts on: commands run here (testbed.emulation.shell).
    testbed.cluster.server.RemoteServer runs them on another server through ssh."""

    def __init__(self, server: Server) -> None:
        self.server = server

    @property
    def name(self) -> str:
        return self.server.host

    @property
    def destination(self) -> str:
        """user@host, as ssh takes it."""
        return f"{self.server.user}@{self.server.host}"

    def run(self, argv: Sequence[str], *, input: str | None = None, check: bool = True,
            timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        return shell.run(argv, input=input, check=check, timeout=timeout)

    def put(self, path: Path, text: str) -> None:
        """Write a file of root's alone (0600, its folder made 0700), never through a link."""
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)

    def kill_job(self, job: str) -> None:
        """End an MPI or traffic job's processes on this server (found by its mark)."""
        run_records.kill_marked(job_id=job)


class OneMachine:
    """A run's network on this machine alone: the degenerate case of a spread, so that the
    network code has one path."""

    tunnel = "vxlan"  # the kind of tunnel between servers (none here)

    def __init__(self) -> None:
        self.runners: dict[str, LocalServer] = {LOCAL: LocalServer(Server(LOCAL))}
        self.addresses: dict[str, str] = {}

    # ---- where things are -------------------------------------------------------------------
    @property
    def cluster(self) -> bool:
        """Whether the network spans servers."""
        return False

    @property
    def remotes(self) -> list[Any]:
        """The runners of the other servers."""
        return []

    @property
    def host_mtu(self) -> int | None:
        """The MTU of the hosts' interfaces, where a tunnel makes it smaller (else None)."""
        return None

    def server_of(self, node: str) -> str:
        return LOCAL

    def runner(self, node: str) -> LocalServer:
        return self.runners[self.server_of(node)]

    def local(self, node: str) -> bool:
        return self.server_of(node) == LOCAL

    def servers_of(self, nodes: Iterable[str]) -> list[str]:
        """The servers `nodes` run on, sorted (one, unless the network spans servers)."""
        return sorted({self.server_of(n) for n in nodes})

    def group_slice(self, node: str) -> str | None:
        """"i/n": the part of the multicast group pool that `node`'s communicators lease
        from (collectives.ipmc.groups), so that leases are unique across servers. None on
        one machine."""
        return None

    def by_server(self, items: Iterable[T], node: Callable[[T], str]) -> dict[str, list[T]]:
        """`items` grouped by the server of `node(item)`, servers in cluster order."""
        out: dict[str, list[T]] = {}
        for item in items:
            out.setdefault(self.server_of(node(item)), []).append(item)
        return {s: out[s] for s in self.runners if s in out}

    # ---- a run's life -------------------------------------------------------------------
    def place(self) -> None:
        """Lay the nodes out on the servers, refusing a layout that cannot be (all here)."""

    def resolve(self) -> None:
        """Every server's address (none to find here)."""

    def controller_config(self, config: ControllerConfig, run_id: str) -> ControllerConfig:
        """On one machine the switches reach the controller at a Unix socket in the run's
        sockets folder (which only root enters)."""
        return dataclasses.replace(config, listen=str(run_records.sockets_dir(run_id)
                                                      / "openflow.sock"), allow=())

    def begin(self, run_id: str, orders: dict[str, dict[str, Any]],
              progress: Callable[[str], None]) -> None:
        """Take a hold on every other server for run `run_id` (none here)."""

    def secure(self, run_id: str, openflow_port: int | None) -> None:
        """Guard the tunnels between servers before any exists (none here)."""

    def tunnel_record(self) -> dict[str, int]:
        """The tunnels' identifiers by link number, for the run's record (none here)."""
        return {}

    def lacking_afxdp(self) -> list[str]:
        """The other servers that cannot open AF_XDP ports."""
        return []

    def end(self) -> None:
        """Release the other servers."""

    # ---- Mininet's parameters ---------------------------------------------------------------
    def node_params(self, name: str, switch: bool) -> dict[str, Any]:
        """Extra Mininet parameters of a node (its class and runner on another server)."""
        return {}

    def link_params(self, node1: str, node2: str, key: int) -> dict[str, Any]:
        """Extra Mininet parameters of a link (a tunnel where it crosses servers)."""
        return {}
