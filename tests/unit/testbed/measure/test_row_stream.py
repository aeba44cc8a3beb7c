"""Rows taken as they come, without a network: a row the monitor is past is judged and
handed on at once, one it is not waits for the job's end."""

from __future__ import annotations

from typing import Any

from testbed.measure.row_stream import RowStream


class Readings:
    """A stand-in for the fidelity monitor: readings up to `now`; a window is judged by
    whether the readings enclose it."""

    def __init__(self, now: float) -> None:
        self.now = now

    def through(self, t: float) -> bool:
        return self.now >= t

    def window(self, t0: float, t1: float, host_wait_s: float | None = None
               ) -> dict[str, Any]:
        return {"ok": self.now >= t1, "flags": [], "judged_at": self.now}


def _row(size: int, end: float) -> str:
    return f'{{"size": {size}, "window": [0.5, {end}], "cpu": {{"wait_per_turn_s": 0.0}}}}'


def test_a_row_is_handed_on_once_the_monitor_is_past_its_end() -> None:
    mon = Readings(now=1.0)
    handed: list[dict[str, Any]] = []
    stream = RowStream(mon, handed.append)  # type: ignore[arg-type]
    for text in ["warming up", _row(1, 0.9), "{not json", "[1]", _row(2, 1.5)]:
        stream.line(text)
    assert [r["size"] for r in handed] == [1]  # the second ends after the last reading
    assert handed[0]["fidelity"] == {"ok": True, "flags": [], "judged_at": 1.0}
    mon.now = 2.0  # the job over, the monitor's last reading in
    rows = stream.judge_rest()
    assert [r["size"] for r in rows] == [1, 2]
    assert rows[0]["fidelity"]["judged_at"] == 1.0  # judged once, not again
    assert rows[1]["fidelity"] == {"ok": True, "flags": [], "judged_at": 2.0}
    quiet = RowStream(mon)  # type: ignore[arg-type]  # no `each`: every row at the end
    quiet.line(_row(1, 0.9))
    assert "fidelity" not in quiet.rows[0] and quiet.judge_rest()[0]["fidelity"]
