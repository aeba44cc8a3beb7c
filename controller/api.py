"""The controller's JSON endpoint on 127.0.0.1 (GET only), served from an eventlet green thread.

``GET /state`` (or ``/``) returns the whole state; ``GET /ready`` returns 200 once every switch
of the topology is connected and programmed, 503 before.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import eventlet
import eventlet.wsgi

from .compat import hub

log = logging.getLogger(__name__)


def _json_app(state: Callable[[], dict[str, Any]]) -> Callable:
    def app(environ: dict, start_response: Callable) -> list[bytes]:
        path = environ.get("PATH_INFO", "/").rstrip("/") or "/state"
        snapshot = state()
        if environ.get("REQUEST_METHOD", "GET") not in ("GET", "HEAD"):
            status, body = "405 Method Not Allowed", {"error": "read-only: use GET"}
        elif path == "/ready":
            status = "200 OK" if snapshot["ready"] else "503 Service Unavailable"
            body: Any = {"ready": snapshot["ready"]}
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


def serve(port: int, state: Callable[[], dict[str, Any]]) -> None:
    """Listen on 127.0.0.1:port in a green thread (the port is bound before this returns)."""
    sock = eventlet.listen(("127.0.0.1", port))
    quiet = logging.getLogger("mcastlab.api.access")
    quiet.setLevel(logging.WARNING)
    hub.spawn(eventlet.wsgi.server, sock, _json_app(state), log=quiet, log_output=False)
    log.info("JSON endpoint on http://127.0.0.1:%d/state", port)
