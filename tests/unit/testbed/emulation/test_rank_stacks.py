"""testbed.emulation.rank_stacks on a real Python process: what faulthandler writes when a
rank is asked (SIGABRT from outside, as run_mpi asks a job past its timeout), read back."""

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

from testbed.emulation import rank_stacks

RANK = """import threading, time
def wait():
    time.sleep(30)
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
print("ready", flush=True)
wait()
"""


def test_an_asked_process_names_where_it_waited() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", RANK], env=dict(os.environ, **rank_stacks.ENV),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    resource.prlimit(proc.pid, resource.RLIMIT_CORE, (0, 0))  # its abort writes no core
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    deadline = time.monotonic() + 10  # asleep in wait(), not still on its way there
    while Path(f"/proc/{proc.pid}/task/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] \
            != "S" and time.monotonic() < deadline:
        time.sleep(0.01)
    proc.send_signal(signal.SIGABRT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGABRT and rank_stacks.SAID in err, err
    where = rank_stacks.innermost({0: "its output before\n" + err, 1: "no stack here\n"})
    assert where == 'rank 0: File "<string>", line 3 in wait < File "<string>", line 6 in <module>'


def test_without_a_current_thread_the_main_thread_is_named() -> None:
    """A thread of MPI's own (no Python thread) took the signal: no thread is marked
    current, and the main thread is the one listed last."""
    text = (f"{rank_stacks.SAID}\n\nThread 0x1 (most recent call first):\n"
            '  File "t.py", line 1 in run\n\nThread 0x2 (most recent call first):\n'
            '  File "m.py", line 9 in step\n  File "m.py", line 2 in <module>\n')
    assert rank_stacks.innermost({3: text}, frames=1) == 'rank 3: File "m.py", line 9 in step'
    assert rank_stacks.innermost({0: "MCASTLAB-EXIT 1\n"}) == ""


def test_asking_stops_once_the_reachable_ranks_have_said(tmp_path, monkeypatch) -> None:
    """Two ranks asked, one of them cut off (its stack never comes home): ask returns
    `quiet_s` after the other's stack, not after the whole wait; with no stack at all it
    waits the whole `wait_s`. (Pids above the kernel's maximum: no process gets the signal.)"""
    gone = [4194304 + 1, 4194304 + 2]
    monkeypatch.setattr(rank_stacks.run_records, "marked_processes", lambda job_id: gone)
    monkeypatch.setattr(rank_stacks, "_is_rank", lambda pid: True)
    t0 = time.monotonic()
    rank_stacks.ask("job", tmp_path, wait_s=0.6, quiet_s=0.2)
    assert time.monotonic() - t0 >= 0.6  # nobody said: the whole wait
    (tmp_path / "rank-0.err").write_text(f"{rank_stacks.SAID}\n")
    t0 = time.monotonic()
    rank_stacks.ask("job", tmp_path, wait_s=20, quiet_s=0.2)
    assert 0.2 <= time.monotonic() - t0 < 5
