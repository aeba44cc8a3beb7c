"""The controller as its own process: started before the switches, polled until every switch
is programmed, stopped at teardown."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from controller.config import ControllerConfig

from ..errors import RunFailed
from ..interpreter import module
from .priority import set_autogroup

CONTROLLER_NICE = -10


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tcp_listening(port: int, ip: str | None = "127.0.0.1", pid: int | None = None) -> bool:
    """A socket listens on ip:port (IPv4; with ip None on any address, IPv6 too) in this
    network namespace, or in that of process `pid`. Read from /proc's tcp tables without
    connecting: a connection would make the controller log a dropped switch."""
    tables = ("tcp",) if ip else ("tcp", "tcp6")
    lines: list[str] = []
    for table in tables:
        with contextlib.suppress(OSError):
            proc = f"/proc/{pid}" if pid is not None else "/proc"
            lines += Path(f"{proc}/net/{table}").read_text().splitlines()[1:]
    wanted = {f"00000000:{port:04X}"}
    if ip:
        a, b, c, d = (int(x) for x in ip.split("."))
        wanted.add(f"{d:02X}{c:02X}{b:02X}{a:02X}:{port:04X}")  # the kernel prints it little-endian
    for line in lines:
        fields = line.split()
        if len(fields) > 3 and fields[3] == "0A" and (
                fields[1] in wanted if ip else fields[1].endswith(f":{port:04X}")):
            return True
    return False


def api_get(port: int, path: str = "/state", timeout: float = 5.0) -> Any:
    """GET a JSON resource from the controller's endpoint on 127.0.0.1."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as r:
        return json.loads(r.read())


def group_members(port: int, group: str) -> dict[str, Any]:
    """The members the controller lists in `group` (none when it knows no such group)."""
    return api_get(port, "/groups").get(group, {}).get("members", {})


def api_post(port: int, path: str, body: dict[str, Any], timeout: float = 5.0) -> Any:
    """POST a JSON action to the controller's endpoint on 127.0.0.1."""
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method="POST",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


class ControllerProcess:
    def __init__(self, topology_file: Path, log_file: Path,
                 config: ControllerConfig | None = None) -> None:
        self.topology_file = topology_file
        self.config = config or ControllerConfig()
        self.log_file = log_file
        self.ofp_port = free_port()
        self.api_port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30.0) -> None:
        """Start the controller; returns once its API answers and its OpenFlow port
        listens (so nobody else need check: testbed.emulation.hosts.ListeningController)."""
        self.launch()
        self.wait_listening(timeout)

    def launch(self) -> None:
        """Start the controller process and return at once (it takes about half a second to
        listen: the caller can do other work meanwhile, then `wait_listening`)."""
        # above the emulated hosts, as the switch (testbed.emulation.priority)
        cmd = ["nice", "-n", str(CONTROLLER_NICE),
               *module("controller", "--topology", self.topology_file, "--ofp-port",
                       self.ofp_port, "--api-port", self.api_port,
                       *self.config.to_args())]
        with open(self.log_file, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True,
                                         cwd=self.topology_file.parent)  # the run's own
        set_autogroup(self.proc.pid, CONTROLLER_NICE)  # its session is its own: see there

    def _last_words(self) -> str:
        """The controller log's last line, if it has one (a refusal says why there)."""
        try:
            lines = [ln for ln in Path(self.log_file).read_text(errors="replace").splitlines()
                     if ln.strip()]
        except OSError:
            return ""
        return f": {lines[-1][:300]}" if lines else ""

    def wait_listening(self, timeout: float = 30.0) -> None:
        """Return once the launched controller's API answers and its OpenFlow port listens."""
        assert self.proc is not None, "the controller was not launched"
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RunFailed(f"the controller exited at start-up (code {self.proc.returncode})"
                                f"{self._last_words()}; see {self.log_file}")
            try:
                api_get(self.api_port, "/state", timeout=1)
                if tcp_listening(self.ofp_port, self.config.listen):
                    return
            except (OSError, urllib.error.URLError, ValueError):
                pass
            time.sleep(0.1)
        raise RunFailed(f"the controller did not answer and listen for switches within "
                        f"{timeout:g} s; see {self.log_file}")

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def state(self) -> dict[str, Any]:
        return api_get(self.api_port, "/state")

    def wait_ready(self, timeout: float) -> dict[str, Any]:
        """Block until every switch is connected and its flow tables are programmed."""
        deadline = time.time() + timeout
        state: dict[str, Any] = {}
        while time.time() < deadline:
            if self.proc and self.proc.poll() is not None:
                raise RunFailed(f"the controller died (code {self.proc.returncode}); "
                                f"see {self.log_file}")
            try:
                state = self.state()
            except (OSError, urllib.error.URLError, ValueError):
                state = {}
            if state.get("ready"):
                return state
            time.sleep(0.1)
        missing = [s["name"] for s in state.get("switches", {}).values() if not s["ready"]]
        raise RunFailed(f"switches not programmed after {timeout:g} s: "
                        f"{', '.join(missing) or 'controller not answering'}; "
                        f"see {self.log_file}")

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
