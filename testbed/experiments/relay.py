"""The launching server's side of a sweep_bench job (collectives.programs.sweep_bench): its
rank 0 may run on another server, so it gets its points and a fault's go-ahead on its input
and says each point's start and record on its output, never through files. A Relay feeds
the input and keeps the output lines as the files of an experiment's raw/ folder, handing
each point's record on (`record`) once it is on disk."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from collectives.programs.sweep_bench import POINT_SAID

from ..errors import RunFailed
from ..results import append_line, room


class Relay:
    """A job's rank 0, as seen from here: its input (a pipe that first carries the points)
    and its output lines, kept as the heartbeat file `beat` and the records file `out`;
    `record(rec)` is called with each raw record once it is on disk."""

    def __init__(self, out: Path, beat: Path, points: str,
                 record: Callable[[dict[str, Any]], None] | None = None) -> None:
        self.out, self.beat = out, beat
        self.record = record
        self.stdin, self._w = os.pipe()
        self._lock = threading.Lock()
        data = (points + "\n").encode()
        try:  # the points wait in the pipe for rank 0 to start
            fcntl.fcntl(self._w, fcntl.F_SETPIPE_SZ, max(len(data), 1 << 16))
            os.write(self._w, data)
        except OSError as exc:
            self.close()
            raise RunFailed(f"{len(data)} bytes of points do not fit in one job: {exc}") \
                from None

    def close(self) -> None:
        with self._lock:
            for fd in (self.stdin, self._w):
                if fd >= 0:
                    os.close(fd)
            self.stdin = self._w = -1

    def say(self, text: str) -> None:
        """A line to rank 0 (nothing once the job is over)."""
        with self._lock, contextlib.suppress(OSError):
            if self._w >= 0:
                os.write(self._w, (text + "\n").encode())

    def line(self, text: str) -> None:
        if text.startswith(POINT_SAID):
            with room(self.beat):
                self.beat.write_text(text[len(POINT_SAID):])
        elif text.startswith("{"):  # a point's raw record: on disk before the next
            try:
                rec = json.loads(text)
            except ValueError:  # not a record (a library's line that happens to start so)
                return
            if isinstance(rec, dict):
                append_line(self.out, text)
                if self.record is not None:
                    self.record(rec)
