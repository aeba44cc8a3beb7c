"""The controller's JSON endpoint on 127.0.0.1, served from an eventlet green thread.

``GET /state`` (or ``/``) returns the whole state and ``GET /<key>`` one key of it;
``GET /ready`` returns 200 once every switch of the topology is connected and programmed,
503 before. Live resources (``GET /ports``: counters read from the switches now) and actions
(``POST /nodes/fail`` with a JSON body) are registered by the app.
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


Getter = Callable[[], Any]
Action = Callable[[dict[str, Any]], Any]


def _post(environ: dict, action: Action) -> tuple[str, Any]:
    try:
        size = int(environ.get("CONTENT_LENGTH") or 0)
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
        if method == "POST" and path in actions:
            status, body = _post(environ, actions[path])
        elif method not in ("GET", "HEAD"):
            status, body = "405 Method Not Allowed", {"error": f"{method} {path}: not allowed"}
        elif path in getters:
            status, body = "200 OK", getters[path]()
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


def serve(port: int, state: Callable[[], dict[str, Any]], getters: dict[str, Getter] | None = None,
          actions: dict[str, Action] | None = None) -> None:
    """Listen on 127.0.0.1:port in a green thread (the port is bound before this returns)."""
    sock = eventlet.listen(("127.0.0.1", port))
    quiet = logging.getLogger("mcastlab.api.access")
    quiet.setLevel(logging.WARNING)
    hub.spawn(eventlet.wsgi.server, sock, _json_app(state, getters, actions), log=quiet,
              log_output=False)
    log.info("JSON endpoint on http://127.0.0.1:%d/state", port)
