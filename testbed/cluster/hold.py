"""The launching server's end of a run's hold on another server (testbed.cluster.agent hold):
one ssh session for the whole run. Its end, asked for or not (a crash here closes the
session), makes the agent tear down everything of the run on that server."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from collections.abc import Callable
from typing import Any

from ..emulation import run_records
from ..errors import RunFailed
from ..interpreter import module
from .server import RemoteServer, remote_command

START_TIMEOUT_S = 120.0  # its run lock may be held by a run ending there
STOP_TIMEOUT_S = 120.0


class Hold:
    def __init__(self, server: RemoteServer, order: dict[str, Any],
                 progress: Callable[[str], None]) -> None:
        self.server, self.progress = server, progress
        argv = module("testbed.cluster.agent", "hold")
        self.proc = subprocess.Popen(
            [*server.ssh(), remote_command(argv, {run_records.ENV_RUN: order["run"]})],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)  # Ctrl-C here reaches us, not the session
        self._buf = b""
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(order).encode() + b"\n")
        self.proc.stdin.flush()
        self.ready = self._answer("ready", START_TIMEOUT_S)

    def release(self) -> None:
        """Ask for the teardown there and wait for it (idempotent)."""
        if self.proc.returncode is not None:
            return
        try:
            assert self.proc.stdin is not None
            self.proc.stdin.write(b"stop\n")
            self.proc.stdin.close()
            self._answer("done", STOP_TIMEOUT_S)
        except (OSError, RunFailed) as exc:
            self.progress(f"{self.server.server}: {exc}")
        finally:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def _answer(self, key: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            said = json.loads(self._line(key, timeout, deadline))
            if "progress" in said:
                self.progress(f"{self.server.server}: {said['progress']}")
            elif key in said:
                return said

    def _line(self, key: str, timeout: float, deadline: float) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise RunFailed(f"on {self.server.server}: the testbed's agent did not answer "
                                f"{key!r} within {timeout:g} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                err = (self.proc.stderr.read() if self.proc.stderr else b"").decode(
                    errors="replace").strip()
                self.proc.wait()
                raise RunFailed(f"on {self.server.server}: the testbed's agent stopped: "
                                f"{err.splitlines()[-1] if err else self.proc.returncode}")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return line
