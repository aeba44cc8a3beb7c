"""The controller's JSON endpoint on a Unix socket, served from an eventlet green thread.

``GET /state`` (or ``/``) returns the whole state and ``GET /<key>`` one key of it;
``GET /ready`` returns 200 once every switch of the topology is connected and programmed,
503 before. Live resources (``GET /ports``: counters read from the switches now) and actions
(``POST /nodes/fail`` with a JSON body) are registered by the app.

Who may ask: the socket is a file (mode 0600, in a directory the caller made private), and
every connection's peer is checked once more by its credentials (SO_PEERCRED): root or the
controller's own user, nobody else. A TCP endpoint on loopback let any local user, and any
web page by a cross-site POST, fail nodes mid-run. Each connection is bounded: a body of at
most BODY_MAX bytes, declared as JSON; IDLE_S without a byte closes it; at most CONNECTIONS
at a time.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import eventlet
import eventlet.wsgi

from .compat import hub

log = logging.getLogger(__name__)

BODY_MAX = 64 * 1024
IDLE_S = 10.0
CONNECTIONS = 64

Getter = Callable[[], Any]
Action = Callable[[dict[str, Any]], Any]
Refused = Callable[[str], None]


def peer_uid(conn: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket."""
    creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


class PeerCheckedSocket:
    """A listening Unix socket whose accept() closes, unread, every connection from a user
    not in `uids` (and tells `refused`); everything else is the socket's."""

    def __init__(self, sock: Any, uids: set[int], refused: Refused) -> None:
        self._sock, self._uids, self._refused = sock, uids, refused

    def accept(self) -> tuple[Any, Any]:
        while True:
            conn, addr = self._sock.accept()
            uid = peer_uid(conn)
            if uid in self._uids:
                return conn, addr
            conn.close()
            self._refused(f"API connection from uid {uid} refused")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


def _post(environ: dict, action: Action) -> tuple[str, Any]:
    kind = environ.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return "415 Unsupported Media Type", {"error": "the body must be application/json"}
    try:
        size = int(environ.get("CONTENT_LENGTH") or -1)
    except ValueError:
        size = -1
    if size < 0:
        return "411 Length Required", {"error": "a POST needs its Content-Length"}
    if size > BODY_MAX:
        return "413 Content Too Large", {"error": f"a body of at most {BODY_MAX} bytes"}
    try:
        raw = environ["wsgi.input"].read(size) if size else b""
        body = json.loads(raw) if raw else {}
        if not isinstance(body, dict):
            raise ValueError("the body must be a JSON object")
        return "200 OK", action(body)
    except (ValueError, KeyError, TypeError) as exc:
        return "400 Bad Request", {"error": str(exc)}


def _json_app(state: Callable[[], dict[str, Any]], getters: dict[str, Getter] | None = None,
              actions: dict[str, Action] | None = None) -> Callable:
    getters, actions = getters or {}, actions or {}

    def app(environ: dict, start_response: Callable) -> list[bytes]:
        path = environ.get("PATH_INFO", "/").rstrip("/") or "/state"
        method = environ.get("REQUEST_METHOD", "GET")
        snapshot = state()
        body: Any  # what is sent back, as JSON
        if method == "POST" and path in actions:
            status, body = _post(environ, actions[path])
        elif method not in ("GET", "HEAD"):
            status, body = "405 Method Not Allowed", {"error": f"{method} {path}: not allowed"}
        elif path in getters:
            status, body = "200 OK", getters[path]()
        elif path == "/ready":
            status = "200 OK" if snapshot["ready"] else "503 Service Unavailable"
            body = {"ready": snapshot["ready"]}
        elif path == "/state":
            status, body = "200 OK", snapshot
        elif path.lstrip("/") in snapshot:
            status, body = "200 OK", snapshot[path.lstrip("/")]
        else:
            status, body = "404 Not Found", {"error": f"no such resource {path}"}
        data = json.dumps(body, indent=1, sort_keys=True).encode()
        start_response(status, [("Content-Type", "application/json"),
                                ("Content-Length", str(len(data)))])
        return [data]

    return app


def listen_unix(path: str | Path) -> Any:
    """A green listening socket at `path`, mode 0600. A socket file left there (a controller
    killed) is replaced; anything else there is not (ValueError)."""
    path = Path(path)
    try:
        st = path.lstat()
    except FileNotFoundError:
        pass
    else:
        if not stat.S_ISSOCK(st.st_mode):
            raise ValueError(f"{path} exists and is not a socket")
        path.unlink()
    old = os.umask(0o177)  # the file is born 0600: no moment another user may connect
    try:
        return eventlet.listen(str(path), family=socket.AF_UNIX)
    finally:
        os.umask(old)


def serve(path: str | Path, state: Callable[[], dict[str, Any]],
          getters: dict[str, Getter] | None = None, actions: dict[str, Action] | None = None,
          refused: Refused | None = None) -> None:
    """Listen on the Unix socket `path` in a green thread (bound before this returns)."""
    sock = PeerCheckedSocket(listen_unix(path), {0, os.geteuid()},
                             refused or (lambda why: log.warning("%s", why)))
    quiet = logging.getLogger("mcastlab.api.access")
    quiet.setLevel(logging.WARNING)
    hub.spawn(eventlet.wsgi.server, sock, _json_app(state, getters, actions), log=quiet,
              log_output=False, socket_timeout=IDLE_S, max_size=CONNECTIONS)
    log.info("JSON endpoint on %s (curl --unix-socket %s http://controller/state)", path, path)
