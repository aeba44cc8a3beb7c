"""Fault events: what an experiment spec's ``[faults]`` tables (testbed.experiments.spec)
describe and testbed.conditions.faults carries out on a running network."""

from __future__ import annotations

from dataclasses import dataclass

FAULT_ACTIONS = ("down", "up", "fail", "restore", "loss")


@dataclass(frozen=True)
class FaultEvent:
    """At `at` seconds into a point's MPI job: take `target` down or up (a host's link, or
    a link "a-b"), fail/restore a node in the controller (a contiguous range holding it is
    refused), or set `value` loss (fraction) on a host."""

    at: float
    action: str
    target: str
    value: float | None = None
