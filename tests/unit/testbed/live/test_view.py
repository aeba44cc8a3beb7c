"""The live view's process: the server started as a user other than root, handed only the
live folder, answering with the token at the URL printed, refusing without; stopped with
nothing left. Bad input refused before a network comes up: a port taken, aiohttp missing."""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.live.publish import Publisher
from testbed.live.view import LiveView, check_available, server_user
from topologies import parse_spec


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def uid_of(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    raise AssertionError(f"no Uid line for {pid}")


def test_the_server_runs_without_root_and_serves_the_published_snapshot(tmp_path: Path
                                                                         ) -> None:
    (tmp_path / "other.txt").write_text("SECRET")
    with LiveView(parse_spec("star:hosts=4"), None, tmp_path) as view:
        assert view.proc is not None
        pid = view.proc.pid
        assert uid_of(pid) != 0 and uid_of(pid) == server_user()[0]
        assert view.url.startswith(f"http://127.0.0.1:{view.port}/?token=")
        status, body = get(view.url.replace("/?", "/state.json?"))
        snap = json.loads(body)
        assert status == 200 and [h["name"] for h in snap["topology"]["hosts"]] == [
            "h0", "h1", "h2", "h3"]
        assert "no controller" in snap["error"]
        assert get(f"http://127.0.0.1:{view.port}/state.json")[0] == 403
        assert get(f"http://127.0.0.1:{view.port}/other.txt?token={view.token}")[0] == 404
        status, svg = get(view.url.replace("/?", "/view.svg?"))
        assert status == 200 and b'data-name="s1"' in svg
        assert (tmp_path / "live" / "state.json").stat().st_mode & 0o777 == 0o644
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(
        f"/proc/{pid}/status").read_text()
    with socket.socket() as s, pytest.raises(ConnectionRefusedError):  # nothing listens
        s.connect(("127.0.0.1", view.port))


def test_a_port_taken_is_refused_in_one_line() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        with pytest.raises(UsageError, match=rf"--web-port {port}: cannot listen on "
                                             rf"127.0.0.1:{port}: Address already in use"):
            check_available(port)
    with pytest.raises(UsageError, match="0 .any free port. to 65535"):
        check_available(70000)


def test_without_aiohttp_web_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "aiohttp" else real(name, *a))
    with pytest.raises(UsageError, match="--web needs aiohttp"):
        check_available(0)


@pytest.mark.skipif(os.geteuid() != 0, reason="whom root hands the server to")
def test_root_hands_the_server_to_the_sudo_user_else_nobody(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    monkeypatch.setenv("SUDO_UID", "1234")
    monkeypatch.setenv("SUDO_GID", "1235")
    assert server_user() == (1234, 1235)
    nobody = pwd.getpwnam("nobody")
    monkeypatch.setenv("SUDO_UID", "0")  # sudo from root: not root's own
    assert server_user() == (nobody.pw_uid, nobody.pw_gid)
    monkeypatch.delenv("SUDO_UID")
    assert server_user() == (nobody.pw_uid, nobody.pw_gid)


CONFINED = """
import os, sys
fd = int(sys.argv[1])
for what, call in (("read above", lambda: os.open("../secret", os.O_RDONLY, dir_fd=fd)),
                   ("write here", lambda: os.open("x", os.O_WRONLY | os.O_CREAT, 0o644,
                                                  dir_fd=fd))):
    try:
        call()
        print(what, "allowed")
    except PermissionError:
        print(what, "refused")
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the server's user is another only under root")
def test_through_its_folder_the_servers_user_reaches_nothing_else(tmp_path: Path) -> None:
    """What the server's user could do with the folder descriptor it is handed: not read
    the run's other files through `..` (the run folder is 0700, root's), not write in it."""
    run = tmp_path / "run"
    run.mkdir(mode=0o700)
    (run / "secret").write_text("SECRET")
    folder = Publisher(parse_spec("star:hosts=2"), None, run).folder
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        uid, gid = server_user()
        out = subprocess.run([sys.executable, "-c", CONFINED, str(fd)], pass_fds=(fd,),
                             user=uid, group=gid, extra_groups=[], capture_output=True,
                             text=True, timeout=30, cwd="/")
    finally:
        os.close(fd)
    assert out.stdout.splitlines() == ["read above refused", "write here refused"], out
