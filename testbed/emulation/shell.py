"""Small helpers to run host commands with clear errors."""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import time
from collections.abc import Iterable, Sequence

from ..errors import CapabilityError, RunFailed


def run(cmd: Sequence[str], *, check: bool = True, timeout: float = 30.0,
        input: str | None = None, label: str | None = None
        ) -> subprocess.CompletedProcess[str]:
    """Run a command, capture its output; raise RunFailed naming it when it fails (as
    `label` says, say the command a wrapper such as ssh runs; default the command line)."""
    if shutil.which(cmd[0]) is None and not cmd[0].startswith("/"):
        raise CapabilityError(f"command not found: {cmd[0]} (run 'sudo make install')")
    what = label or f"'{' '.join(cmd)}'"
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout,
                              input=input)
    except subprocess.TimeoutExpired as exc:
        raise RunFailed(f"{what} did not finish within {timeout:g} s") from exc
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise RunFailed(f"{what} failed: {msg[-1] if msg else proc.returncode}")
    return proc


def ok(cmd: Sequence[str], timeout: float = 10.0) -> bool:
    """True when the command exists and exits 0."""
    try:
        return subprocess.run(list(cmd), capture_output=True, timeout=timeout).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def stop_processes(procs: Iterable[subprocess.Popen], grace: float = 5.0) -> None:
    """Ask every process still running to end (SIGTERM), give them `grace` seconds in all,
    then kill what is left; every one is reaped."""
    procs = list(procs)
    for p in procs:
        if p.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                p.terminate()
    deadline = time.monotonic() + grace
    for p in procs:
        with contextlib.suppress(subprocess.TimeoutExpired):
            p.wait(timeout=max(0.0, deadline - time.monotonic()))
    for p in procs:
        if p.poll() is None:
            p.kill()
            p.wait()
