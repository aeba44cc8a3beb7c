"""What one server says of itself, as one JSON line: its clock, the versions of everything a
run depends on, the checkout it runs from, and what it can emulate (testbed.emulation's
capabilities, and whether its kernel makes gretap tunnels). `mcastlab doctor --servers` runs
it on every server through ssh:

    .venv/bin/python -m testbed.cluster.facts
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from ..emulation.environment import detect
from ..results import versions
from .agent import gretap_works

ROOT = Path(__file__).resolve().parents[2]


def checkout() -> str:
    """The commit the checkout is at, and whether files differ from it."""
    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else ""

    head = git("rev-parse", "HEAD") or "not a git checkout"
    return head + (" (modified)" if git("status", "--porcelain", "--untracked-files=no")
                   else "")


def facts() -> dict:
    caps = detect()
    return {"time": time.time(), "root": str(ROOT), "python": sys.executable,
            "checkout": checkout(), "versions": versions(), "capabilities": caps.to_dict(),
            "gretap": gretap_works(), "problems": caps.problems()}


if __name__ == "__main__":
    print(json.dumps(facts()), flush=True)
