"""A job's points written as their rows come (testbed.measure.row_stream takes the rows
and judges each over its own window): `Once` writes each point of a job once, as its row
comes, or when the job ends."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from .spec import Point


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
