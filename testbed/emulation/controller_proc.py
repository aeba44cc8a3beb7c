"""The controller as its own process: started before the switches, polled until every switch
is programmed, watched while the run goes on (`check_alive`: run_mpi asks it while a job
runs), stopped at teardown."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.config import ControllerConfig

from ..errors import ComponentDied, RunFailed, ended_text
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


def unix_listening(path: str | Path) -> bool:
    """A socket listens at the Unix socket file `path` (read from /proc/net/unix)."""
    try:
        lines = Path("/proc/net/unix").read_text().splitlines()[1:]
    except OSError:
        return False
    wanted = str(path)
    # fields: Num RefCount Protocol Flags Type St Inode Path; flags 00010000: __SO_ACCEPTCON
    return any(len(f) > 7 and f[7] == wanted and int(f[3], 16) & 0x10000
               for f in (line.split() for line in lines))


class ApiError(OSError):
    """The controller answered with an error status (its JSON `error`, if it said one)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status, self.message = status, message


class _UnixConnection(http.client.HTTPConnection):
    """HTTP over the controller's Unix socket (urllib speaks TCP only)."""

    def __init__(self, path: str | Path, timeout: float) -> None:
        super().__init__("controller", timeout=timeout)
        self.socket_path = str(path)

    def connect(self) -> None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.socket_path)
        except OSError:
            sock.close()
            raise
        self.sock = sock


def _request(api: str | Path, method: str, path: str, body: bytes | None,
             timeout: float) -> Any:
    """The JSON answer of the controller whose endpoint is the Unix socket `api`: OSError
    when nothing answers there (ApiError for an error status), ValueError when the answer
    is not JSON, http.client.HTTPException when it is not HTTP."""
    conn = _UnixConnection(api, timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
    finally:
        conn.close()
    if r.status >= 400:
        try:
            message = json.loads(data)["error"]
        except (ValueError, TypeError, KeyError):
            message = r.reason
        raise ApiError(r.status, str(message))
    return json.loads(data)


def api_get(api: str | Path, path: str = "/state", timeout: float = 5.0) -> Any:
    """GET a JSON resource from the controller's endpoint (its Unix socket `api`)."""
    return _request(api, "GET", path, None, timeout)


def group_members(api: str | Path, group: str) -> dict[str, Any]:
    """The members the controller lists in `group` (none when it knows no such group)."""
    return api_get(api, "/groups").get(group, {}).get("members", {})


def wait_members(api: str | Path, group: str, done: Callable[[set[str]], bool],
                 timeout: float) -> float | None:
    """Seconds until the members the controller lists in `group` are as `done` wants; then
    (not counted) until every switch has confirmed the flows that follow (its barriers:
    /state's `unconfirmed`), so that what is sent next meets them. None when either did not
    happen within `timeout` s of the call."""
    t0 = time.monotonic()

    def until(ok: Callable[[], bool]) -> bool:
        while not ok():
            if time.monotonic() - t0 > timeout:
                return False
            time.sleep(0.02)
        return True

    def listed() -> set[str]:
        try:
            return set(group_members(api, group))
        except (OSError, ValueError):
            return set()

    if not until(lambda: done(listed())):
        return None
    took = time.monotonic() - t0
    if not wait_confirmed(api, timeout - (time.monotonic() - t0)):
        return None
    return took


def wait_confirmed(api: str | Path, timeout: float) -> bool:
    """Until every switch has confirmed the flows the controller sent it (its barriers:
    /state's `unconfirmed` is 0), at most `timeout` s (asked once even where it is 0);
    whether they did."""
    deadline = time.monotonic() + timeout
    while api_get(api, "/state")["unconfirmed"]:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def wait_listed(api: str | Path, group: str, members: list[str], timeout: float) -> bool:
    """Until the controller lists every one of `members` in `group` (their IGMP reports
    reached it) and the switches confirmed the flows that follow, at most `timeout` s;
    whether they did."""
    return wait_members(api, group, lambda m: set(members) <= m, timeout) is not None


def api_post(api: str | Path, path: str, body: dict[str, Any], timeout: float = 5.0) -> Any:
    """POST a JSON action to the controller's endpoint (its Unix socket `api`)."""
    return _request(api, "POST", path, json.dumps(body).encode(), timeout)


class ControllerProcess:
    """The controller of one run. Its JSON endpoint is a Unix socket in the run's directory
    (`api`); its OpenFlow one too (`config.listen` a path, see `target`), unless switches on
    other servers connect (a TCP port on the cluster's address, `ofp_port`)."""

    def __init__(self, topology_file: Path, log_file: Path,
                 config: ControllerConfig | None = None) -> None:
        self.topology_file = topology_file
        self.config = config or ControllerConfig()
        self.log_file = log_file
        # a TCP port only where switches connect over TCP (across servers)
        self.ofp_port: int | None = None if self.config.unix else free_port()
        self.api = topology_file.parent / "api.sock"  # the run's own directory
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def target(self) -> str:
        """The switches' controller target (ovs-vsctl set-controller)."""
        if self.config.unix:
            return f"unix:{self.config.listen}"
        return f"{'ssl' if self.config.tls else 'tcp'}:{self.config.listen}:{self.ofp_port}"

    def listening(self) -> bool:
        """The OpenFlow socket listens (without connecting: a connection would make the
        controller log a dropped switch)."""
        if self.config.unix:
            return unix_listening(self.config.listen)
        assert self.ofp_port is not None  # a TCP port unless the switches use a Unix socket
        return tcp_listening(self.ofp_port, self.config.listen)

    def start(self, timeout: float = 30.0) -> None:
        """Start the controller; returns once its API answers and its OpenFlow port
        listens."""
        self.launch()
        self.wait_listening(timeout)

    def launch(self) -> None:
        """Start the controller process and return at once (it takes about half a second to
        listen: the caller can do other work meanwhile, then `wait_listening`)."""
        # above the emulated hosts, as the switch (testbed.emulation.priority)
        cmd = ["nice", "-n", str(CONTROLLER_NICE),
               *module("controller", "--topo", self.topology_file,
                       *(["--ofp-port", self.ofp_port] if self.ofp_port else []),
                       "--api-socket", self.api, *self.config.to_args())]
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
                api_get(self.api, "/state", timeout=1)
                if self.listening():
                    return
            except (OSError, ValueError, http.client.HTTPException):
                pass
            time.sleep(0.1)
        raise RunFailed(f"the controller did not answer and listen for switches within "
                        f"{timeout:g} s; see {self.log_file}")

    def check_alive(self) -> None:
        """ComponentDied once the launched controller has exited (a crash, a kill) while the
        run needs it: the message says how it ended and its log's last line (the log goes
        with the run's folder at teardown)."""
        if self.proc is None or self.proc.poll() is None:
            return
        last = self._last_words()
        raise ComponentDied(f"the controller (pid {self.proc.pid}) died during the run, "
                            f"{ended_text(self.proc.returncode)}"
                            + (f" (its log's last line{last})" if last else ""))

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def state(self) -> dict[str, Any]:
        return api_get(self.api, "/state")

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
            except (OSError, ValueError, http.client.HTTPException):
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
