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
import signal
import stat
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..errors import McastlabError

STATE_DIR = Path(os.environ.get("MCASTLAB_STATE_DIR", "/run/mcastlab"))
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
    api_port: int | None = None

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
        return pid_alive(self.pid)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


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
    for p in sorted(STATE_DIR.glob("*.json")):
        try:
            out.append(RunRecord(**json.loads(p.read_text())))
        except (OSError, ValueError, TypeError):
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
                    topology=topology)
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


def marked_processes(run_id: str | None = None, job_id: str | None = None) -> list[int]:
    """PIDs carrying the run mark (any run when run_id is None), or a job's mark; only
    processes of this machine's PID namespace (emulated hosts share it): another server
    of a cluster on the same kernel (testbed.cluster.rig) has its own, and its own cleanup."""
    mine, ns = _ancestors(), _pid_namespace("self")
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        env = _environ(int(entry.name))
        if job_id is not None:
            hit = env.get(ENV_JOB) == job_id
        else:
            hit = ENV_RUN in env and (run_id is None or env[ENV_RUN] == run_id)
        if hit and _pid_namespace(entry.name) == ns:
            found.append(int(entry.name))
    return sorted(found)


def kill_processes(pids: list[int], grace: float = 1.0) -> None:
    """SIGTERM and SIGHUP (interactive shells ignore SIGTERM), then SIGKILL whatever is
    left after `grace` seconds."""
    alive = []
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
            os.kill(pid, signal.SIGHUP)
            alive.append(pid)
        except ProcessLookupError:
            pass
    deadline = time.time() + grace
    while alive and time.time() < deadline:
        alive = [p for p in alive if _running(p)]
        time.sleep(0.02)
    for pid in alive:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _running(pid: int) -> bool:
    """Alive and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
