"""Progress of a long command on stderr, as `mcastlab experiment` shows it: on a terminal a
rich bar (the current point, points done of planned, elapsed and estimated time), elsewhere
(a pipe, a log) one line per step (results.step_line, the line the experiment's ticker
writes too). `Steps` is handed down as a plain callable `step(label)`: a step begins, the
one before is done; the runners below the command line (bench, reproduce, calibration)
call it without knowing how it is shown."""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any, TextIO

from ..results import step_line


def progress_bar(stream: TextIO | None = None, transient: bool = False) -> Any:
    """The rich bar of `mcastlab experiment`: description, bar, M/N, elapsed, time left."""
    # loaded when the command runs: keeps the start of `mcastlab` quick
    import rich.progress as rp
    from rich.console import Console

    console = Console(file=stream) if stream is not None else Console(stderr=True)
    return rp.Progress(rp.TextColumn("[bold]{task.description}"), rp.BarColumn(),
                       rp.MofNCompleteColumn(), rp.TimeElapsedColumn(), rp.TextColumn("left"),
                       rp.TimeRemainingColumn(), console=console, transient=transient)


class Steps:
    """`total` planned steps of a command. Calling it with a label starts the next step (the
    one before is done); leaving the `with` block without an error marks the last one done.
    On a terminal a bar, else one line per step on `stream` (default stderr)."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.done, self.started = total, 0, False
        self.stream = stream
        self.began = time.monotonic()
        out = stream if stream is not None else sys.stderr
        self.bar: Any = progress_bar(stream) if out.isatty() else None
        self.task: Any = None

    def __enter__(self) -> Steps:
        self.began = time.monotonic()
        if self.bar is not None:
            self.bar.start()
            self.task = self.bar.add_task("starting", total=self.total)
        return self

    def __call__(self, label: str) -> None:
        if self.started:
            self.done += 1
        self.started = True
        self._show(label)

    def _show(self, label: str) -> None:
        if self.bar is not None:
            self.bar.update(self.task, completed=min(self.done, self.total),
                            description=label or "done", refresh=True)
            return
        line = step_line(min(self.done, self.total), self.total, label,
                         time.monotonic() - self.began)
        print(f"mcastlab: {line}", file=self.stream or sys.stderr, flush=True)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if kind is None and self.started:
            self.done += 1
            self._show("")
        if self.bar is not None:
            self.bar.stop()
