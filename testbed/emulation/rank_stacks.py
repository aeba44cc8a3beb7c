"""Where a job's ranks were when it ran out of time: their Python stacks.

A rank runs with PYTHONFAULTHANDLER set (run_mpi puts it in the job's environment), so a
SIGABRT makes it write every thread's Python stack to its error output (faulthandler's
handler writes from the signal itself: a rank asleep in epoll or spinning inside MPI
answers too) before it dies. run_mpi sends that signal to this server's ranks of a job past
its timeout, waits a moment for hydra to bring the lines home (rank-N.err), and names the
innermost frames of each rank in its error. The rank wrapper sets `ulimit -c 0`: no core
files.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

from . import run_records

ENV = {"PYTHONFAULTHANDLER": "1"}
SAID = "Fatal Python error: Aborted"
FRAMES = 4  # innermost frames named per rank


def _is_rank(pid: int) -> bool:
    """A rank's Python (`python ... -m mpi4py ...`), not hydra's proxy or the sh wrapper."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return os.path.basename(argv[0]).startswith(b"python") and b"mpi4py" in argv


# Once some of the asked ranks have said, the others' lines follow within this long, or
# they cannot come (a rank whose host is cut off, by a fault's link down or loss, has no way
# to bring them home: waiting for it spent the whole wait_s, 3 s a failed job of a faulted
# experiment).
QUIET_S = 1.0


def ask(job_id: str, job_dir: Path, wait_s: float = 3.0, quiet_s: float = QUIET_S) -> None:
    """SIGABRT to this server's ranks of job `job_id`; returns once each one's stack is in
    its rank-N.err under `job_dir`, once no other stack came for `quiet_s` after the last
    one, or after `wait_s`."""
    ranks = [p for p in run_records.marked_processes(job_id=job_id) if _is_rank(p)]
    for pid in ranks:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGABRT)
    deadline = time.monotonic() + wait_s
    said_before, last_said = 0, 0.0
    while ranks and time.monotonic() < deadline:
        said = sum(SAID in p.read_text(errors="replace") for p in job_dir.glob("rank-*.err"))
        now = time.monotonic()
        if said >= len(ranks):
            return
        if said > said_before:
            said_before, last_said = said, now
        elif said_before and now - last_said > quiet_s:
            return
        time.sleep(0.1)

def innermost(rank_output: dict[int, str], frames: int = FRAMES) -> str:
    """Per rank that wrote its stacks, the first `frames` frames (faulthandler lists the most
    recent call first) of the thread that took the signal, or of the main thread (listed
    last) when a thread of MPI's own took it; one line per rank."""
    out = []
    for rank, text in sorted(rank_output.items()):
        if SAID not in text:
            continue
        threads: list[tuple[bool, list[str]]] = []  # (took the signal, its frames)
        for ln in text[text.find(SAID):].splitlines():
            if ln.startswith(("Current thread", "Thread ")):
                threads.append((ln.startswith("Current"), []))
            elif threads and ln.strip().startswith("File "):
                threads[-1][1].append(ln.strip())
        if threads:
            stack = next((f for current, f in threads if current), threads[-1][1])
            out.append(f"rank {rank}: " + " < ".join(stack[:frames]))
    return "\n".join(out)
