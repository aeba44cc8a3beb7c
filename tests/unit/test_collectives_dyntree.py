"""DYN-Tree's estimates and split against Nupairoj1998's section 6.3 and 6.4 numbers."""

from __future__ import annotations

import pytest

from collectives.trees.dyntree import BASELINE, SendCost, StaticParams, estimates, split
from collectives.trees.opttree import opt_children, opt_table, tree_latency

M = 1024


def test_static_parameters_at_1_kib_match_the_baseline():
    # t_hold = 1915 + 2*1024 = 3963, t_end = 12498 (section 6.4)
    assert BASELINE.static(M) == (3963, 12498)


@pytest.mark.parametrize(("k", "opt"), [(32, 44811), (64, 52737), (128, 57918)])
def test_no_contention_opt_latency_of_section_6_4(k, opt):
    hold, end = BASELINE.static(M)
    assert opt_table(k, hold, end).t[k] == opt


def test_at_zero_load_dyn_tree_is_opt_tree():
    # no queueing: t_as = t_hold + t_ns + n t_nd; t^e_hol = 1390 + 2048 = 3438 < 3963
    t_as = 3963 + 1390 + 2 * M
    hold, end = estimates(BASELINE, M, t_as, M)
    assert (hold, end) == BASELINE.static(M)


def test_end_minus_hol_is_constant_so_dyn_tree_tends_to_binomial():
    # t^e_end - t^e_hol = t_hs + m t_hd + t_rs + m t_rd = 9060 at 1 KiB, whatever the load
    for queued in (0, 5000, 50000, 500000):
        t_as = 3963 + 1390 + 2 * M + queued
        hold, end = estimates(BASELINE, M, t_as, M)
        hol_e = t_as - (1915 + 2 * M) - 2 * M + 2 * M
        assert end - hol_e == 9060
        if queued >= 5000:
            assert hold == hol_e
    hold, end = estimates(BASELINE, M, 3963 + 1390 + 2 * M + 500000, M)
    assert end / hold < 1.02  # end/hold -> 1: the binomial shape


@pytest.mark.parametrize("k", [1, 2, 5, 9, 33])
@pytest.mark.parametrize(("hold", "end"), [(20, 55), (55, 20), (10, 10)])
def test_split_applied_recursively_is_the_opt_tree(k, hold, end):
    children: dict[int, list[int]] = {}
    stack = [(0, k)]
    while stack:
        lo, hi = stack.pop()
        for child, child_hi in split(lo, hi, hold, end):
            children.setdefault(lo, []).append(child)
            stack.append((child, child_hi))
    assert children == opt_children(k, opt_table(k, hold, end).j)
    if k > 1:
        assert tree_latency(children, hold, end) == opt_table(k, hold, end).t[k]


def test_send_cost_is_a_broadcasts_mean_smoothed_per_size():
    c = SendCost(alpha=0.5)
    c.close()  # a leaf sends nothing: no estimate
    assert c.t_as is None
    c.record(4.0, 100)  # a node's sends of one broadcast: their mean, as t_hold is measured
    c.record(8.0, 100)
    assert c.t_as is None  # counts once the broadcast is over
    c.close()
    assert (c.t_as, c.n) == (6.0, 100)
    c.record(10.0, 100)
    c.close()
    assert c.t_as == 8.0
    c.record(4.0, 200)  # another size: start over
    c.close()
    assert (c.t_as, c.n) == (4.0, 200)


def test_at_zero_load_the_estimates_are_the_measured_hold_and_end_again():
    from collectives.trees.dyn_bcast import static_params

    # a lone small message's t_end below the back-to-back t_hold (the emulated link lets a
    # first frame out at once): the split still adds up, with a negative receiving term
    for hold, end in ((250e-6, 160e-6), (18.6e-3, 18.7e-3), (2.0, 5.0)):
        p = static_params({"t_hold": hold, "t_end": end})
        assert p.static(1024) == pytest.approx((hold, end))
        assert p.t_hs + p.t_ns + p.t_rs == pytest.approx(end)
        # a send at zero load costs what t_hold measured: the same hold and end
        assert estimates(p, 1024, hold, 1024) == pytest.approx((hold, end))
        # a loaded link: sends take twice as long; hold and end grow
        h2, e2 = estimates(p, 1024, 2 * hold, 1024)
        assert h2 >= hold and e2 == pytest.approx(end + hold)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        StaticParams(-1, 0, 0, 0, 0, 0)
    with pytest.raises(ValueError):
        split(3, 3, 1, 1)
    with pytest.raises(ValueError):
        SendCost(alpha=0)


def test_static_terms_are_given_or_come_from_hold_and_end():
    from collectives.trees.dyn_bcast import static_params

    given = {"t_hs": 5e-6, "t_hd": 1e-9, "t_ns": 30e-6, "t_nd": 8e-8, "t_rs": 0.0, "t_rd": 2e-9}
    assert static_params(given) == StaticParams(5e-6, 1e-9, 30e-6, 8e-8, 0.0, 2e-9)
    assert static_params({"t_hold": 2.0, "t_end": 5.0}).static(100) == (2.0, 5.0)
    with pytest.raises(ValueError):
        static_params({"t_hold": 2.0})
    with pytest.raises(ValueError):  # receiving may be negative, t_end may not
        StaticParams(1.0, 0, 0, 0, -2.0, 0)


def dyn_parents(order, root, hold, end):
    """Each rank's children in send order as collectives.trees.dyn_bcast's protocol builds
    them when every rank has the same estimates (hold, end): the root owns the whole chain,
    a child the part from itself to the far end its header carries."""
    from collectives.trees.dyn_bcast import forwards

    pos = {r: i for i, r in enumerate(order)}
    children: dict[int, list[int]] = {}
    todo = [(root, 0, len(order) - 1)]
    while todo:
        rank, lo, hi = todo.pop()
        for child, far in forwards(order, pos[rank], lo, hi, hold, end):
            children.setdefault(rank, []).append(child)
            todo.append((child, min(pos[child], far), max(pos[child], far)))
    return children


MESH_NODES = [list(range(16)), [0, 1, 2, 3, 4, 5, 6, 7], [10, 5, 12, 9, 14, 3, 0, 8, 13, 2]]


@pytest.mark.parametrize("nodes", MESH_NODES)
@pytest.mark.parametrize("root", [0, 3, 5])
@pytest.mark.parametrize(("hold", "end"), [(54, 741), (20, 55), (55, 20), (10, 10)])
def test_at_equal_estimates_dyn_mesh_builds_opt_meshs_tree(nodes, root, hold, end):
    """Section 6.3: DYN-Mesh is OPT-Mesh's construction under each node's own estimates, so
    with the same estimates everywhere (zero load: the static t_hold, t_end) it is OPT-Mesh,
    send by send, wherever the root sits in the chain."""
    from collectives.contention.trees import opt_mesh
    from collectives.trees.dyn_bcast import chain

    order = chain("dyn-mesh", len(nodes), root, {"mesh": (4, 4), "nodes": nodes})
    assert sorted(order) == list(range(len(nodes)))
    rank = {node: r for r, node in enumerate(nodes)}
    want = {rank[s]: [rank[c] for c in cs] for s, cs in
            opt_mesh(nodes, nodes[root], 4, 4, hold, end).children().items()}
    assert dyn_parents(order, root, hold, end) == want


@pytest.mark.parametrize("root", [0, 5])
def test_dyn_tree_is_the_chain_from_the_root_in_rank_order(root):
    from collectives.trees.dyn_bcast import chain

    order = chain("dyn-tree", 9, root, {})
    assert order == tuple((root + i) % 9 for i in range(9))
    got = dyn_parents(order, root, 20, 55)
    want = opt_children(9, opt_table(9, 20, 55).j)
    assert got == {(s + root) % 9: [(c + root) % 9 for c in cs] for s, cs in want.items()}


def test_as_load_evens_out_hold_and_end_dyn_mesh_halves_as_u_mesh_does():
    """Under load t^e_end / t^e_hol tends to 1 (above): DYN-Mesh's split tends to halving,
    a binomial-like tree as fast as U-Mesh's in the model, where at low load (t_hold well
    below t_end) it keeps OPT-Mesh's flatter, faster tree."""
    from collectives.contention.trees import opt_mesh, u_mesh
    from collectives.trees.dyn_bcast import chain

    nodes = list(range(16))
    order = chain("dyn-mesh", 16, 0, {"mesh": (4, 4), "nodes": nodes})
    heavy = dyn_parents(order, 0, 1000, 1000)
    assert tree_latency(heavy, 1000, 1000) == u_mesh(nodes, 0, 4, 4, 1000, 1000).latency == 4000
    assert max(len(c) for c in heavy.values()) == 4  # log2(16) sends at the root
    light = dyn_parents(order, 0, 54, 741)
    assert tree_latency(light, 54, 741) == opt_mesh(nodes, 0, 4, 4, 54, 741).latency
    assert tree_latency(light, 54, 741) < u_mesh(nodes, 0, 4, 4, 54, 741).latency


def test_dyn_mesh_is_refused_a_layout_that_does_not_fit():
    from collectives.executor import check

    check("dyn-mesh", "mpich", 8, {"t_hold": 1e-4, "t_end": 2e-4, "mesh": [4, 4],
                                    "nodes": [0, 1, 2, 3, 4, 5, 6, 7]})
    check("dyn-mesh", "mpich", 8, {"t_hold": 1e-4, "t_end": 2e-4})  # a 1 x 8 line
    with pytest.raises(ValueError, match="not a node of the 2x2 grid"):
        check("dyn-mesh", "mpich", 8, {"t_hold": 1e-4, "t_end": 2e-4, "mesh": [2, 2]})
    with pytest.raises(ValueError, match="dyn-mesh runs on a mesh"):
        check("dyn-mesh", "mpich", 4, {"t_hold": 1e-4, "t_end": 2e-4, "torus": [2, 2]})
    with pytest.raises(ValueError, match="dyn-mesh needs t_hs"):
        check("dyn-mesh", "mpich", 4, {"mesh": [2, 2]})
