"""The switch first: while a run is up, every thread of ovs-vswitchd runs at a higher
priority than the emulated hosts, so a rank with work (or a traffic generator) never
keeps the software switch from a core it needs. The switch's own priority is written down
before it is changed and put back at teardown; a run that was killed leaves the note
behind, and the next run (or `mcastlab cleanup`) restores from it.

Nice, not a real-time class: a real-time switch that spun would freeze a 2-core machine.
By hand on a 16-host star (nack 64 KiB, 100 Mbit/s), nice -15 on the switch took the
broadcast from about 127 ms to 43-85 ms."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from . import registry
from .errors import UsageError

SWITCH_NICE = -15
NICE_ENV = "MCASTLAB_SWITCH_NICE"  # another niceness; 0 leaves the switch alone (benchmarks)
# in registry.STATE_DIR, JSON {"pid": .., "nice": {tid: nice}}; not *.json, which is a run record
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
    return registry.STATE_DIR / NOTE


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
        note.parent.mkdir(parents=True, exist_ok=True)
        note.write_text(json.dumps({"pid": pid, "nice": old}))
    for t in threads(pid):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, t, nice)
    return pid


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
    note.unlink(missing_ok=True)


def note_exists() -> bool:
    return _note().exists()


def _read(note: Path) -> dict:
    try:
        return json.loads(note.read_text())
    except (OSError, ValueError):
        return {}
