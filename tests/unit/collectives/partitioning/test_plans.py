"""collectives.partitioning.plans: U-torus and U-mesh, the partitioned (DDN/DCN) plans and
their DDN choice on tori and meshes (where the direct scheme is U-mesh), and the invariants
of every plan; then Tseng2001's claims in the step
model (16x16 torus, 80 sources of 80 destinations), including where the model disagrees for
small messages."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest

from collectives.partitioning.grid import Mesh, Partition, Torus
from collectives.partitioning.hotspot_sets import HOT_SPOT_FACTORS, hotspot_multicasts
from collectives.partitioning.plans import (
    MultinodePlan,
    Transfer,
    choose_ddns,
    direct_name,
    direct_plan,
    multicasts,
    partitioned_plan,
    u_grid,
    u_mesh,
    u_torus,
)
from collectives.partitioning.step_model import plan_cost

from .tseng2001 import LARGE, SMALL, SOURCES, T16, T_C, T_S, T_S_SMALL


# ---- trees ----------------------------------------------------------------------------------
def _steps(tree) -> int:
    return max((d for *_, d in tree), default=-1) + 1


@pytest.mark.parametrize("k", [1, 2, 3, 7, 8, 20, 63])
def test_u_torus_and_u_mesh_reach_everyone_once_in_log_steps(k):
    rng = random.Random(k)
    t = Torus(8, 8)
    root = rng.randrange(64)
    dests = rng.sample([n for n in range(64) if n != root], k)
    for fn in (u_torus, u_mesh):
        tree = fn(t, root, dests)
        assert sorted(r for _, r, _ in tree) == sorted(dests)
        assert _steps(tree) == math.ceil(math.log2(k + 1))
        held = {root}
        for s, r, _ in tree:  # in depth order a sender already holds
            assert s in held
            held.add(r)
        per_step = Counter((s, d) for s, _, d in tree)
        assert max(per_step.values()) == 1  # one-port


def test_u_torus_orders_relative_to_the_root_column_first():
    t = Torus(4, 4)
    # 0 -> {1, 2, 3} along row 0: 0 sends to 2, then 0 -> 1 and 2 -> 3
    assert sorted(u_torus(t, 0, [1, 2, 3])) == [(0, 1, 1), (0, 2, 0), (2, 3, 1)]
    # relative to root 3 the row wraps: 3, 0, 1, 2
    assert sorted(u_torus(t, 3, [0, 1, 2])) == [(1, 2, 1), (3, 0, 1), (3, 1, 0)]
    # column first: from 0, row 1's node 4 comes before row 0's node 1
    assert sorted(u_torus(t, 0, [1, 4])) == [(0, 1, 0), (0, 4, 1)]


def test_u_mesh_inside_a_block_is_contention_free():
    # McKinley's theorem for a dimension-ordered chain on a mesh: no step shares a link
    t = Torus(16, 16)
    region = [t.node(r, c) for r in range(8) for c in range(8)]
    for seed in range(40):
        rng = random.Random(seed)
        tree = u_mesh(t, rng.choice(region), rng.sample(region, rng.randrange(1, 64)))
        for d in range(_steps(tree)):
            links = Counter(itertools.chain(*(t.route(s, r) for s, r, dd in tree if dd == d)))
            assert max(links.values()) == 1


def test_on_a_mesh_the_direct_scheme_is_u_mesh_and_contention_free_alone():
    m, t = Mesh(4, 4), Torus(4, 4)
    assert (direct_name(m), direct_name(t)) == ("u-mesh", "u-torus")
    assert u_grid(m, 3, [0, 1, 2]) == u_mesh(m, 3, [0, 1, 2])
    assert u_grid(t, 3, [0, 1, 2]) == u_torus(t, 3, [0, 1, 2])
    # absolute order 0, 1, 2, 3 from root 3: 3 -> 1 first, not U-torus's 3 -> 1 over a wrap
    assert sorted(u_mesh(m, 3, [0, 1, 2])) == [(1, 0, 1), (3, 1, 0), (3, 2, 1)]
    for seed in range(20):
        rng = random.Random(seed)
        big = Mesh(8, 8)
        root = rng.randrange(64)
        plan = direct_plan(big, [(root, rng.sample(range(64), rng.randrange(1, 64)))])
        assert plan_cost(plan).max_contention == 1  # McKinley: one multicast shares no link


def test_a_mesh_ddn_multicast_is_u_mesh_on_the_ddn():
    """Phase 2 on a mesh: U-mesh over DDN_a's nodes, whose sends stay on DDN_a's links and
    share none within a step (a DDN of a mesh is a dilated mesh)."""
    m = Mesh(8, 8)
    part = Partition(m, 2)
    for seed in range(20):
        rng = random.Random(seed)
        pairs = [(rng.randrange(64), rng.sample(range(64), rng.randrange(8, 40)))]
        plan = partitioned_plan(part, pairs, "balanced", seed)
        a = plan.ddns[0]
        twos = [x for x in plan.transfers if x.phase == 2]
        for step in {x.step for x in twos}:
            links = Counter(itertools.chain(*(m.route(x.sender, x.receiver) for x in twos
                                              if x.step == step)))
            assert max(links.values()) == 1 and set(links) <= part.ddn_links(a)


# ---- a worked partitioned plan ----------------------------------------------------------------
def test_worked_example_on_8x8_with_dilation_4():
    """Source (1,2) to (0,0), (0,1), (5,6). Balanced choice: all DDNs unused, nearest node to
    the source: DDN_1's (1,1) and DDN_2's (2,2) at 1 hop, the lower DDN wins. Blocks hit: 0 and
    3, whose DDN_1 nodes are (1,1) = the representative and (5,5)."""
    t = Torus(8, 8)
    plan = partitioned_plan(Partition(t, 4), [(10, [0, 1, 46])], "balanced")
    assert plan.ddns == (1,) and plan.representatives == (9,)
    assert plan.transfers == (
        Transfer(0, 0, 10, 10, 9, 1),   # phase 1: source to representative
        Transfer(1, 0, 10, 9, 45, 2),   # phase 2: on DDN_1 to block 3's node
        Transfer(2, 0, 10, 9, 1, 3),    # phase 3, block 0: U-mesh chain 0, 1, 9
        Transfer(2, 0, 10, 45, 46, 3),  # phase 3, block 3
        Transfer(3, 0, 10, 1, 0, 3),
    )
    assert plan_cost(plan).latency(SMALL, T_S, T_C) == 4 * (T_S + SMALL * T_C)


def test_partition_with_dilation_1_is_u_torus_behind_one_unicast():
    t = Torus(8, 8)
    plan = partitioned_plan(Partition(t, 1), [(9, range(64))], "random")
    direct = direct_plan(t, [(9, range(64))])
    assert plan.representatives == (9,)  # every node is in DDN_0, the source is nearest
    assert [(x.sender, x.receiver, x.step) for x in plan.transfers] == \
        [(x.sender, x.receiver, x.step) for x in direct.transfers]
    assert {x.phase for x in plan.transfers} == {2}  # one-node blocks need no phase 3


# ---- invariants of every plan -----------------------------------------------------------------
def _workloads():
    for seed, (rows, cols, h) in enumerate([(8, 8, 2), (8, 8, 4), (8, 8, 8), (12, 8, 4),
                                            (6, 6, 3), (16, 16, 4)]):
        t = Torus(rows, cols)
        rng = random.Random(seed)
        m = rng.randrange(4, 30)
        pairs = [(rng.randrange(t.size), rng.sample(range(t.size), rng.randrange(1, t.size)))
                 for _ in range(m)]  # sources may repeat and may list themselves
        yield t, direct_plan(t, pairs)
        for choice in ("random", "balanced"):
            yield t, partitioned_plan(Partition(t, h), pairs, choice, seed)
    for seed, (rows, cols, h) in enumerate([(8, 8, 2), (6, 9, 3), (4, 4, 4)], 10):
        t = Mesh(rows, cols)
        rng = random.Random(seed)
        pairs = [(rng.randrange(t.size), rng.sample(range(t.size), rng.randrange(1, t.size)))
                 for _ in range(rng.randrange(4, 20))]
        yield t, direct_plan(t, pairs)
        for choice in ("random", "balanced"):
            yield t, partitioned_plan(Partition(t, h), pairs, choice, seed)


PLANS = list(_workloads())


@pytest.mark.parametrize("t,plan", PLANS, ids=lambda x: getattr(x, "scheme", None))
def test_every_send_runs_on_the_grids_own_links(t, plan):
    """A mesh plan never routes over a wrap link a mesh lacks; the direct scheme's name
    says which tree it uses."""
    links = t.links()
    for x in plan.transfers:
        assert set(t.route(x.sender, x.receiver)) <= links
    if plan.scheme != "partitioned":
        assert plan.scheme == ("u-torus" if isinstance(t, Torus) else "u-mesh")


@pytest.mark.parametrize("t,plan", PLANS, ids=lambda x: getattr(x, "scheme", None))
def test_every_destination_receives_exactly_once_after_its_sender_did(t, plan):
    assert list(plan.transfers) == sorted(plan.transfers)
    got: dict[tuple[int, int], Transfer] = {}
    for x in plan.transfers:
        mc = plan.multicasts[x.multicast]
        assert x.source == mc.source and x.sender != x.receiver
        assert (x.multicast, x.receiver) not in got, "received twice"
        assert x.receiver != mc.source
        if x.sender != mc.source:
            before = got[(x.multicast, x.sender)]  # the sender received first ...
            assert before.step < x.step
            assert before.phase <= x.phase  # ... in the same or an earlier phase
        got[(x.multicast, x.receiver)] = x
    for i, mc in enumerate(plan.multicasts):
        assert mc.source not in mc.destinations
        assert set(mc.destinations) <= {r for (j, r) in got if j == i}


@pytest.mark.parametrize("t,plan", PLANS, ids=lambda x: getattr(x, "scheme", None))
def test_one_port_each_node_sends_and_receives_once_per_step(t, plan):
    for step in range(plan.steps):
        xs = [x for x in plan.transfers if x.step == step]
        assert xs, "no idle step"
        assert len({x.sender for x in xs}) == len(xs)
        assert len({x.receiver for x in xs}) == len(xs)


@pytest.mark.parametrize("t,plan", [p for p in PLANS if p[1].scheme == "partitioned"],
                         ids=lambda x: getattr(x, "choice", None))
def test_phases_follow_the_partition(t, plan):
    part = Partition(t, plan.dilation)
    for i, mc in enumerate(plan.multicasts):
        a, rep = plan.ddns[i], plan.representatives[i]
        assert part.ddn_of(rep) == a
        xs = [x for x in plan.transfers if x.multicast == i]
        ones = [x for x in xs if x.phase == 1]
        assert [(x.sender, x.receiver) for x in ones] == ([] if rep == mc.source else
                                                          [(mc.source, rep)])
        twos = [x for x in xs if x.phase == 2]
        for x in twos:
            assert part.ddn_of(x.sender) == part.ddn_of(x.receiver) == a
            assert set(t.route(x.sender, x.receiver)) <= part.ddn_links(a)
        # phase 2 reaches DDN_a's node in every block with a destination, and only those
        blocks = {part.block_of(d) for d in mc.destinations}
        heads = {part.member(a, b) for b in blocks}
        assert {x.receiver for x in twos} == heads - {mc.source, rep}
        assert len(heads) <= len(mc.destinations)  # |D'_i| <= |D_i|
        for x in xs:
            if x.phase == 3:
                assert part.block_of(x.sender) == part.block_of(x.receiver)
                assert x.receiver in mc.destinations


def test_program_lists_a_nodes_sends_and_receives_by_step():
    t, plan = PLANS[2]
    for node in range(t.size):
        prog = plan.program(node)
        assert [x.step for x in prog] == sorted(x.step for x in prog)
        assert set(prog) == {x for x in plan.transfers if node in (x.sender, x.receiver)}


def test_a_source_in_its_own_set_is_dropped():
    assert multicasts(Torus(4, 4), [(3, [3, 1, 1, 2])])[0].destinations == (1, 2)
    with pytest.raises(ValueError, match="node must be in 0..15"):
        multicasts(Torus(4, 4), [(3, [16])])


# ---- DDN choice (phase 1) -------------------------------------------------------------------
def test_balanced_choice_spreads_sources_over_ddns_and_representatives():
    part = Partition(T16, 4)
    for count in (16, 80, 81, 240):
        mcs = multicasts(T16, hotspot_multicasts(T16, count, 16, 0.5, seed=count))
        ddns, reps = choose_ddns(part, mcs, "balanced")
        per_ddn = Counter(ddns)
        assert max(per_ddn.values()) - min(per_ddn[a] for a in range(4)) <= 1
        for a in range(4):
            used = Counter(r for r, d in zip(reps, ddns, strict=True) if d == a)
            loads = [used[n] for n in part.ddn_nodes(a)]
            assert max(loads) - min(loads) <= 1
    # 80 sources over 4 DDNs of 16 nodes: 20 each, so every node represents 1 or 2
    mcs = multicasts(T16, hotspot_multicasts(T16, 80, 80, 0.25, seed=1))
    ddns, reps = choose_ddns(part, mcs, "balanced")
    assert Counter(ddns) == {0: 20, 1: 20, 2: 20, 3: 20}
    assert set(Counter(reps).values()) <= {1, 2}


def test_random_choice_is_seeded_and_picks_the_nearest_node_of_its_ddn():
    part = Partition(T16, 4)
    mcs = multicasts(T16, hotspot_multicasts(T16, 80, 80, 0.5, seed=3))
    first = choose_ddns(part, mcs, "random", seed=7)
    assert first == choose_ddns(part, mcs, "random", seed=7)
    assert first != choose_ddns(part, mcs, "random", seed=8)
    for mc, a, rep in zip(mcs, *first, strict=True):
        nearest = min(T16.distance(mc.source, n) for n in part.ddn_nodes(a))
        assert T16.distance(mc.source, rep) == nearest
    per_ddn = Counter(first[0])
    assert max(per_ddn.values()) - min(per_ddn.values()) > 1  # random is not balanced
    with pytest.raises(ValueError, match="unknown DDN choice"):
        choose_ddns(part, mcs, "round-robin")  # type: ignore[arg-type]


# ---- Tseng2001's claims at model level (16x16, 80 sources of 80 destinations) -------------------
SCHEMES = [("u-torus", None, None)] + [(f"{h}{c[0].upper()}", h, c) for h in (2, 4)
                                       for c in ("random", "balanced")]


@pytest.fixture(scope="module")
def costs():
    out = {}
    for p in HOT_SPOT_FACTORS:
        pairs = hotspot_multicasts(T16, SOURCES, SOURCES, p, seed=1)
        for name, h, choice in SCHEMES:
            plan: MultinodePlan = (direct_plan(T16, pairs) if h is None else
                                   partitioned_plan(Partition(T16, h), pairs, choice, seed=1))
            out[(name, p)] = plan_cost(plan)
    return out


def test_gain_over_u_torus_grows_with_message_size(costs):
    """Fig. 2: the gain of the partitioned schemes grows with |M_i| (32 -> 1024 flits)."""
    for (name, p), cost in costs.items():
        if name == "u-torus":
            continue
        direct = costs[("u-torus", p)]
        gain = [direct.latency(m, T_S, T_C) / cost.latency(m, T_S, T_C) for m in (SMALL, LARGE)]
        assert gain[1] > gain[0], (name, p)


def test_partitioning_beats_u_torus_for_large_messages(costs):
    """At 1024 flits h = 2 wins at every p; h = 4 at every p but 100 % (see below)."""
    for (name, p), cost in costs.items():
        direct = costs[("u-torus", p)].latency(LARGE, T_S, T_C)
        if name.startswith("2") or (name.startswith("4") and p < 1):
            assert cost.latency(LARGE, T_S, T_C) < direct, (name, p)
            assert sum(cost.contention) < sum(costs[("u-torus", p)].contention)


def test_model_disagrees_for_small_messages_partitioning_needs_more_one_port_steps(costs):
    """Not Tseng2001's claim: in this model each DDN node relays phases 2 and 3 for all the
    multicasts of its DDN, so partitioned plans take more steps; with T_s = 300 us and 32
    flits (startup-bound) U-torus is faster at p = 100 %, and h = 4 there even at 1024."""
    for (name, p), cost in costs.items():
        if name != "u-torus":
            assert cost.steps > costs[("u-torus", p)].steps, (name, p)
            if p == 1.0:
                assert cost.latency(SMALL, T_S, T_C) > costs[("u-torus", p)].latency(
                    SMALL, T_S, T_C)
    for name in ("4R", "4B"):
        assert costs[(name, 1.0)].latency(LARGE, T_S, T_C) > \
            costs[("u-torus", 1.0)].latency(LARGE, T_S, T_C)


def test_a_smaller_startup_raises_the_gain_for_small_messages(costs):
    """With T_s = 30 us (Tseng2001's other value) instead of 300 us, the fewer link
    crossings count for more: every partitioned scheme gains at 32 flits."""
    for (name, p), cost in costs.items():
        if name != "u-torus":
            direct = costs[("u-torus", p)]
            gain = [direct.latency(SMALL, ts, T_C) / cost.latency(SMALL, ts, T_C)
                    for ts in (T_S, T_S_SMALL)]
            assert gain[1] > gain[0], (name, p)


def test_larger_hot_spot_factor_raises_latency(costs):
    """Fig. 4 (|M| = 32 flits): p = 100 % is slower than p = 25 % for every scheme; with
    h = 4 latency rises at every step of p, the others are not monotone in between."""
    for name, *_ in SCHEMES:
        lat = [costs[(name, p)].latency(SMALL, T_S, T_C) for p in HOT_SPOT_FACTORS]
        assert lat[-1] > lat[0], name
        if name.startswith("4"):
            assert lat == sorted(lat), name
