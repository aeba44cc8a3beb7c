"""controller.api: the JSON WSGI app, called directly with WSGI environ dicts (no server)."""

import json
import warnings
from collections.abc import Callable
from typing import Any

import pytest


def _make_app(state: Callable[[], dict[str, Any]]) -> Callable:
    with warnings.catch_warnings():
        # Importing eventlet warns that eventlet itself is deprecated; not this project's issue.
        warnings.filterwarnings("ignore", message=r"\s*Eventlet is deprecated")
        from controller.api import _json_app
    return _json_app(state)


class Client:
    """Calls the WSGI app the way a server would and decodes the JSON answer."""

    def __init__(self, state: dict[str, Any]) -> None:
        self.state = state
        self.calls = 0
        self.app = _make_app(self._snapshot)

    def _snapshot(self) -> dict[str, Any]:
        self.calls += 1
        return json.loads(json.dumps(self.state))  # a fresh copy, as the controller builds one

    def get(self, path: str | None) -> tuple[int, dict[str, str], Any]:
        environ: dict[str, Any] = {"REQUEST_METHOD": "GET"}
        if path is not None:
            environ["PATH_INFO"] = path
        seen: list[tuple[str, list[tuple[str, str]]]] = []

        def start_response(status: str, headers: list[tuple[str, str]]) -> None:
            seen.append((status, headers))

        chunks = self.app(environ, start_response)
        body = b"".join(chunks)
        assert len(seen) == 1
        status, headers = seen[0]
        header_map = dict(headers)
        assert header_map["Content-Type"] == "application/json"
        assert int(header_map["Content-Length"]) == len(body)
        return int(status.split()[0]), header_map, json.loads(body)


def _state(ready: bool) -> dict[str, Any]:
    return {
        "ready": ready,
        "framework": "os-ken 0.0",
        "topology": "mesh-2x2",
        "routing": "xy",
        "uptime_s": 1.5,
        "switches": {str(d): {"name": f"s{d}", "connected": ready, "ready": ready,
                              "flows": 13 if ready else 0, "connects": 1}
                     for d in (1, 2, 3, 4)},
    }


@pytest.fixture
def client() -> Client:
    return Client(_state(ready=False))


@pytest.mark.parametrize("path", ["/state", "/state/", "/", "", None])
def test_state_returns_the_whole_snapshot(client: Client, path: str | None) -> None:
    code, _, body = client.get(path)
    assert code == 200
    assert body == client.state


def test_ready_is_503_until_ready_then_200(client: Client) -> None:
    code, _, body = client.get("/ready")
    assert (code, body) == (503, {"ready": False})
    client.state["ready"] = True
    code, _, body = client.get("/ready")
    assert (code, body) == (200, {"ready": True})
    code, _, body = client.get("/ready/")
    assert (code, body) == (200, {"ready": True})


def test_every_request_takes_a_fresh_snapshot(client: Client) -> None:
    client.get("/state")
    client.state["uptime_s"] = 99.0
    _, _, body = client.get("/state")
    assert body["uptime_s"] == 99.0
    assert client.calls == 2


@pytest.mark.parametrize("key", ["switches", "topology", "routing", "uptime_s"])
def test_top_level_keys_are_sub_resources(client: Client, key: str) -> None:
    code, _, body = client.get(f"/{key}")
    assert code == 200
    assert body == client.state[key]


def test_switches_sub_resource_lists_every_switch() -> None:
    c = Client(_state(ready=True))
    code, _, body = c.get("/switches")
    assert code == 200
    assert sorted(body) == ["1", "2", "3", "4"]
    assert all(sw["ready"] and sw["flows"] == 13 for sw in body.values())


@pytest.mark.parametrize("path", ["/nope", "/switches/1", "/state/extra", "/READY"])
def test_unknown_paths_are_404_naming_the_path(client: Client, path: str) -> None:
    code, _, body = client.get(path)
    assert code == 404
    assert set(body) == {"error"}
    assert path.rstrip("/") in body["error"]


def test_body_is_sorted_indented_json() -> None:
    app = _make_app(lambda: {"ready": True, "b": 1, "a": 2})
    raw = b"".join(app({"PATH_INFO": "/state"}, lambda status, headers: None)).decode()
    assert raw == json.dumps({"a": 2, "b": 1, "ready": True}, indent=1, sort_keys=True)
    assert raw.index('"a"') < raw.index('"b"') < raw.index('"ready"')
