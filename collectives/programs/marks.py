"""Marks around back-to-back collectives, for whoever counts the frames they put on the wire
(testbed.emulation.frame_count.FrameCounter reads the switches' counters at every mark):
bcast_bench and barrier_bench share one bracket, so their counts mean the same."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .. import waiting
from ..timing import idle_barrier

EMPTY = "empty"  # the bracket with no collective in it: what the brackets cost themselves
ANSWER_S = 30.0  # a mark nobody answers within this ends the counting


def root_says(comm: Any, root: int, value: bool) -> bool:
    """The root's yes/no to every rank, waiting asleep (like idle_barrier)."""
    flag = bytearray([1 if value else 0])
    waiting.wait([comm.Ibcast(flag, root=root)], mode="block")
    return bool(flag[0])


def count_frames(comm: Any, root: int, mark_dir: str,
                 brackets: Sequence[tuple[str, int, Callable[[], None]]]) -> bool:
    """For each (name, n, call) of `brackets`, `n` calls back to back between the marks
    <name>-start and <name>-end; then an empty bracket (EMPTY-start, EMPTY-end). A mark:
    the root writes MARK_DIR/<mark> and waits for MARK_DIR/<mark>.ok, which whoever counts
    the frames writes once it has read its counters. Frames per call = (frames in <name>'s
    bracket - frames in the empty one) / n. False if nobody answers a mark within ANSWER_S.

    After each mark the root releases the others (a broadcast from it), so that no rank
    sends before the counters are read: with a barrier there, the ranks that entered the
    empty bracket's first barrier while the root waited at the full bracket's end mark put
    its first messages into the full bracket alone (6 to 8 frames more on 4 hosts, measured:
    a data frame per broadcast too many over 10 broadcasts)."""
    answered = True

    def mark(name: str) -> None:
        nonlocal answered
        if comm.Get_rank() != root or not answered:
            return
        base = Path(mark_dir)
        (base / name).write_text("")
        end = time.monotonic() + ANSWER_S
        while not (base / f"{name}.ok").exists():
            if time.monotonic() > end:
                answered = False
                return
            time.sleep(0.005)

    for name, n, call in (*brackets, (EMPTY, 0, lambda: None)):
        idle_barrier(comm)
        mark(f"{name}-start")
        root_says(comm, root, True)
        for _ in range(n):
            call()
        idle_barrier(comm)
        mark(f"{name}-end")
        root_says(comm, root, True)
    return comm.bcast(answered, root=root)
