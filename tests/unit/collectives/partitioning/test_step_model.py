"""Tseng2001: network partitioning (DDN/DCN) for multi-node multicast on a torus, the U-torus
baseline, hot-spot destination sets and the contention step model. All pure.

Numbers from Tseng2001 (copied here, never read from the notes): 16x16 torus, dilation h = 2
or 4, Fig. 1 "four dilated-4 subnetworks, each as an undirected 4x4 torus, in a 16x16
torus", T_s = 30 or 300 us, T_c = 1 us per flit, |M_i| = 32 to 1024 flits, as many sources as
destinations per set (16 to 240; Figs. 2-4 use 80), hot-spot factor p = 25, 50, 80, 100 %.
"""

from __future__ import annotations

from collections import Counter

from collectives.partitioning.plans import (
    direct_plan,
)
from collectives.partitioning.step_model import link_totals, plan_cost, step_link_loads
from collectives.partitioning.torus import Torus

SIDE, T_S, T_S_SMALL, T_C = 16, 300.0, 30.0, 1.0
SMALL, LARGE = 32, 1024  # flits


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
