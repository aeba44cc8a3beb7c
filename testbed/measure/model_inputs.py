"""The t_hold/t_end model's inputs for one broadcast, from a measure_params record: t_hold
at the number of back-to-back sends the broadcast's busiest node makes
(collectives.trees.inputs says why it matters here), t_end at the broadcast's hop count, and
DYN-Tree's static terms from the same figures (collectives.trees.dyntree.from_measured).

A record measured before t_hold was kept per count (no `t_hold_sends_s`) gives its one
t_hold for every count, as it was used then."""

from __future__ import annotations

from typing import Any

from collectives.trees import (
    HoldTable,
    MeasuredPointToPoint,
    below_wire,
    table_of,
    wire_s,
)
from collectives.trees import sends_for as tree_sends_for
from collectives.trees import timing as tree_timing


def hold_table(params: dict[str, Any]) -> HoldTable:
    """t_hold by size and count of sends (one count, the record's hold_sends, for an old
    record)."""
    rows = params.get("t_hold_sends_s") or [[h] for h in params["t_hold_s"]]
    return table_of(params["sizes"], rows, params["t_end_s"])


def point_to_point(params: dict[str, Any], sends: int | None = None) -> MeasuredPointToPoint:
    """t_hold(m) and t_end(m) at `sends` back-to-back sends (None: the most measured, the
    record's hold_sends)."""
    table = hold_table(params)
    return table.at(table.most if sends is None else sends)


def sends_for(algorithm: str, k: int, size: int, params: dict[str, Any],
              placement: dict[str, Any] | None = None, fragment: int | None = None) -> int:
    """collectives.trees.inputs.sends_for on a measure_params record."""
    return tree_sends_for(algorithm, k, size, hold_table(params), placement, fragment)


def timing_options(algorithm: str, size: int, params: dict[str, Any], k: int | None = None,
                   placement: dict[str, Any] | None = None) -> dict[str, float]:
    """collectives.trees.inputs.timing on a measure_params record (a dynamic tree's static
    terms where the record has the sends' software share, t_hold_software_s)."""
    return tree_timing(algorithm, size, hold_table(params), k, placement,
                       params.get("t_hold_software_s"))


def check(params: dict[str, Any], mbit: float | None) -> list[dict[str, Any]]:
    """Per size measured, t_hold at the most sends measured against the link's wire time:
    `below_wire` where the sends left faster than the link lets them (the measurement did
    not hold the link: a lone message, say). Empty without a rate (unshaped links)."""
    if not mbit:
        return []
    table = hold_table(params)
    out = []
    for size, row in zip(table.sizes, table.holds, strict=True):
        s = len(row)
        out.append({"size": size, "sends": s, "t_hold_s": row[-1],
                    "wire_s": wire_s(size, mbit),
                    "below_wire": below_wire(row[-1], s, size, mbit)})
    return out
