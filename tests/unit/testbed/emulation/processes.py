"""Real processes for the tests of marked processes, marked as the testbed marks its own but
under names of this test process's (the `marks` fixture puts them in place of
MCASTLAB_RUN and MCASTLAB_JOB; run_records reads the names at each call).

With the testbed's own names, they would be orphans to any `mcastlab cleanup` or
integration session beside the unit tests (cleanup kills every process that carries a run
mark of no live run, and these runs' records are in a temporary folder), and leftovers to
its checks that a run left nothing behind; with these names no run sees them."""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from pathlib import Path

from testbed.emulation import run_records

RUN_MARK = f"MCASTLAB_TEST_RUN_{uuid.uuid4().hex[:12]}"
JOB_MARK = f"MCASTLAB_TEST_JOB_{uuid.uuid4().hex[:12]}"
TESTBED_MARKS = (run_records.ENV_RUN, run_records.ENV_JOB)  # the real ones, not inherited


def environment(**marks: str) -> dict[str, str]:
    """This process's environment without the testbed's marks, with `marks` added."""
    return {**{k: v for k, v in os.environ.items() if k not in TESTBED_MARKS}, **marks}


def spawn(children: list[subprocess.Popen], cmd: list[str], **marks: str) -> subprocess.Popen:
    proc = subprocess.Popen(cmd, env=environment(**marks), stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    children.append(proc)
    return proc


def sleeper(children: list[subprocess.Popen], **marks: str) -> subprocess.Popen:
    proc = spawn(children, ["sleep", "30"], **marks)
    # Until exec, /proc/<pid>/environ still shows this process's environment.
    deadline = time.monotonic() + 5
    while Path(f"/proc/{proc.pid}/cmdline").read_bytes().split(b"\0")[0] != b"sleep":
        assert time.monotonic() < deadline, "sleep did not start"
        time.sleep(0.005)
    return proc


def dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait(timeout=5)
    assert not run_records.pid_alive(proc.pid)
    return proc.pid
