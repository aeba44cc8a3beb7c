"""A suite's measured point as its tables show it: a point is a result only if it finished
and the emulator kept up (no fidelity flag), and only results feed a ratio."""

from __future__ import annotations

from typing import Any


def is_result(p: dict[str, Any] | None) -> bool:
    """A point that is a result: it finished (`ms` set) and carries no flag."""
    return p is not None and p["ms"] is not None and not p["flags"]


def ratio(a: dict[str, Any] | None, b: dict[str, Any] | None) -> str:
    """a / b in ms, or '-' unless both are results (a flagged point feeds no ratio)."""
    if not (is_result(a) and is_result(b)):
        return "-"
    return f"{a['ms'] / b['ms']:.2f}"
