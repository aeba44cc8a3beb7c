"""collectives.programs.marks: the frame bracket bcast_bench and barrier_bench share counts
each bracket's frames less the empty bracket's (read through testbed.emulation.frame_count)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from collectives.programs import marks
from testbed.emulation.frame_count import FrameCounter


# ---- the frame bracket both benchmarks share ---------------------------------------------
class _Comm:
    """One rank, the root: what count_frames asks of a communicator."""

    def Get_rank(self) -> int:  # noqa: N802 (mpi4py's name)
        return 0

    def bcast(self, obj: Any, root: int = 0) -> Any:
        return obj


class _Emu:
    def __init__(self, run_dir: Path):
        self.run_dir = run_dir


def test_every_bracket_is_counted_less_the_one_empty_bracket(tmp_path: Path,
                                                             monkeypatch) -> None:
    """Each bracket's own frames (its barrier and the root's go, 2 here) are taken off
    with the empty bracket's: barrier0 puts 3 frames a call on the wire, barrier1 5."""
    wire = {"frames": 0}

    def put(n: int) -> None:
        wire["frames"] += n

    monkeypatch.setattr(marks, "idle_barrier", lambda comm: put(1))
    monkeypatch.setattr(marks, "root_says", lambda comm, root, value: put(1))
    counter = FrameCounter(_Emu(tmp_path))
    monkeypatch.setattr(counter, "_read", lambda: ((wire["frames"], 0, 0, 0), {}))
    with counter:  # its thread answers the marks
        ok = marks.count_frames(_Comm(), 0, str(counter.dir), [
            ("barrier0", 4, lambda: put(3)), ("barrier1", 2, lambda: put(5))])
    assert ok
    assert counter.per_iteration(4, "barrier0")["sent"] == 3.0
    assert counter.per_iteration(2, "barrier1")["sent"] == 5.0
    assert counter.per_iteration(2, "bcast") is None  # no such bracket
