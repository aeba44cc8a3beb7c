"""collectives.trees.schedules: every schedule delivers every byte to every rank causally, for
any root and size; the binomial tree's shape and MPICH's order for 2-33 ranks from every root,
its subtrees' contiguity, bad input, scatter-allgather's sendrecv ring and MPICH2's
recursive-doubling allgather, the plain trees whole and in pieces (Open MPI's segments), the
send order every schedule records, the parents read off a schedule, and MPI-F's block-based
binomial tree (Nupairoj1998 section 3.4, Fig. 3.7: 9 nodes, blocksize 3; blocksize 1 a
binomial tree, k a sequential one)."""

from __future__ import annotations

import pytest

from collectives.trees.latency_model import (
    PointToPoint,
)
from collectives.trees.schedules import (
    ALGORITHMS,
    Recv,
    Send,
    SendRecv,
    binomial_tree,
    block_binomial_tree,
    block_count,
    build,
    sequential_tree,
    subtree_sizes,
)

PARAMS = {"t_hold": 20.0, "t_end": 55.0, "fragment": 7}


def delivered(schedule) -> list[set[int]]:
    """Run the programs symbolically: each rank's bytes; a send of bytes the sender does not
    hold yet fails the test (causality)."""
    k, n = schedule.size, schedule.nbytes
    have = [set(range(n)) if r == schedule.root else set() for r in range(k)]
    wires: dict[tuple[int, int], list[set[int]]] = {}
    pc = [0] * k
    half = [False] * k

    def send(r, op):
        piece = set(range(op.lo, op.hi))
        assert piece <= have[r], f"rank {r} sends bytes {op.lo}..{op.hi} it does not hold"
        wires.setdefault((r, op.peer), []).append(piece)

    def recv(r, op):
        q = wires.get((op.peer, r))
        if not q:
            return False
        piece = q.pop(0)
        assert piece == set(range(op.lo, op.hi)), "receive range differs from the send"
        have[r] |= piece
        return True

    moved = True
    while moved:
        moved = False
        for r in range(k):
            while pc[r] < len(schedule.programs[r]):
                op = schedule.programs[r][pc[r]]
                if isinstance(op, Send):
                    send(r, op)
                elif isinstance(op, Recv):
                    if not recv(r, op):
                        break
                else:
                    if not half[r]:
                        send(r, op.send)
                        half[r] = True
                    if not recv(r, op.recv):
                        break
                    half[r] = False
                pc[r] += 1
                moved = True
    assert all(pc[r] == len(schedule.programs[r]) for r in range(k)), "deadlock"
    assert not any(wires.values()), "messages nobody receives"
    return have


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 7, 8, 9, 16])
def test_every_rank_gets_every_byte_from_every_root(algorithm, k):
    for n in (0, 1, 37):
        for root in range(k):
            s = build(algorithm, k, root, n, **PARAMS)
            assert delivered(s) == [set(range(n))] * k
            assert len(s.programs[root]) == 0 or not isinstance(s.programs[root][0], Recv)


def test_binomial_tree_shape():
    assert binomial_tree(4) == {0: [2, 1], 2: [3]}
    assert binomial_tree(8) == {0: [4, 2, 1], 4: [6, 5], 6: [7], 2: [3]}
    # Siebert2006 section 1.5.4 and MPICH: the root of 9 sends to 8 first (not to 5)
    assert binomial_tree(9) == {0: [8, 4, 2, 1], 4: [6, 5], 6: [7], 2: [3]}


def mpich_binomial(rank: int, size: int, root: int) -> tuple[int | None, list[int]]:
    """MPIR_Bcast_intra_binomial's two loops (MPICH src/mpi/coll/bcast/
    bcast_intra_binomial.c), transcribed: whom `rank` receives from, whom it sends to, in
    its order."""
    relative_rank = rank - root if rank >= root else rank - root + size
    src = None
    mask = 0x1
    while mask < size:
        if relative_rank & mask:
            src = rank - mask
            if src < 0:
                src += size
            break
        mask <<= 1
    dsts = []
    mask >>= 1
    while mask > 0:
        if relative_rank + mask < size:
            dst = rank + mask
            if dst >= size:
                dst -= size
            dsts.append(dst)
        mask >>= 1
    return src, dsts


@pytest.mark.parametrize("size", range(2, 34))
def test_binomial_sends_in_mpichs_order_from_every_root(size):
    """Every rank's program is MPICH's: one receive from its MPICH parent, then a send to
    each of its MPICH children in MPICH's order, for every root (rotation)."""
    for root in range(size):
        s = build("binomial", size, root, 8)
        for rank in range(size):
            src, dsts = mpich_binomial(rank, size, root)
            want = ([Recv(src, 0, 8)] if src is not None else []) + [Send(d, 0, 8) for d in dsts]
            assert list(s.programs[rank]) == want, (size, root, rank)


@pytest.mark.parametrize("k", range(1, 34))
def test_binomial_subtrees_are_contiguous_ranges(k):
    """scatter-allgather's scatter gives child c the chunks c .. c + size[c] - 1: its
    subtree must be exactly those relative ids (the lowest set bit of c wide, cut at k)."""
    tree = binomial_tree(k)
    size = subtree_sizes(tree, k)

    def below(n):
        return {n}.union(*(below(c) for c in tree.get(n, [])))

    for c in range(1, k):
        assert below(c) == set(range(c, c + size[c]))
        assert size[c] == min(c & -c, k - c)


@pytest.mark.parametrize(("args", "message"), [
    (("nosuch", 4), "unknown algorithm 'nosuch'"),
    (("mpich", 4), "has no schedule"),
    (("binomial", 0), "at least 1"),
    (("binomial", 4, 4), "root must be a rank in 0..3"),
    (("binomial", 4, 0, -1), "non-negative"),
    (("opt-tree", 4), "needs t_hold and t_end"),
])
def test_bad_input(args, message):
    with pytest.raises(ValueError, match=message):
        build(*args)
    with pytest.raises(ValueError, match="fragment size"):
        build("fragmented-chain", 3, 0, 10, fragment=0)
    with pytest.raises(ValueError, match="non-negative"):
        PointToPoint(-1, 0, 1, 0)


def test_sendrecv_ring_is_used_by_scatter_allgather():
    s = build("scatter-allgather", 4, 2, 40)
    assert any(isinstance(op, SendRecv) for prog in s.programs for op in prog)
    assert s.to_dict()["programs"][2][0]["op"] == "send"


@pytest.mark.parametrize("algorithm, params", [
    ("binomial", {}), ("fragmented-chain", {"fragment": 4}), ("u-mesh", {"mesh": (2, 2)}),
    ("opt-tree", {"t_hold": 1e-5, "t_end": 3e-5}),
])
def test_every_schedule_records_its_send_order(algorithm, params):
    """fifo unless told otherwise, in the schedule's params (what execute reads and a record
    shows); the order does not change the programs."""
    fifo = build(algorithm, 4, 0, 16, **params)
    overlapped = build(algorithm, 4, 0, 16, send_order="overlapped", **params)
    assert fifo.params["send_order"] == "fifo"
    assert overlapped.params["send_order"] == "overlapped"
    assert fifo.programs == overlapped.programs
    with pytest.raises(ValueError, match="send_order must be one of fifo, overlapped"):
        build(algorithm, 4, 0, 16, send_order="FIFO", **params)


def test_parents_read_the_tree_off_a_schedule():
    assert build("binomial", 8, 0, 8).parents() == [None, 0, 0, 2, 0, 4, 4, 6]
    assert build("sequential", 4, 2, 8).parents() == [2, 2, None, 2]
    assert build("chain", 3, 0, 8).parents() == [None, 0, 1]


@pytest.mark.parametrize("algorithm", ["sequential", "binomial", "chain", "binary"])
@pytest.mark.parametrize("k", [2, 3, 8, 9, 16])
def test_plain_trees_whole_and_in_pieces(algorithm, k):
    """Without fragment= a plain tree sends the message whole; with it (Open MPI's segsize)
    each piece goes down the same tree, a node receiving a piece and sending it to each
    child in turn before it receives the next: the whole tree's program once a piece."""
    root, n = 1 % k, 37
    whole = build(algorithm, k, root, n)
    assert delivered(whole) == [set(range(n))] * k
    assert {(op.lo, op.hi) for prog in whole.programs for op in prog} == {(0, n)}
    assert "fragment" not in whole.params
    pieces = build(algorithm, k, root, n, fragment=10)
    assert delivered(pieces) == [set(range(n))] * k
    assert pieces.params["fragment"] == 10 and pieces.parents() == whole.parents()
    for w, p in zip(whole.programs, pieces.programs, strict=True):
        assert list(p) == [type(op)(op.peer, lo, hi) for lo, hi in
                           ((0, 10), (10, 20), (20, 30), (30, 37)) for op in w]
    # the fragmented chain is the chain in pieces (DEFAULT_FRAGMENT unless told)
    assert build("fragmented-chain", k, root, n, fragment=10).programs == \
        build("chain", k, root, n, fragment=10).programs
    with pytest.raises(ValueError, match="fragment size must be at least 1 byte"):
        build(algorithm, k, root, n, fragment=0)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16])
def test_scatter_allgather_by_recursive_doubling(k):
    """MPICH2's allgather for a power of two of ranks (MPIR_Bcast): log2 k swaps, each of
    all a rank holds with the rank whose relative id differs in one bit, lowest bit first;
    the scatter before it as the ring's."""
    n = 64
    for root in range(k):
        s = build("scatter-allgather", k, root, n, allgather="recursive-doubling")
        assert delivered(s) == [set(range(n))] * k
        assert s.params["allgather"] == "recursive-doubling"
        swaps = [op for op in s.programs[root] if isinstance(op, SendRecv)]
        steps = k.bit_length() - 1
        assert [op.send.peer for op in swaps] == [(root + (1 << i)) % k for i in range(steps)]
        assert [op.send.hi - op.send.lo for op in swaps] == [n // k << i for i in range(steps)]
        ring = build("scatter-allgather", k, root, n)
        assert ring.params["allgather"] == "ring"
        assert [op for op in s.programs[root] if not isinstance(op, SendRecv)] == \
            [op for op in ring.programs[root] if not isinstance(op, SendRecv)]
    with pytest.raises(ValueError, match="needs a power of two of ranks, got 6"):
        build("scatter-allgather", 6, 0, n, allgather="recursive-doubling")
    with pytest.raises(ValueError, match="allgather must be one of ring, recursive-doubling"):
        build("scatter-allgather", 8, 0, n, allgather="bruck")



def test_fig_3_7() -> None:
    """Blocks {P0, P1, P2} and {P3, P4, P5}; P0 -> P3 first, then the blocks, then P0, P1,
    P2 -> P6, P7, P8."""
    assert block_count(9, 3) == 2
    assert block_binomial_tree(9, 3) == {0: [3, 1, 2, 6], 3: [4, 5], 1: [7], 2: [8]}


@pytest.mark.parametrize("k", range(1, 34))
def test_every_node_once_and_the_ends(k: int) -> None:
    for size in range(1, k + 1):
        tree = block_binomial_tree(k, size)
        kids = [c for cs in tree.values() for c in cs]
        assert sorted(kids) == list(range(1, k))
        assert subtree_sizes(tree, k)[0] == k
    assert block_binomial_tree(k, k) == sequential_tree(k)
    one = block_binomial_tree(k, 1)  # a binomial tree: depth ceil(log2 k) in sends
    depth = {0: 0}
    for p in sorted(one):
        for c in one[p]:
            depth[c] = depth[p] + 1
    assert max(depth.values(), default=0) <= max(1, (k - 1).bit_length())


def test_bad_blocksizes() -> None:
    with pytest.raises(ValueError, match="blocksize"):
        block_binomial_tree(9, 10)
    with pytest.raises(ValueError, match="at least one node"):
        block_count(0, 1)


def test_a_calls_record_says_whether_it_has_a_schedule() -> None:
    """build is handed a call's record: its `scheduled` answers, no second check of the
    name against the tables (which hold exactly the registry's scheduled broadcasts)."""
    from collectives.algorithms import BCASTS
    from collectives.trees.schedules import ALGORITHMS, TOPOLOGY_ALGORITHMS

    assert {n for n, a in BCASTS.items() if a.scheduled} == {*ALGORITHMS, *TOPOLOGY_ALGORITHMS}
    assert build(BCASTS["binomial"], 6, 1, 10) == build("binomial", 6, 1, 10)
    for record in (BCASTS["nack"], BCASTS["mpich"]):
        with pytest.raises(ValueError, match=f"unknown algorithm '{record.name}'"):
            build(record, 4)
