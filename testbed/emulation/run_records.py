"""What a run has created, written down before it is created, so that teardown, and
``mcastlab cleanup`` after a crash or SIGKILL, can remove all of it.

Every process the testbed starts (host shells, controller, mpiexec, hydra proxies, ranks,
traffic generators) inherits ``MCASTLAB_RUN=<run id>`` in its environment; cleanup finds
processes by that mark, whatever namespace they run in.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import stat
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

from ..errors import McastlabError

STATE_DIR = Path(os.environ.get("MCASTLAB_STATE_DIR", "/run/mcastlab"))
# Open vSwitch connects to a controller's Unix socket only below its own run directory
# (spelled so: "/run/openvswitch" would not do), lest a database write aim it at any socket
OVS_RUNDIR = Path(os.environ.get("OVS_RUNDIR", "/var/run/openvswitch"))
SOCKETS_PREFIX = "mcastlab-"
STATE_MODE = 0o700  # the run records, the run lock, the runs' own directories: root's only
ENV_RUN = "MCASTLAB_RUN"
ENV_JOB = "MCASTLAB_JOB"


@dataclass
class RunRecord:
    id: str
    pid: int
    started: float
    run_dir: str
    topology: str = ""
    bridges: list[str] = field(default_factory=list)  # the switches: OVS or kernel bridges
    interfaces: list[str] = field(default_factory=list)
    cgroups: list[str] = field(default_factory=list)  # CPU-limited hosts' (cgdelete specs)
    controller_pid: int | None = None
    ofp_port: int | None = None
    api_socket: str | None = None  # the controller's JSON endpoint (a Unix socket)
    # when the testbed process started (clock ticks after boot): a PID the kernel has given
    # to another process since is not this run's (None: a record of before 2026-11-27)
    pid_start: int | None = None
    # across servers: each tunnel's VNI (gretap key) by link number, drawn for the run
    tunnels: dict[str, int] = field(default_factory=dict)

    @property
    def path(self) -> Path:
        return STATE_DIR / f"{self.id}.json"

    def save(self) -> None:
        state_dir()
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=1))
        tmp.replace(self.path)

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)

    def alive(self) -> bool:
        return pid_alive(self.pid) and (self.pid_start is None
                                        or start_time(self.pid) == self.pid_start)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sockets_dir(run_id: str) -> Path:
    """The folder of a run's OpenFlow socket (the controller makes it, 0700)."""
    return OVS_RUNDIR / f"{SOCKETS_PREFIX}{run_id}"


def state_dir() -> Path:
    """STATE_DIR, made if missing, as a directory of this user's that nobody else may enter
    (mode STATE_MODE): whoever could open the run lock could hold it for ever, and whoever
    could write a run record could name the bridges and processes cleanup removes. One that
    is a symbolic link, not a directory, or another user's is refused."""
    STATE_DIR.mkdir(mode=STATE_MODE, parents=True, exist_ok=True)
    st = os.lstat(STATE_DIR)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        raise McastlabError(f"{STATE_DIR} is not a directory of this user's (a link, a file "
                            "or another user's): refusing to keep run state there; remove "
                            "it, or set MCASTLAB_STATE_DIR")
    if stat.S_IMODE(st.st_mode) != STATE_MODE:
        os.chmod(STATE_DIR, STATE_MODE)
    return STATE_DIR


def records() -> list[RunRecord]:
    out = []
    known = {f.name for f in fields(RunRecord)}
    for p in sorted(STATE_DIR.glob("*.json")):
        try:  # a record of an older version may hold fields no longer kept (api_port)
            out.append(RunRecord(**{k: v for k, v in json.loads(p.read_text()).items()
                                    if k in known}))
        except (OSError, ValueError, TypeError, AttributeError):
            p.unlink(missing_ok=True)  # a half-written record of a crashed run
    return out


def active_run() -> RunRecord | None:
    """The record of a run whose testbed process is still alive, if any."""
    return next((r for r in records() if r.alive() and r.pid != os.getpid()), None)


def new_run(run_dir: str, topology: str) -> RunRecord:
    """Register a new run; one run at a time (switch and host names would clash)."""
    other = active_run()
    if other is not None:
        raise McastlabError(
            f"another mcastlab run is active (run {other.id}, pid {other.pid}); "
            "wait for it or stop it, then 'sudo mcastlab cleanup'")
    run_id = time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}"
    rec = RunRecord(id=run_id, pid=os.getpid(), started=time.time(), run_dir=run_dir,
                    topology=topology, pid_start=start_time(os.getpid()))
    rec.save()
    return rec


# ---- processes, found by the environment mark ---------------------------------------------
def _environ(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    env = {}
    for item in raw.split(b"\0"):
        k, sep, v = item.partition(b"=")
        if sep and k in (ENV_RUN.encode(), ENV_JOB.encode()):
            env[k.decode()] = v.decode(errors="replace")
    return env


def run_of(pid: int) -> str | None:
    """The run mark of a process, if any."""
    return _environ(pid).get(ENV_RUN)


def job_of(pid: int) -> str | None:
    """The MPI/traffic job mark of a process, if any."""
    return _environ(pid).get(ENV_JOB)


def _ancestors() -> set[int]:
    pids, pid = set(), os.getpid()
    while pid > 1:
        pids.add(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return pids


def _pid_namespace(pid: int | str) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return None


def _marked(env: dict[str, str], run_id: str | None, job_id: str | None) -> bool:
    """Whether a process's marks are the job's (when job_id is given), else the run's (any
    run's when run_id is None)."""
    if job_id is not None:
        return env.get(ENV_JOB) == job_id
    return ENV_RUN in env and run_id in (None, env[ENV_RUN])


def marked_processes(run_id: str | None = None, job_id: str | None = None) -> list[int]:
    """PIDs carrying the run mark (any run when run_id is None), or a job's mark; only
    processes of this machine's PID namespace (emulated hosts share it): another server
    of a cluster on the same kernel (testbed.cluster.rig) has its own, and its own cleanup."""
    mine, ns = _ancestors(), _pid_namespace("self")
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        if _marked(_environ(int(entry.name)), run_id, job_id) and \
                _pid_namespace(entry.name) == ns:
            found.append(int(entry.name))
    return sorted(found)


def start_time(pid: int) -> int | None:
    """When a process started, in clock ticks after boot (proc(5) stat field 22); None if it
    is gone. With the PID it names one process: PIDs are reused, this pair is not."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return None


KILL_WAIT_S = 5.0  # how long a SIGKILLed process may take to end before teardown goes on


def kill_marked(run_id: str | None = None, job_id: str | None = None,
                where: Callable[[int], bool] | None = None, grace: float = 1.0) -> None:
    """End the processes that carry the run's mark (any run's when run_id is None) or the
    job's, and pass `where`: SIGTERM and SIGHUP (interactive shells ignore SIGTERM), then
    SIGKILL whatever is left after `grace` seconds. Each is pinned with a pidfd, then its
    mark read again and `where` asked, before any signal: a PID that ended and was given to
    another process between the scan and the signal is never signalled (signals go to the
    pidfd), and `where` judges the process as it is once pinned (cleanup reads then whether
    its run is alive)."""
    pinned: list[int] = []
    for pid in marked_processes(run_id, job_id):
        try:
            fd = os.pidfd_open(pid)
        except OSError:  # gone
            continue
        if _marked(_environ(pid), run_id, job_id) and (where is None or where(pid)):
            pinned.append(fd)
        else:
            os.close(fd)
    try:
        for fd in pinned:
            for sig in (signal.SIGTERM, signal.SIGHUP):
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(fd, sig)
        deadline = time.monotonic() + grace
        alive = pinned
        while alive and (left := deadline - time.monotonic()) > 0:
            select.select(alive, [], [], left)  # a pidfd reads ready once its process ends
            alive = [fd for fd in alive if not select.select([fd], [], [], 0)[0]]
        for fd in alive:
            with contextlib.suppress(ProcessLookupError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        # a killed process takes a moment to end (one in the middle of a system call, or
        # exiting with much to free): return once it has, so that nothing of the run is
        # found after its teardown (a test saw a rank still there right after, once)
        deadline = time.monotonic() + KILL_WAIT_S
        while alive and (left := deadline - time.monotonic()) > 0:
            select.select(alive, [], [], left)
            alive = [fd for fd in alive if not select.select([fd], [], [], 0)[0]]
    finally:
        for fd in pinned:
            os.close(fd)
