"""A call repeated on a daemon thread while the testbed waits for something else (samplers,
progress tickers, counters answering a job's marks)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable


class Periodic:
    """Calls `tick` every `period` s between `start()` and `stop()`. Exceptions of the types
    in `ignore` (e.g. a file read while being written) skip one tick, nothing more."""

    def __init__(self, tick: Callable[[], object], period: float,
                 ignore: tuple[type[BaseException], ...] = ()) -> None:
        self.tick, self.period, self.ignore = tick, period, ignore
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout)

    def _loop(self) -> None:
        while not self._stop.wait(self.period):
            with contextlib.suppress(*self.ignore):
                self.tick()
