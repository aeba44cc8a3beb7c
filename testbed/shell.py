"""Small helpers to run host commands with clear errors."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Sequence

from .errors import CapabilityError, RunFailed


def run(cmd: Sequence[str], *, check: bool = True, timeout: float = 30.0,
        input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a command, capture its output; raise RunFailed naming it when it fails."""
    if shutil.which(cmd[0]) is None and not cmd[0].startswith("/"):
        raise CapabilityError(f"command not found: {cmd[0]} (run 'sudo make install')")
    try:
        proc = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout,
                              input=input)
    except subprocess.TimeoutExpired as exc:
        raise RunFailed(f"'{' '.join(cmd)}' did not finish within {timeout:g} s") from exc
    if check and proc.returncode != 0:
        msg = (proc.stderr or proc.stdout).strip().splitlines()
        raise RunFailed(f"'{' '.join(cmd)}' failed: {msg[-1] if msg else proc.returncode}")
    return proc


def ok(cmd: Sequence[str], timeout: float = 10.0) -> bool:
    """True when the command exists and exits 0."""
    try:
        return subprocess.run(list(cmd), capture_output=True, timeout=timeout).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False
