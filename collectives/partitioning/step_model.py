"""A contention-aware step model of multi-node multicast plans (pure).

Tseng2001 prices a contention-free unicast of L units (flits or bytes) at T_s + L * T_c over a
wormhole network with xy routing, latency independent of distance. Here a plan's sends run in
its synchronous steps; the sends of one step that cross the same directed link share its
bandwidth, so a step lasts T_s + L * T_c * c, with c the largest number of that step's sends
on any one link, and a plan lasts the sum of its steps. One-port node contention is already
in the plan (one send and one receive per node and step); this model adds link contention.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .grid import Link
from .plans import MultinodePlan


def step_link_loads(plan: MultinodePlan) -> list[Counter[Link]]:
    """Per step, how many of its sends cross each directed link."""
    loads: list[Counter[Link]] = [Counter() for _ in range(plan.steps)]
    for t in plan.transfers:
        loads[t.step].update(plan.grid.route(t.sender, t.receiver))
    return loads


@dataclass(frozen=True)
class PlanCost:
    """What the latency of a plan depends on, computed once for any message size."""

    steps: int
    sends: int
    link_crossings: int  # hops summed over all sends
    contention: tuple[int, ...]  # per step, the most sends on one link

    def latency(self, size: float, t_startup: float, t_unit: float) -> float:
        """Sum over steps of t_startup + size * t_unit * contention (units of t_*)."""
        return self.steps * t_startup + size * t_unit * sum(self.contention)

    @property
    def max_contention(self) -> int:
        return max(self.contention, default=0)


def plan_cost(plan: MultinodePlan) -> PlanCost:
    loads = step_link_loads(plan)
    return PlanCost(
        steps=plan.steps,
        sends=len(plan.transfers),
        link_crossings=sum(sum(c.values()) for c in loads),
        contention=tuple(max(c.values(), default=0) for c in loads),
    )


def link_totals(plan: MultinodePlan) -> Counter[Link]:
    """How many sends of the whole plan cross each directed link (the load balance of P1)."""
    total: Counter[Link] = Counter()
    for t in plan.transfers:
        total.update(plan.grid.route(t.sender, t.receiver))
    return total
