"""collectives.partitioning.step_model: sends that share a link in one step are counted, per
step and in total, on a torus's or a mesh's own routes, and a plan's cost and latency follow
from them."""

from __future__ import annotations

from collections import Counter

from collectives.partitioning.grid import Mesh, Torus
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


def test_a_mesh_routes_the_long_way_where_a_ring_wraps():
    """0 -> 7 on a 1x8 ring takes the wrap link; on a 1x8 line it crosses all seven."""
    ring, line = direct_plan(Torus(1, 8), [(0, [7])]), direct_plan(Mesh(1, 8), [(0, [7])])
    assert step_link_loads(ring) == [Counter({(0, 7): 1})]
    assert plan_cost(line).link_crossings == 7 and set(link_totals(line)) == {
        (i, i + 1) for i in range(7)}
