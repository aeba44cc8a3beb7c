"""Small programs run inside emulated hosts (``python -m testbed.hostprogs.<name>``):
traffic sources and probes used by benchmarks and tests. Standard library only."""

import signal
import time

from ..interpreter import module


def command(name: str, *args: object) -> list[str]:
    """The argv that runs host program `name` with `args` under this interpreter."""
    return module(f"testbed.hostprogs.{name}", *args)


def wait_for_stop(poll: float = 0.05) -> None:
    """Sleep until SIGTERM or SIGINT (handled from here on, so the caller can clean up)."""
    stop: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: stop.append(signum))
    signal.signal(signal.SIGINT, lambda signum, _frame: stop.append(signum))
    while not stop:
        time.sleep(poll)
