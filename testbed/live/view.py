"""The live view of a network that is up: the publisher thread (publish.py) and the server
process (server.py), started together and stopped together (``LiveView``, a context
manager: the prompt's end, an error or Ctrl-C stop both; the server also ends by itself
when this process is gone, as its standard input closes).

The server runs as the user who called sudo (SUDO_UID), else as ``nobody``: never as root.
It is handed a descriptor of the run's ``live/`` folder (and nothing else of the run), the
token on its standard input (never on a command line, which every user can read), and a
minimal environment; it runs in a session of its own, so a Ctrl-C at the prompt is not
its."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import pwd
import secrets
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from topologies.model import Topology

from ..emulation.run_records import ENV_RUN
from ..emulation.shell import stop_processes
from ..errors import McastlabError, UsageError
from ..safepath import open_output, opened_folder, sudo_uid
from .publish import Publisher
from .snapshot import Loss

START_TIMEOUT = 30.0  # s for the server to import aiohttp and listen
PROJECT = Path(__file__).resolve().parents[2]  # the folder holding testbed/


def check_available(port: int) -> None:
    """Refuse --web before any network comes up where it could not work: aiohttp missing,
    or the port asked for taken."""
    if importlib.util.find_spec("aiohttp") is None:
        raise UsageError("--web needs aiohttp, which is not installed: run scripts/install.sh "
                         "(or pip install 'mcastlab[web]')")
    if not 0 <= port <= 65535:
        raise UsageError(f"--web-port must be 0 (any free port) to 65535, got {port}")
    if port:
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError as exc:
                raise UsageError(f"--web-port {port}: cannot listen on 127.0.0.1:{port}: "
                                 f"{exc.strerror}") from None


def server_user() -> tuple[int, int]:
    """(uid, gid) the server runs as: who called sudo (safepath.sudo_uid), else nobody;
    without root, oneself."""
    if os.geteuid() != 0:
        return os.getuid(), os.getgid()
    uid = sudo_uid()
    if uid is not None:
        gid = os.environ.get("SUDO_GID", "")
        try:
            return uid, int(gid) if gid.isdigit() else pwd.getpwuid(uid).pw_gid
        except KeyError:
            pass  # a uid without an account: nobody then
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        raise McastlabError("no user 'nobody' to run the live view's server as") from None
    return nobody.pw_uid, nobody.pw_gid


class LiveView:
    """Publisher and server for the network `topo`, whose controller answers at `api`
    (None: no controller), whose run folder is `run_dir`; `port` 0 takes a free one; `loss`
    says the loss set at run time (Emulation.loss.current); `ranges`: contiguous mode (range
    addresses name node ranges)."""

    def __init__(self, topo: Topology, api: str | Path | None, run_dir: Path,
                 port: int = 0, loss: Callable[[], Loss] | None = None,
                 ranges: bool = False) -> None:
        self.publisher = Publisher(topo, api, run_dir, loss=loss, ranges=ranges)
        self.run_dir, self.port_asked = run_dir, port
        self.token = secrets.token_urlsafe(24)
        self.port = 0
        self.proc: subprocess.Popen[str] | None = None
        self._fd: int | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/?token={self.token}"

    def __enter__(self) -> LiveView:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        self.publisher.start()
        with opened_folder("live", self.publisher.folder) as fd:
            self._fd = os.dup(fd)
        uid, gid = server_user()
        who: dict[str, Any] = {}
        if os.geteuid() == 0:
            who = {"user": uid, "group": gid, "extra_groups": []}
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONPATH": str(PROJECT),
               "PYTHONDONTWRITEBYTECODE": "1"}
        if ENV_RUN in os.environ:  # the run's mark: its cleanup finds the server too
            env[ENV_RUN] = os.environ[ENV_RUN]
        with open_output("live", self.run_dir / "live-server.log") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-s", "-m", "testbed.live.server", "--dir-fd", str(self._fd),
                 "--port", str(self.port_asked)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True,
                pass_fds=(self._fd,), cwd="/", env=env, start_new_session=True, **who)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(self.token + "\n")
        self.proc.stdin.flush()
        line = _first_line(self.proc.stdout, START_TIMEOUT)
        if not line.startswith("port "):
            why = line.removeprefix("error: ") or _tail(self.run_dir / "live-server.log")
            raise McastlabError(f"the live view's server did not start: {why}")
        self.port = int(line.split()[1])

    def stop(self) -> None:
        """Idempotent: the publisher stops, the server is asked to end (then killed)."""
        self.publisher.stop()
        if self.proc is not None:
            with contextlib.suppress(OSError):
                if self.proc.stdin:
                    self.proc.stdin.close()
            stop_processes([self.proc], grace=5.0)
            if self.proc.stdout:
                self.proc.stdout.close()
            self.proc = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _first_line(stream: IO[str], timeout: float) -> str:
    """The first line the server writes, or "" if it writes none in time (or ends)."""
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        if select.select([stream], [], [], left)[0]:
            return stream.readline().strip()
    return ""


def _tail(log: Path) -> str:
    with contextlib.suppress(OSError):
        lines = log.read_text(errors="replace").strip().splitlines()
        if lines:
            return lines[-1]
    return f"no answer in {START_TIMEOUT:g} s (see {log})"
