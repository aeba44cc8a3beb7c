"""The rows a job's rank 0 prints (one JSON object a line, each with its `window` and its
ranks' `cpu`), taken as they come (run_mpi's `follow`) and judged by the fidelity monitor
over their own window: a row is handed on (`each`) the moment the monitor has a reading at
or after its end (`Monitor.through`), so an Allgather or [multinode] spec writes each
point's record as the point ends, as a broadcast condition does
(testbed.experiments.run._Arrivals), and a kill mid-job loses none written. A row the
monitor is not past yet is judged once the job is over (`judge_rest`), as every row was
before. `Once` writes each point of a job once: as its row comes, or when the job ends."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from typing import Any

from ..fidelity.flags import Monitor
from .spec import Point

Row = dict[str, Any]


class RowStream:
    """Rank 0's rows under `mon`; `each(row)` for every row judged while the job runs (the
    row's `fidelity` then set), in the order printed."""

    def __init__(self, mon: Monitor, each: Callable[[Row], None] | None = None) -> None:
        self.mon, self.each = mon, each
        self.rows: list[Row] = []

    def line(self, text: str) -> None:
        """One line of rank 0's output (run_mpi's `follow`)."""
        if not text.startswith("{"):
            return
        try:
            row = json.loads(text)
        except ValueError:  # not a row (a library's line that happens to start so)
            return
        if not isinstance(row, dict):
            return
        self.rows.append(row)
        if self.each is not None and self.mon.through(row["window"][1]):
            self._judge(row)
            self.each(row)

    def judge_rest(self) -> list[Row]:
        """Every row, those not judged yet judged now (the job over, its monitor's last
        reading in)."""
        for row in self.rows:
            if "fidelity" not in row:
                self._judge(row)
        return self.rows

    def _judge(self, row: Row) -> None:
        row["fidelity"] = self.mon.window(*row["window"],
                                          host_wait_s=row["cpu"]["wait_per_turn_s"])


class Once:
    """A job's points, each written once by `write(point, row, error)`: as its row comes
    (`take`: the row named by `name(row)`, error None), the others when the job ends
    (`rest`)."""

    def __init__(self, points: dict[Hashable, Point], name: Callable[[Any], Hashable],
                 write: Callable[[Point, Any, str | None], None]) -> None:
        self.points, self.name, self.write = points, name, write
        self.done: set[str] = set()

    def take(self, row: Any) -> None:
        p = self.points.get(self.name(row))
        if p is not None and p.key not in self.done:
            self.done.add(p.key)
            self.write(p, row, None)

    def rest(self, rows: Mapping[Any, Any], error: str | None) -> None:
        """Every point not written yet, with its row among the job's `rows` (by name), or
        else failed with `error`."""
        for name, p in self.points.items():
            if p.key not in self.done:
                self.done.add(p.key)
                self.write(p, rows.get(name), error)
