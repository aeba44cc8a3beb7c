"""collectives.ipmc.acktree: nack's tree of acknowledgements. Every receiver is covered
exactly once on its way to the root (one parent each, the subtrees of a rank's children
disjoint and together its subtree), an ACK that does not fit the tree covers nothing, a lost
ACK is made good by its MPI copy or by an answer straight to the root, and the ACK says how
many ranks it covers and which first pass was slowest."""

from __future__ import annotations

import pytest

from collectives.ipmc import acktree
from collectives.ipmc.acktree import (
    ACK_SIZE,
    LOSS_MEMORY,
    Ack,
    AckTree,
    Cover,
    check_acks,
    copies,
    decode,
    encode,
    slower,
)
from collectives.ipmc.message import Options
from collectives.ipmc.rate import PassTiming

SHAPES = [(2, 0, 2), (5, 0, 2), (32, 0, 4), (32, 7, 4), (64, 0, 4), (64, 63, 8),
          (17, 3, 3), (100, 42, 16)]


@pytest.mark.parametrize(("size", "root", "fanout"), SHAPES)
def test_every_rank_but_the_root_has_one_parent_that_lists_it(size: int, root: int,
                                                              fanout: int) -> None:
    t = AckTree(size, root, fanout)
    assert t.parent(root) is None
    for r in range(size):
        if r != root:
            p = t.parent(r)
            assert p is not None and r in t.children(p)
        assert len(t.children(r)) <= fanout
    listed = [c for r in range(size) for c in t.children(r)]
    assert sorted(listed) == sorted(set(range(size)) - {root})  # each exactly once


@pytest.mark.parametrize(("size", "root", "fanout"), SHAPES)
def test_a_subtree_is_its_rank_and_its_childrens_disjoint_subtrees(size: int, root: int,
                                                                   fanout: int) -> None:
    t = AckTree(size, root, fanout)
    assert sorted(t.subtree(root)) == list(range(size))
    for r in range(size):
        parts = [t.subtree(c) for c in t.children(r)]
        flat = [x for p in parts for x in p]
        assert len(flat) == len(set(flat))
        assert sorted([r, *flat]) == sorted(t.subtree(r))


@pytest.mark.parametrize(("size", "fanout", "depth"),
                         [(2, 4, 1), (5, 4, 1), (6, 4, 2), (21, 4, 2), (22, 4, 3),
                          (32, 4, 3), (64, 4, 3), (64, 8, 2), (73, 8, 2), (74, 8, 3)])
def test_the_depth_is_the_heaps(size: int, fanout: int, depth: int) -> None:
    t = AckTree(size, 0, fanout)
    assert t.depth() == depth
    hops = []
    for r in range(size):
        n = 0
        while (p := t.parent(r)) is not None:
            r, n = p, n + 1
        hops.append(n)
    assert max(hops) == depth


def test_the_tree_turns_with_the_root() -> None:
    t = AckTree(8, 5, 2)
    assert t.children(5) == [6, 7]
    assert t.children(6) == [0, 1]  # virtual 1 -> 3, 4
    assert t.parent(0) == 6 and t.parent(6) == 5


def test_a_rank_outside_the_communicator_is_refused() -> None:
    with pytest.raises(ValueError, match="rank 9 is not one of 8"):
        AckTree(8, 0, 2).parent(9)


def simulate(size: int, root: int, fanout: int, lost: set[int] | None = None
             ) -> tuple[Cover, dict[int, int]]:
    """Every receiver sends its ACK to its parent once its subtree is covered (deepest
    first); an ACK from a rank in `lost` never arrives and its MPI copy covers instead.
    Returns the root's Cover and, per rank, how many times an arrival at the root newly
    covered it."""
    t = AckTree(size, root, fanout)
    covers = {r: Cover(t, r) for r in range(size)}
    at_root: dict[int, int] = dict.fromkeys(range(size), 0)
    order = sorted((r for r in range(size) if r != root), key=lambda r: -depth_of(t, r))
    for r in order:
        assert not covers[r].waiting, f"rank {r} sends before its subtree is covered"
        p = t.parent(r)
        assert p is not None
        before = set(covers[p].waiting)
        a = Ack(1, PassTiming(), fanout, len(t.subtree(r)), r)
        if r in (lost or set()):
            covers[p].subtree(r)  # the MPI copy
        else:
            assert covers[p].fits(r, a)
            covers[p].ack(r, a)
        if p == root:
            for x in before - covers[p].waiting:
                at_root[x] += 1
    return covers[root], at_root


def depth_of(t: AckTree, r: int) -> int:
    n = 0
    while (p := t.parent(r)) is not None:
        r, n = p, n + 1
    return n


@pytest.mark.parametrize(("size", "root", "fanout"), SHAPES)
def test_every_receiver_reaches_the_root_exactly_once(size: int, root: int,
                                                      fanout: int) -> None:
    cover, at_root = simulate(size, root, fanout)
    assert cover.waiting == set()
    assert at_root == {r: 0 if r == root else 1 for r in range(size)}


@pytest.mark.parametrize(("size", "root", "fanout"), SHAPES)
def test_lost_acks_are_made_good_by_their_mpi_copies(size: int, root: int,
                                                     fanout: int) -> None:
    lost = set(range(size)) - {root}
    cover, at_root = simulate(size, root, fanout, lost=set(list(lost)[::2]))
    assert cover.waiting == set()
    assert at_root == {r: 0 if r == root else 1 for r in range(size)}


def test_an_answer_to_a_later_end_marker_covers_a_subtree_at_the_root() -> None:
    # rank 5's ACK to its parent 1 and the MPI copy both late: its answer to the root's
    # repeated end marker (Channel.finished) covers it and everything below it
    t = AckTree(32, 0, 4)
    root = Cover(t, 0)
    a = Ack(2, PassTiming(), 4, len(t.subtree(5)), 5)
    assert root.fits(5, a) and root.ack(5, a)
    assert not root.waiting & set(t.subtree(5))
    assert root.waiting == set(range(1, 32)) - set(t.subtree(5))
    assert root.missing_children() == [1, 2, 3, 4]  # 1 still waits for 6, 7, 8
    assert not root.ack(5, a)  # a repeat covers nothing new


def test_a_direct_complete_covers_its_sender_alone() -> None:
    t = AckTree(10, 0, 3)
    c = Cover(t, 0)
    assert c.direct(1) and not c.direct(1)
    assert c.waiting == set(range(2, 10))
    assert not c.direct(0)  # the root itself is never awaited


@pytest.mark.parametrize(("fanout", "covered"), [(8, 6), (4, 5), (4, 1)])
def test_an_ack_of_another_tree_does_not_fit(fanout: int, covered: int) -> None:
    t = AckTree(32, 0, 4)  # rank 1's subtree: 1, 5-8, 21-31 (16 ranks)
    assert len(t.subtree(1)) == 16
    c = Cover(t, 0)
    assert not c.fits(1, Ack(1, PassTiming(), fanout, covered, 1))
    assert c.fits(1, Ack(1, PassTiming(), 4, 16, 1))
    assert not c.fits(40, Ack(1, PassTiming(), 4, 1, 40))


def test_an_inner_rank_waits_for_its_subtree_only() -> None:
    t = AckTree(32, 0, 4)
    c = Cover(t, 2)
    assert c.waiting == set(t.subtree(2)) - {2}
    assert c.missing_children() == t.children(2)
    assert not c.subtree(1)  # another subtree: nothing of this rank's
    assert c.subtree(t.children(2)[0])
    assert c.missing_children() == t.children(2)[1:]


def test_a_leaf_waits_for_nobody() -> None:
    c = Cover(AckTree(32, 0, 4), 31)
    assert c.waiting == set() and c.missing_children() == []


def test_the_ack_round_trips_and_names_how_many_it_covers() -> None:
    a = Ack(7, PassTiming(3, 40, 38, 0.0125), 4, 16, 21)
    data = encode(a)
    assert len(data) == ACK_SIZE
    assert decode(data) == a
    assert decode(memoryview(data)) == a
    assert decode(data[:-1]) is None and decode(data + b"\0") is None


def test_the_slowest_first_pass_is_the_lowest_rate_taken_in() -> None:
    fast, slow = PassTiming(0, 40, 41, 0.01), PassTiming(0, 40, 41, 0.05)
    short = PassTiming(0, 3, 4, 0.001)  # too few fragments to say
    assert fast.fragments_per_s() == pytest.approx(4000)
    assert short.fragments_per_s() is None and PassTiming().fragments_per_s() is None
    assert slower(slow, fast) and not slower(fast, slow)
    assert slower(fast, short) and not slower(short, fast)
    c = Cover(AckTree(8, 0, 2), 1)
    for rank, t in [(1, fast), (3, short), (4, slow), (7, fast)]:
        c.timing(rank, t)
    assert c.slowest == (4, slow)


def test_an_inner_rank_forwards_the_slowest_pass_below_it() -> None:
    t = AckTree(8, 0, 2)  # 1's children: 3, 4
    c = Cover(t, 1)
    c.timing(1, PassTiming(0, 40, 41, 0.01))
    slow = PassTiming(0, 40, 41, 0.09)
    c.ack(4, Ack(1, slow, 2, 1, 4))
    c.ack(3, Ack(1, PassTiming(0, 40, 41, 0.02), 2, 1, 3))
    assert c.waiting == set() and c.slowest == (4, slow)


@pytest.mark.parametrize(("last", "bid", "want"),
                         [(None, 5, 1), (5, 5, 3), (5, 5 + LOSS_MEMORY, 3),
                          (5, 6 + LOSS_MEMORY, 1), (0xFFFFFFFF, 3, 3), (9, 5, 1)])
def test_a_rank_that_saw_loss_lately_sends_every_copy(last: int | None, bid: int,
                                                      want: int) -> None:
    assert copies(last, bid, 3) == want


@pytest.mark.parametrize(("acks", "fanout", "error"),
                         [("both", 4, "acks must be one of direct, tree"),
                          ("tree", 1, "ack_fanout must be a whole number in 2..65535"),
                          ("tree", 70000, "ack_fanout"), ("tree", True, "ack_fanout"),
                          ("direct", 2.5, "ack_fanout")])
def test_bad_options_are_refused(acks: object, fanout: object, error: str) -> None:
    with pytest.raises(ValueError, match=error):
        check_acks(acks, fanout)
    with pytest.raises(ValueError, match=error):
        Options(fragment=1000, acks=acks, ack_fanout=fanout)  # type: ignore[arg-type]


def test_the_default_is_the_tree() -> None:
    o = Options(fragment=1000)
    assert (o.acks, o.ack_fanout) == (acktree.DEFAULT_ACKS, acktree.DEFAULT_FANOUT)
    assert o.acks == "tree"


@pytest.mark.parametrize(("size", "root", "fanout", "dead"),
                         [(64, 0, 4, 58), (64, 0, 4, 1), (32, 7, 4, 30), (17, 3, 3, 16)])
def test_a_receiver_that_dies_is_named_by_its_parent(size: int, root: int, fanout: int,
                                                     dead: int) -> None:
    """`dead` never sends an ACK (nor its MPI copy): its parent names it alone as what it
    waits for, the ranks above name the child on the way down to it, and the root is left
    waiting for the subtree of its child above `dead` and nothing else. Every rank's wait
    says what it names (collectives.ipmc.nack: "no completion from the subtree(s) of
    rank(s) ...", among the ranks still waiting when the deadline ends the job)."""
    t = AckTree(size, root, fanout)
    covers = {r: Cover(t, r) for r in range(size)}
    for r in sorted((r for r in range(size) if r != root), key=lambda r: -depth_of(t, r)):
        if r != dead and not covers[r].waiting:
            p = t.parent(r)
            assert p is not None
            covers[p].ack(r, Ack(1, PassTiming(), fanout, len(t.subtree(r)), r))
    path = [dead]
    while (p := t.parent(path[-1])) is not None:
        path.append(p)
    for below, above in zip(path, path[1:], strict=False):
        assert covers[above].missing_children() == [below]
    top = path[-2]  # the root's child above dead
    assert covers[root].waiting == set(t.subtree(top))
    silent = {r for r in range(size) if r != root and covers[r].waiting}
    assert silent == set(path[1:-1])  # only the ranks above dead wait, and they name it
