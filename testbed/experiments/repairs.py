"""A point's repair accounts (collectives.ipmc.accounting: per broadcast with completion
reports, what its repair cost the root) as its record carries them: one list per field,
aligned with the record's `samples_s`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from collectives.ipmc import joined


def point_repairs(raw: Sequence[dict[str, Any]]) -> dict[str, list[Any]] | None:
    """The accounts of a point's groups' raw records (direct timing: their samples one
    after the other, as the point's `samples_s`); None where no group's broadcasts had
    any."""
    return joined([r.get("repairs") for r in raw], [len(r["samples_s"]) for r in raw])
