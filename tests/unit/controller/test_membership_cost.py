"""controller.membership: what one packet makes the controller check costs the same at any
number of groups and sources (issue 53): a record refused for a port's group cap at 4096
groups no more than at 4, one refused for its source cap at 1024 sources no more than at 4,
and whether a source is admitted (a new (S,G)'s packet-in) at 1024 blocked sources no more
than at 4. Each cost is the fastest of several timed batches of many calls (the fastest is
the one least disturbed by other work on the machine); the factor allowed is generous (3),
where a cost linear in the groups or sources is 10 to 100 times more."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

from controller.membership import Membership
from controller.timers import IgmpTimers

from .addresses import GROUP, sources

CALLS, BATCHES, FACTOR = 2000, 7, 3.0
NEW_GROUP, NEW_SOURCE = "239.200.0.1", "10.250.0.1"


def cost(call: Callable[[], object]) -> float:
    """Seconds per call: the fastest of BATCHES batches of CALLS calls."""
    best = float("inf")
    gc.disable()
    try:
        for _ in range(BATCHES):
            t0 = time.perf_counter()
            for _ in range(CALLS):
                call()
            best = min(best, (time.perf_counter() - t0) / CALLS)
    finally:
        gc.enable()
    return best


def joined(groups: int) -> Membership:
    """h1 in `groups` groups, its cap reached."""
    m = Membership(IgmpTimers(), max_groups=groups)
    for g in range(groups):
        assert not m.record(f"239.1.{g >> 8}.{g & 255}", "h1", "is_ex", set(), 0.0).ignored
    return m


def refused_join_cost(groups: int) -> float:
    m = joined(groups)
    assert m.record(NEW_GROUP, "h1", "is_ex", set(), 1.0).ignored == "groups_cap"
    return cost(lambda: m.record(NEW_GROUP, "h1", "is_ex", set(), 1.0))


def test_a_record_refused_for_the_group_cap_costs_the_same_at_4_and_4096_groups() -> None:
    few, many = refused_join_cost(4), refused_join_cost(4096)
    assert many <= FACTOR * few, f"{many * 1e6:.1f} us at 4096 groups, {few * 1e6:.1f} at 4"


def refused_source_cost(n: int) -> float:
    m = Membership(IgmpTimers(), max_sources=n)
    assert not m.record(GROUP, "h1", "allow", set(sources(n)), 0.0).ignored
    assert m.record(GROUP, "h1", "allow", {NEW_SOURCE}, 1.0).ignored == "sources_cap"
    return cost(lambda: m.record(GROUP, "h1", "allow", {NEW_SOURCE}, 1.0))


def test_a_record_refused_for_the_source_cap_costs_the_same_at_4_and_1024_sources() -> None:
    few, many = refused_source_cost(4), refused_source_cost(1024)
    assert many <= FACTOR * few, f"{many * 1e6:.1f} us at 1024 sources, {few * 1e6:.1f} at 4"


def admitting_cost(blocked: int) -> float:
    """h1 takes GROUP from every source but `blocked` ones (EXCLUDE mode)."""
    m = Membership(IgmpTimers())
    assert not m.record(GROUP, "h1", "is_ex", set(sources(blocked)), 0.0).ignored
    assert m.admitting(GROUP, NEW_SOURCE, 1.0) == {"h1"}
    assert m.admitting(GROUP, sources(blocked)[-1], 1.0) == frozenset()
    return cost(lambda: m.admitting(GROUP, NEW_SOURCE, 1.0))


def test_whether_a_source_is_admitted_costs_the_same_at_4_and_1024_blocked_sources() -> None:
    few, many = admitting_cost(4), admitting_cost(1024)
    assert many <= FACTOR * few, f"{many * 1e6:.1f} us at 1024 blocked, {few * 1e6:.1f} at 4"
