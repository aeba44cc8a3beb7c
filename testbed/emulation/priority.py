"""The switch first: while a run is up, every thread of ovs-vswitchd runs at a higher
priority than the emulated hosts, so a rank with work (or a traffic generator) never
keeps the software switch from a core it needs. The switch's own priority is written down
before it is changed and put back at teardown; a run that was killed leaves the note
behind, and the next run (or `mcastlab cleanup`) restores from it.

With autogroup scheduling (CONFIG_SCHED_AUTOGROUP, on in most distributions' kernels) a
thread's nice only weighs against threads of its own session: every session shares the
CPU as one group, and every MPI job and host shell is a session of its own. So the switch's
session (autogroup) is reniced too: measured on a 16-host star, 1 KiB MPI_Bcast back to
back, the switch's forwarding thread waited for a core 47 % of its time with its threads
at nice -15 and only its autogroup at 0.

Nice, not a real-time class: a real-time switch that spun would freeze a 2-core machine.
By hand on a 16-host star (nack 64 KiB, 100 Mbit/s), nice -15 on the switch took the
broadcast from about 127 ms to 43-85 ms."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from ..errors import UsageError
from . import run_records

SWITCH_NICE = -15
NICE_ENV = "MCASTLAB_SWITCH_NICE"  # another niceness; 0 leaves the switch alone (benchmarks)
# in run_records.STATE_DIR, JSON {"pid": .., "nice": {tid: nice}}; not *.json, which is a run record
NOTE = "switch-nice.state"
OVS_PIDFILE = Path("/run/openvswitch/ovs-vswitchd.pid")


def switch_pid() -> int | None:
    try:
        return int(OVS_PIDFILE.read_text().strip())
    except (OSError, ValueError):
        return None


def threads(pid: int) -> list[int]:
    try:
        return [int(t.name) for t in Path(f"/proc/{pid}/task").iterdir()]
    except OSError:
        return []


def niceness(tid: int) -> int | None:
    try:
        return os.getpriority(os.PRIO_PROCESS, tid)
    except OSError:
        return None


def _note() -> Path:
    return run_records.STATE_DIR / NOTE


def raise_switch() -> int | None:
    """Give every ovs-vswitchd thread SWITCH_NICE, noting first what each had (unless a
    note of an earlier run is still there: that one holds the originals). Returns the
    switch's pid, or None when no switch runs."""
    pid = switch_pid()
    nice = _nice()
    if pid is None or nice == 0:
        return None
    note = _note()
    if not note.exists() or _read(note).get("pid") != pid:
        old = {str(t): n for t in threads(pid) if (n := niceness(t)) is not None}
        run_records.state_dir()
        note.write_text(json.dumps({"pid": pid, "nice": old, "autogroup": autogroup(pid)}))
    for t in threads(pid):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, t, nice)
    set_autogroup(pid, nice)
    return pid


def autogroup(pid: int) -> int | None:
    """The nice of `pid`'s autogroup (None without autogroup scheduling)."""
    try:
        return int(Path(f"/proc/{pid}/autogroup").read_text().split("nice")[1])
    except (OSError, IndexError, ValueError):
        return None


def set_autogroup(pid: int, nice: int) -> None:
    """Renice `pid`'s autogroup (its session's share of the CPU), where there is one."""
    with contextlib.suppress(OSError):
        Path(f"/proc/{pid}/autogroup").write_text(str(nice))


def _nice() -> int:
    text = os.environ.get(NICE_ENV)
    if text is None:
        return SWITCH_NICE
    try:
        value = int(text)
    except ValueError:
        value = 99
    if not -20 <= value <= 19:
        raise UsageError(f"{NICE_ENV}={text!r} is not a niceness (-20..19; 0: leave the "
                         "switch's priority alone)")
    return value


def restore_switch() -> None:
    """Put back the niceness the note holds (threads started since get the default 0),
    and drop the note."""
    note = _note()
    if not note.exists():
        return
    saved = _read(note)
    pid, old = saved.get("pid"), saved.get("nice", {})
    if pid == switch_pid() and pid is not None:
        for t in threads(pid):
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, t, int(old.get(str(t), 0)))
        if saved.get("autogroup") is not None:
            set_autogroup(pid, int(saved["autogroup"]))
    note.unlink(missing_ok=True)


def note_exists() -> bool:
    return _note().exists()


def _read(note: Path) -> dict:
    try:
        return json.loads(note.read_text())
    except (OSError, ValueError):
        return {}
