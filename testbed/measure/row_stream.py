"""The rows a job's rank 0 prints (one JSON object a line, each with its `window` and its
ranks' `cpu`), taken as they come (run_mpi's `follow`) and judged by the fidelity monitor
over their own window: a row is handed on (`each`) the moment the monitor has a reading at
or after its end (`Monitor.through`), so an Allgather or [multinode] spec writes each
point's record as the point ends, as a broadcast condition does
(testbed.experiments.run._Arrivals), and a kill mid-job loses none written. A row the
monitor is not past yet is judged once the job is over (`judge_rest`), as every row was
before. Writing each point once is the spec runner's (testbed.experiments.points_once)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..fidelity.flags import Monitor

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
