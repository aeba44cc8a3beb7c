"""One import point for the Ryu API, served by os-ken (preferred) or by a working Ryu.

os-ken is Ryu's maintained fork with the same API under ``os_ken.*`` (``OSKenApp`` instead of
``RyuApp``). PyPI's Ryu 4.34 does not run on Python 3.11, but where a working Ryu exists
the app loads under ``ryu-manager controller.app`` through this module.
"""

from __future__ import annotations

import socket
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    from os_ken.base import app_manager
    from os_ken.controller import ofp_event
    from os_ken.controller.handler import (
        CONFIG_DISPATCHER,
        DEAD_DISPATCHER,
        MAIN_DISPATCHER,
        set_ev_cls,
    )
    from os_ken.lib import hub
    from os_ken.ofproto import ofproto_v1_3

    BaseApp = app_manager.OSKenApp
    FRAMEWORK = "os-ken"
except ImportError:  # pragma: no cover - exercised only where Ryu is installed
    from ryu.base import app_manager
    from ryu.controller import ofp_event
    from ryu.controller.handler import (
        CONFIG_DISPATCHER,
        DEAD_DISPATCHER,
        MAIN_DISPATCHER,
        set_ev_cls,
    )
    from ryu.lib import hub
    from ryu.ofproto import ofproto_v1_3

    BaseApp = app_manager.RyuApp
    FRAMEWORK = "ryu"


class UnixSwitchSocket:
    """A switch's connection on a Unix socket, as os-ken's Datapath may use it. os-ken serves
    Unix sockets (hub.StreamServer takes a path) but its Datapath sets TCP_NODELAY on every
    connection, which a Unix socket refuses: TCP options are dropped here, all else is the
    socket's."""

    def __init__(self, sock: Any) -> None:
        self._sock = sock

    def setsockopt(self, level: int, *args: Any) -> None:
        if level != socket.IPPROTO_TCP:
            self._sock.setsockopt(level, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def serve_unix_switches() -> None:
    """Let os-ken's OpenFlow server take switches on a Unix socket (--ofp-listen-host PATH)."""
    # os-ken's alone (this module also loads under Ryu), and only to serve Unix sockets
    from os_ken.controller import controller

    factory = controller.datapath_connection_factory
    if getattr(factory, "unix_ready", False):
        return

    def unix_factory(sock: Any, address: Any) -> Any:
        if sock.family == socket.AF_UNIX:
            sock = UnixSwitchSocket(sock)
        return factory(sock, address)

    unix_factory.unix_ready = True  # type: ignore[attr-defined]
    controller.datapath_connection_factory = unix_factory


def end_switches_that_hang_up() -> None:
    """Let a switch's connection end when the switch hangs up. os-ken's Datapath.serve, once
    its receive loop has ended, waits for its send loop, which (under os-ken's native hub,
    where killing a thread does nothing) waits for a message to send: the connection is
    marked gone only when the controller next sends the switch something, and until then
    the switch, connecting again, is refused as a second connection for its dpid. Here the
    end of the receive loop queues one last empty send that closes the send loop."""
    # os-ken's alone (this module also loads under Ryu)
    from os_ken.controller import controller

    receive = controller.Datapath._recv_loop
    if getattr(receive, "ends_sends", False):
        return

    def recv_loop(self: Any) -> None:
        try:
            receive(self)
        finally:
            if self.send_q is not None:
                self.send(b"", close_socket=True)  # (refused when the loop already ended)

    recv_loop.ends_sends = True  # type: ignore[attr-defined]
    controller.Datapath._recv_loop = recv_loop


def framework_version() -> str:
    """Name and version of the framework in use, for results records."""
    try:
        return f"{FRAMEWORK} {version('os-ken' if FRAMEWORK == 'os-ken' else 'ryu')}"
    except PackageNotFoundError:  # pragma: no cover
        return FRAMEWORK


__all__ = [
    "BaseApp",
    "CONFIG_DISPATCHER",
    "DEAD_DISPATCHER",
    "FRAMEWORK",
    "MAIN_DISPATCHER",
    "app_manager",
    "end_switches_that_hang_up",
    "framework_version",
    "hub",
    "ofp_event",
    "ofproto_v1_3",
    "serve_unix_switches",
    "set_ev_cls",
]
