"""Small programs run inside emulated hosts (``python -m testbed.hostprogs.<name>``):
traffic sources and probes used by benchmarks and tests. Standard library only."""

import sys


def command(name: str, *args: object) -> list[str]:
    """The argv that runs host program `name` with `args` under this interpreter."""
    return [sys.executable, "-m", f"testbed.hostprogs.{name}", *map(str, args)]
