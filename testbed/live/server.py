"""The live view's web server (aiohttp), run as its own process by an unprivileged user
(view.py starts it and refuses root for it; so does ``main`` here). Bound to 127.0.0.1.
Every request must carry the token (``?token=...``; compared in constant time) or is refused
with 403, before anything else is looked at. Read-only (GET and HEAD): it serves its page
files, read once at start from this package and held in memory, under fixed names (the page
with the token written into its links to its own files), and the run's snapshot, read
through the folder descriptor it was handed, by one fixed name (publish.STATE): no part of a
request ever reaches the file system.

Started as ``python -m testbed.live.server --dir-fd N [--port P]``: the token is the first
line of its standard input, and the end of that input (the run's process gone) ends the
server; its first line of output is ``port P`` once it listens, or ``error: ...``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hmac
import json
import os
import re
import signal
import stat
import sys
import threading
from collections.abc import Awaitable, Callable
from importlib import resources
from typing import Any

from aiohttp import web

from .svg import draw

STATE = "state.json"  # as publish.STATE (the server does not import the run's side)
MAX_SNAPSHOT = 16 << 20  # bytes: a larger file is not read
ASSETS = {"/": ("page.html", "text/html; charset=utf-8"),
          "/live.js": ("live.js", "text/javascript; charset=utf-8"),
          "/live.css": ("live.css", "text/css; charset=utf-8")}
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
           "Content-Security-Policy": "default-src 'none'; script-src 'self'; "
                                      "style-src 'self'; connect-src 'self'; img-src 'self' data:"}

TOKEN_MARK = b"__TOKEN__"  # in page.html: where the token goes (URL-safe characters only)

Reader = Callable[[], bytes | None]


def assets() -> dict[str, tuple[bytes, str]]:
    """The page's files, read once from this package: URL path -> (bytes, type)."""
    here = resources.files(__package__ or "testbed.live")
    return {url: ((here / name).read_bytes(), kind) for url, (name, kind) in ASSETS.items()}


def folder_reader(dir_fd: int) -> Reader:
    """Reads the snapshot (a regular file, not a link) in the folder `dir_fd` is open on;
    None while there is none."""
    def read() -> bytes | None:
        try:
            fd = os.open(STATE, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
                         dir_fd=dir_fd)
        except OSError:
            return None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_SNAPSHOT:
                return None
            with os.fdopen(os.dup(fd), "rb") as f:
                return f.read(MAX_SNAPSHOT)
        finally:
            os.close(fd)
    return read


def make_app(read: Reader, token: str,
             files: dict[str, tuple[bytes, str]] | None = None) -> web.Application:
    """The application: the token guard, the page files, /state.json and /view.svg."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{16,}", token):
        raise ValueError("the token must be 16 or more URL-safe characters "
                         "(secrets.token_urlsafe)")
    files = dict(assets() if files is None else files)
    if "/" in files:  # the page asks for its files with the token, as for everything
        page, kind = files["/"]
        files["/"] = (page.replace(TOKEN_MARK, token.encode()), kind)
    drawn: dict[str, Any] = {"raw": None, "svg": b""}

    @web.middleware
    async def guard(request: web.Request,
                    handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
                    ) -> web.StreamResponse:
        given = request.query.get("token", "")
        if not hmac.compare_digest(given.encode(), token.encode()):
            resp: web.StreamResponse = web.Response(
                status=403, text="forbidden: open the URL mcastlab printed (it carries the "
                                 "token)\n")
        else:
            try:
                resp = await handler(request)
            except web.HTTPException as exc:  # 404, 405: with the same headers
                resp = web.Response(status=exc.status, text=f"{exc.reason}\n")
        resp.headers.update(HEADERS)
        return resp

    def page_file(url: str) -> Callable[[web.Request], Awaitable[web.Response]]:
        body, kind = files[url]

        async def handler(_request: web.Request) -> web.Response:
            return web.Response(body=body, headers={"Content-Type": kind})
        return handler

    async def state(_request: web.Request) -> web.Response:
        raw = read()
        if raw is None:
            return web.Response(status=503, text="no snapshot published yet\n")
        return web.Response(body=raw, headers={"Content-Type": "application/json"})

    async def view(request: web.Request) -> web.Response:
        raw = read()
        if raw is None:
            return web.Response(status=503, text="no snapshot published yet\n")
        if raw != drawn["raw"]:
            try:
                snap = json.loads(raw)
                drawn["svg"] = draw(snap).encode()
            except (ValueError, KeyError, TypeError) as exc:
                return web.Response(status=500, text=f"the snapshot cannot be drawn: {exc}\n")
            drawn["raw"] = raw
        headers = {"Content-Type": "image/svg+xml"}
        if request.query.get("download"):
            headers["Content-Disposition"] = 'attachment; filename="mcastlab-live.svg"'
        return web.Response(body=drawn["svg"], headers=headers)

    app = web.Application(middlewares=[guard])
    for url in files:
        app.router.add_get(url, page_file(url))
    app.router.add_get("/state.json", state)
    app.router.add_get("/view.svg", view)
    return app


async def serve(app: web.Application, port: int, stop: asyncio.Event) -> None:
    """Listen on 127.0.0.1:`port` (0: any free one), say `port P` on standard output, serve
    until `stop` is set."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    try:
        site = web.TCPSite(runner, "127.0.0.1", port)
        try:
            await site.start()
        except OSError as exc:
            print(f"error: cannot listen on 127.0.0.1:{port}: {exc.strerror}", flush=True)
            return
        print(f"port {runner.addresses[0][1]}", flush=True)
        await stop.wait()
    finally:
        await runner.cleanup()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="testbed.live.server")
    p.add_argument("--dir-fd", type=int, required=True)
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args(argv)
    if os.geteuid() == 0 or os.getuid() == 0:
        print("error: the live view's server does not run as root", flush=True)
        return 2
    token = sys.stdin.readline().strip()
    try:
        app = make_app(folder_reader(args.dir_fd), token)
    except ValueError as exc:
        print(f"error: {exc}", flush=True)
        return 2
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()

    def until_eof() -> None:  # the run's process holds our input open while it lives
        with contextlib.suppress(OSError, ValueError):
            sys.stdin.read()
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=until_eof, daemon=True).start()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the prompt's Ctrl-C is not ours
    try:
        loop.run_until_complete(serve(app, args.port, stop))
    finally:
        loop.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
