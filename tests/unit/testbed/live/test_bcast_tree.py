"""The tree of a broadcast measured at the prompt: a point-to-point tree's sends from the
schedule its ranks run (parent, child, the parent's send order), on their hosts and routed
over the topology, the root anywhere; a pipelined tree's pieces one send; scatter-allgather's
scatter without its ring; DYN-Tree's from the parents its ranks reported; a multicast, a
range multicast and MPI_Bcast said in words, with no sends made up."""

from __future__ import annotations

from collectives.call import BcastCall
from collectives.trees import build
from testbed.live.bcast_tree import bcast_tree, parent_sends, tree_sends
from topologies import parse_spec

STAR = parse_spec("star:hosts=4")
HOSTS = ["h0", "h1", "h2", "h3"]


def sends(tree: dict) -> list[tuple[str, str, int | None]]:
    return [(s["from"], s["to"], s["order"]) for s in tree["sends"]]


def test_a_schedules_tree_is_each_parents_sends_in_order_on_the_ranks_hosts() -> None:
    # binomial on 4 ranks, MPICH's order: rank 0 sends to 2, then 1; rank 2 to 3
    assert tree_sends(build("binomial", 4)) == [(0, 2, 1), (0, 1, 2), (2, 3, 1)]
    tree = bcast_tree(BcastCall("binomial", 1024), STAR, ["h3", "h1", "h0", "h2"])
    assert tree["kind"] == "schedule" and tree["note"] == "the schedule its ranks ran"
    assert sends(tree) == [("h3", "h0", 1), ("h3", "h1", 2), ("h0", "h2", 1)]
    assert tree["sends"][0]["path"] == ["h3", "s1", "h0"]


def test_the_root_the_route_and_a_pipelined_trees_pieces() -> None:
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2")  # h0 h1 | h2 h3
    tree = bcast_tree(BcastCall("chain", 1024, root=2), topo, ["h0", "h1", "h2", "h3"])
    assert sorted(sends(tree)) == [("h0", "h1", 1), ("h2", "h3", 1), ("h3", "h0", 1)]
    route = {(s["from"], s["to"]): s["path"] for s in tree["sends"]}
    assert route[("h3", "h0")] == ["h3", "s3", "s1", "s2", "h0"]
    # 64 KiB in 8 KiB fragments: 8 pieces to each child, one send each
    frag = bcast_tree(BcastCall("fragmented-chain", 65536, options={"fragment": 8192}),
                      STAR, HOSTS)
    assert sends(frag) == [("h0", "h1", 1), ("h1", "h2", 1), ("h2", "h3", 1)]


def test_opt_tree_is_built_from_the_calls_t_hold_and_t_end() -> None:
    flat = BcastCall("opt-tree", 1024, options={"t_hold": 1.0, "t_end": 100.0})
    deep = BcastCall("opt-tree", 1024, options={"t_hold": 100.0, "t_end": 1.0})
    flat_sends = sends(bcast_tree(flat, STAR, HOSTS))  # the root sends to all, in turn
    assert {(a, order) for a, _, order in flat_sends} == {("h0", 1), ("h0", 2), ("h0", 3)}
    assert len({s["from"] for s in bcast_tree(deep, STAR, HOSTS)["sends"]}) > 1


def test_scatter_allgather_draws_its_scatter_not_its_ring() -> None:
    tree = bcast_tree(BcastCall("scatter-allgather", 4096), STAR, HOSTS)
    assert sends(tree) == [("h0", "h2", 1), ("h0", "h1", 2), ("h2", "h3", 1)]
    assert "not the ring allgather" in tree["note"]


def test_dyn_trees_tree_is_the_last_one_its_ranks_reported() -> None:
    assert parent_sends([None, 0, 0, 1]) == [(0, 1, None), (0, 2, None), (1, 3, None)]
    call = BcastCall("dyn-tree", 1024, options={"t_hold": 1.0, "t_end": 3.0})
    tree = bcast_tree(call, STAR, HOSTS, [[None, 0, 0, 0], [None, 0, 1, 2]])
    assert tree["kind"] == "dynamic" and "last of 2" in tree["note"]
    assert sends(tree) == [("h0", "h1", None), ("h1", "h2", None), ("h2", "h3", None)]
    assert bcast_tree(call, STAR, HOSTS, None)["sends"] == []


def test_multicast_range_and_mpich_are_said_not_drawn() -> None:
    nack = bcast_tree(BcastCall("nack", 1024), STAR, HOSTS)
    assert nack["kind"] == "multicast" and nack["sends"] == []
    assert "tree the controller installs" in nack["note"] and "repairs" in nack["note"]
    mpich = bcast_tree(BcastCall("mpich", 1024), STAR, HOSTS)
    assert mpich["kind"] == "mpi" and mpich["sends"] == []
    assert "inside the library" in mpich["note"]
    ranged = bcast_tree(BcastCall("range-tree", 1024), STAR, HOSTS)
    assert ranged["kind"] == "range" and ranged["sends"] == []


def test_a_schedule_that_cannot_be_rebuilt_is_said() -> None:
    # a call its ranks could not have run (the check before the job refuses it): no sends
    tree = bcast_tree(BcastCall("opt-tree", 1024), STAR, HOSTS)
    assert tree["sends"] == [] and "could not be rebuilt" in tree["note"]
