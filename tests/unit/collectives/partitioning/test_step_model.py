"""collectives.partitioning.step_model: sends that share a link in one step are counted, per
step and in total, and a plan's cost and latency follow from them."""

from __future__ import annotations

from collections import Counter

from collectives.partitioning.grid import Torus
from collectives.partitioning.plans import (
    direct_plan,
)
from collectives.partitioning.step_model import link_totals, plan_cost, step_link_loads

from .tseng2001 import LARGE, SMALL, T_C, T_S


# ---- the step model ---------------------------------------------------------------------------
def test_model_counts_sends_sharing_a_link_in_a_step():
    ring = Torus(1, 8)
    plan = direct_plan(ring, [(0, [2]), (1, [3])])  # 0->2 and 1->3 both cross link 1->2
    assert step_link_loads(plan) == [Counter({(0, 1): 1, (1, 2): 2, (2, 3): 1})]
    cost = plan_cost(plan)
    assert (cost.steps, cost.sends, cost.link_crossings, cost.contention) == (1, 2, 4, (2,))
    assert cost.latency(SMALL, T_S, T_C) == T_S + 2 * SMALL * T_C
    lone = plan_cost(direct_plan(Torus(4, 4), [(0, [1, 2, 3])]))
    assert lone.contention == (1, 1) and lone.latency(LARGE, T_S, T_C) == 2 * (T_S + LARGE)
    assert sum(link_totals(plan).values()) == 4
