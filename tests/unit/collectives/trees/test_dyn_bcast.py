"""collectives.trees.dyn_bcast against Nupairoj1998's section 6.3: its static terms, given or
from t_hold and t_end; at equal estimates DYN-Mesh builds OPT-Mesh's tree and DYN-Tree the
chain from the root; as load evens out hold and end, DYN-Mesh halves as U-Mesh does. A
layout that does not fit is refused."""

from __future__ import annotations

import pytest

from collectives.trees.dyntree import StaticParams
from collectives.trees.opttree import opt_children, opt_table, tree_latency


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


@pytest.mark.parametrize("nodes", [list(range(16)), [9, 2, 14, 7, 0, 11, 4, 13]])
@pytest.mark.parametrize("root", [0, 3, 5])
@pytest.mark.parametrize(("hold", "end"), [(20, 55), (55, 20), (10, 10)])
def test_at_equal_estimates_dyn_min_builds_opt_mins_tree(nodes, root, hold, end):
    """DYN-Min (section 6.3 on a BMIN) is OPT-Min's construction under each node's own
    estimates: at zero load OPT-Min send by send, on the BMIN's lexicographic chain."""
    from collectives.contention.trees import opt_min
    from collectives.trees.dyn_bcast import chain

    order = chain("dyn-min", len(nodes), root, {"bmin": (2, 4), "nodes": nodes})
    assert [nodes[r] for r in order] == sorted(nodes)
    rank = {node: r for r, node in enumerate(nodes)}
    want = {rank[s]: [rank[c] for c in cs] for s, cs in
            opt_min(nodes, nodes[root], 2, 4, hold, end).children().items()}
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
