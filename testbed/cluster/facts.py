"""What one server says of itself, as one JSON line: its clock, the versions of everything a
run depends on, the checkout it runs from, and what it can emulate (testbed.emulation's
capabilities, and whether its kernel makes gretap tunnels). `mcastlab doctor --servers` runs
it on every server through ssh:

    .venv/bin/python -m testbed.cluster.facts
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from ..emulation.environment import detect
from ..results import git_output, git_refused, versions
from .agent import gretap_works

ROOT = Path(__file__).resolve().parents[2]


def checkout() -> str:
    """The commit the checkout is at, and whether files differ from it; git is not run
    where another user could change what it runs (testbed.results.git_refused)."""
    why = git_refused(ROOT)
    if why:
        return f"unknown: git not run ({why})"
    head = (git_output(ROOT, "rev-parse", "HEAD") or "").strip() or "not a git checkout"
    status = git_output(ROOT, "status", "--porcelain", "--untracked-files=no")
    return head + (" (modified)" if status and status.strip() else "")


def facts() -> dict:
    caps = detect()
    return {"time": time.time(), "root": str(ROOT), "python": sys.executable,
            "checkout": checkout(), "versions": versions(), "capabilities": caps.to_dict(),
            "gretap": gretap_works(), "problems": caps.problems()}


if __name__ == "__main__":
    print(json.dumps(facts()), flush=True)
