"""The live view's server (aiohttp's test server on 127.0.0.1, asked with raw HTTP requests,
so that paths reach it as written, dot segments and all): every request without the token,
or with a wrong one, is refused (403) whatever it asks; with it, the page, its files, the
snapshot and its picture are served, and nothing else: no path from a request reaches the
file system (traversal attempts get 404, never a file), the snapshot is not read through a
link; read-only (POST refused)."""

from __future__ import annotations

import asyncio
import json
import os
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from testbed.live.server import ASSETS, folder_reader, make_app
from testbed.live.snapshot import snapshot
from topologies import parse_spec

TOKEN = "t" * 32
PATHS = ["/", "/live.js", "/live.css", "/state.json", "/view.svg"]
TRAVERSALS = ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/live.js/../state.json",
              "/..%2f..%2fetc%2fpasswd", "/static/../../etc/passwd", "//etc/passwd",
              "/state.json/../../live/state.json", "/page.html", "/server.py", "/__init__.py"]


@pytest.fixture
def live_dir(tmp_path: Path) -> Path:
    snap = snapshot(parse_spec("star:hosts=4"), {}, [2], [], 1, 0.0)
    (tmp_path / "state.json").write_text(json.dumps(snap))
    return tmp_path


class Client:
    """Raw HTTP/1.1 requests to the server: the path is sent exactly as given."""

    def __init__(self, port: int) -> None:
        self.port = port

    async def get(self, path: str, token: str | None = TOKEN, method: str = "GET"
                  ) -> tuple[int, dict[str, str], str]:
        query = "" if token is None else f"{'&' if '?' in path else '?'}token={token}"
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(f"{method} {path}{query} HTTP/1.1\r\nHost: 127.0.0.1:{self.port}\r\n"
                     "Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
        await writer.drain()
        raw = await reader.read()
        writer.close()
        head, _, body = raw.decode(errors="replace").partition("\r\n\r\n")
        lines = head.split("\r\n")
        headers = {k.lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])}
        return int(lines[0].split()[1]), headers, body


def run(live_dir: Path, body: Callable[[Client], Awaitable[None]]) -> None:
    async def main() -> None:
        fd = os.open(live_dir, os.O_RDONLY | os.O_DIRECTORY)
        server = TestServer(make_app(folder_reader(fd), TOKEN), host="127.0.0.1")
        try:
            await server.start_server()
            assert server.port is not None
            await body(Client(server.port))
        finally:
            await server.close()
            os.close(fd)
    asyncio.run(main())


@pytest.mark.parametrize("token", [None, "", "t" * 31, "x" * 32, TOKEN + "x"])
def test_a_request_without_the_token_is_refused(live_dir: Path, token: str | None) -> None:
    async def body(client: Client) -> None:
        for path in PATHS + TRAVERSALS + ["/nothing"]:
            status, _, text = await client.get(path, token)
            assert status == 403, path
            assert "forbidden" in text and "root:" not in text
    run(live_dir, body)


def test_with_the_token_the_page_and_the_snapshot_are_served(live_dir: Path) -> None:
    async def body(client: Client) -> None:
        for path in PATHS:
            status, headers, _ = await client.get(path)
            assert status == 200, path
            assert headers["cache-control"] == "no-store"
            assert "default-src 'none'" in headers["content-security-policy"]
        _, _, text = await client.get("/state.json")
        assert json.loads(text)["failed"] == ["h2"]
        _, headers, svg = await client.get("/view.svg")
        assert headers["content-type"] == "image/svg+xml"
        assert all(f'data-name="{n}"' in svg for n in ("h0", "h1", "h2", "h3", "s1"))
        _, headers, text = await client.get("/")
        assert "live.js" in text and headers["content-type"].startswith("text/html")
    run(live_dir, body)


def test_no_file_outside_its_own_is_served(live_dir: Path) -> None:
    (live_dir / "secret.txt").write_text("SECRET")

    async def body(client: Client) -> None:
        for path in TRAVERSALS + ["/secret.txt", "/live/secret.txt"]:
            status, _, text = await client.get(path)
            assert status in (400, 404), (path, status, text)
            assert "root:" not in text and "SECRET" not in text, path
        status, _, _ = await client.get("/state.json", method="POST")
        assert status == 405
    run(live_dir, body)


def test_the_snapshot_is_not_read_through_a_link(live_dir: Path) -> None:
    (live_dir / "state.json").unlink()
    (live_dir / "state.json").symlink_to("/etc/passwd")

    async def body(client: Client) -> None:
        for path in ("/state.json", "/view.svg"):
            status, _, text = await client.get(path)
            assert status == 503 and "root:" not in text
    run(live_dir, body)


def test_the_page_files_are_the_packages_own() -> None:
    assert sorted(ASSETS) == ["/", "/live.css", "/live.js"]
    app = make_app(lambda: None, TOKEN)
    assert isinstance(app, web.Application)
    for bad in ("short", "t" * 20 + '"><script>'):
        with pytest.raises(ValueError, match="16 or more URL-safe characters"):
            make_app(lambda: None, bad)


def test_the_page_asks_for_its_own_files_with_the_token(live_dir: Path) -> None:
    """What a browser does with the page: every file it links to is served (a page whose
    links lacked the token got 403 for its script and style in Chromium)."""
    async def body(client: Client) -> None:
        _, _, page = await client.get("/")
        links = re.findall(r'(?:href|src)="([^"#:]+)"', page)
        assert sorted(links) == [f"live.css?token={TOKEN}", f"live.js?token={TOKEN}"]
        for link in links:
            status, _, _ = await client.get("/" + link, token=None)
            assert status == 200, link
    run(live_dir, body)
