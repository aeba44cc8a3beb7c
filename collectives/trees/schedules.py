"""Broadcast schedules (pure): who sends which bytes to whom, in which order.

A schedule is plain data: for every rank of the communicator, its program, an ordered tuple
of operations (`Send`, `Recv`, `SendRecv`) on byte ranges of the message. One executor
carries it out with MPI point-to-point calls, the model predicts its latency, reports draw it.
Trees are built in relative ids (root = 0) and mapped to ranks by rotation:
rank = (relative + root) % size.

Algorithms (collectives.algorithms, family "tree"): sequential, binomial, chain, binary,
fragmented-chain, scatter-allgather, opt-tree, block-binomial (`mpich`, MPICH's own
MPI_Bcast, has no schedule); and, family "contention", trees placed in the order of the
network's routing so that their sends avoid each other (`collectives.contention.schedules`):
opt-mesh, u-mesh, u-torus, opt-min.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .. import opttree
from ..algorithms import (
    DEFAULT_SEND_ORDER,
    NATIVE,
    Algorithm,
    Named,
    check_choice,
    check_send_order,
    names,
)
from ..ops import Op, Recv, Schedule, Send, SendRecv

ALGORITHMS = names("tree")
# told where the ranks sit (mesh=, torus=, bmin=, nodes=): collectives.contention.schedules,
# imported only when one is built (a rank's start-up: collectives.executor)
TOPOLOGY_ALGORITHMS = names("contention")
DEFAULT_FRAGMENT = 8192
DEFAULT_BLOCKSIZE = 3  # Nupairoj1998 figure 3.7's (MPI-F's own is not given)


# ---- trees in relative ids --------------------------------------------------------------------
Children = dict[int, list[int]]


def sequential_tree(k: int) -> Children:
    return {0: list(range(1, k))} if k > 1 else {}


def chain_tree(k: int) -> Children:
    return {i: [i + 1] for i in range(k - 1)}


def binomial_tree(k: int) -> Children:
    """MPICH's binomial tree (MPIR_Bcast_intra_binomial) and Siebert2006's (section 1.5.4):
    a node's parent is its id with the lowest set bit cleared; it sends to its id plus each
    power of two below that bit (below the first power of two >= k for the root) that is
    still a node, highest first. The root of 9 sends to 8, 4, 2, 1. A child's subtree is
    the contiguous range [c, min(c + lowest set bit of c, k))."""
    children: Children = {}
    top = 1 << max(k - 1, 0).bit_length()  # the first power of two >= k: the root's "bit"
    for r in range(k):
        low = r & -r or top
        kids = [r + m for m in (low >> s for s in range(1, low.bit_length())) if r + m < k]
        if kids:
            children[r] = kids
    return children


def block_count(k: int, blocksize: int) -> int:
    """MPI-F's number of blocks: the largest power of two of them that fits in k nodes."""
    if k < 1:
        raise ValueError(f"a tree needs at least one node, got {k}")
    if not 1 <= blocksize <= k:
        raise ValueError(f"blocksize must be in 1..{k}, got {blocksize}")
    return 1 << ((k // blocksize).bit_length() - 1)


def block_binomial_tree(k: int, blocksize: int) -> Children:
    """MPI-F's block-based binomial tree (Nupairoj1998 section 3.4, figure 3.7): block_count
    blocks of `blocksize` consecutive nodes; the root reaches the first node of every block
    with a binomial tree, each block's first node then sends to the rest of its block in
    turn, and node i < m serves the i-th of the m nodes left outside the blocks. A node
    sends to its binomial children first, then its block, then the node it serves
    (9 nodes, blocksize 3: 0 -> 3, 1, 2, 6; 3 -> 4, 5; 1 -> 7; 2 -> 8). Blocksize 1 is the
    binomial tree, k the sequential one."""
    blocks = block_count(k, blocksize)
    inside = blocks * blocksize
    children: Children = {}
    for leader, kids in binomial_tree(blocks).items():
        children[leader * blocksize] = [kid * blocksize for kid in kids]
    for b in range(blocks):
        first = b * blocksize
        children.setdefault(first, []).extend(range(first + 1, first + blocksize))
    for i in range(k - inside):
        children.setdefault(i, []).append(inside + i)
    return {node: kids for node, kids in children.items() if kids}


def binary_tree(k: int) -> Children:
    return {i: [c for c in (2 * i + 1, 2 * i + 2) if c < k] for i in range(k) if 2 * i + 1 < k}


def subtree_sizes(children: Children, k: int) -> list[int]:
    size = [1] * k
    order: list[int] = []
    stack = [0]
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(children.get(n, []))
    for n in reversed(order):
        size[n] += sum(size[c] for c in children.get(n, []))
    return size


# ---- programs -----------------------------------------------------------------------------
def _absolute(rel: int, root: int, k: int) -> int:
    return (rel + root) % k


def _pieces(n: int, fragment: int | None) -> list[tuple[int, int]]:
    """The message's byte ranges: pieces of `fragment` bytes (None: the whole message)."""
    if fragment is None:
        return [(0, n)]
    return [(lo, min(n, lo + fragment)) for lo in range(0, n, fragment)] or [(0, 0)]


def _tree_programs(children: Children, k: int, root: int, n: int,
                   fragment: int | None = None) -> list[list[Op]]:
    """Every rank's program on the tree `children`: the message whole, or in pieces of
    `fragment` bytes that go down the tree one after the other, a node receiving a piece
    from its parent, then sending it to each child in turn (the fragmented chain; Open
    MPI's segmented trees, ompi_coll_tuned_bcast_intra_bintree and _chain)."""
    parent = {c: p for p, kids in children.items() for c in kids}
    progs: list[list[Op]] = [[] for _ in range(k)]
    for rel in range(k):
        me = _absolute(rel, root, k)
        kids = [_absolute(c, root, k) for c in children.get(rel, [])]
        for lo, hi in _pieces(n, fragment):
            if rel in parent:
                progs[me].append(Recv(_absolute(parent[rel], root, k), lo, hi))
            progs[me] += [Send(c, lo, hi) for c in kids]
    return progs


def _chunks(k: int, n: int) -> list[int]:
    """Where scatter-allgather's k chunks start (and the end): n * i // k."""
    return [n * i // k for i in range(k + 1)]


def _scatter_allgather(k: int, root: int, n: int, allgather: str) -> list[list[Op]]:
    """Binomial scatter of k chunks, then an allgather: a ring (van de Geijn), or recursive
    doubling (MPICH2's for a power-of-two number of ranks below MPIR_BCAST_LONG_MSG:
    src/mpi/coll/bcast.c, MPIR_Bcast)."""
    bounds = _chunks(k, n)
    tree = binomial_tree(k)
    size = subtree_sizes(tree, k)
    progs: list[list[Op]] = [[] for _ in range(k)]
    for parent, kids in tree.items():  # each child gets the chunks of its subtree
        for c in kids:
            lo, hi = bounds[c], bounds[c + size[c]]
            progs[_absolute(c, root, k)].insert(0, Recv(_absolute(parent, root, k), lo, hi))
            progs[_absolute(parent, root, k)].append(Send(_absolute(c, root, k), lo, hi))
    if allgather == "recursive-doubling":
        _recursive_doubling(progs, k, root, bounds)
        return progs
    for step in range(k - 1):
        for rel in range(k):
            s_chunk, r_chunk = (rel - step) % k, (rel - step - 1) % k
            progs[_absolute(rel, root, k)].append(SendRecv(
                Send(_absolute(rel + 1, root, k), bounds[s_chunk], bounds[s_chunk + 1]),
                Recv(_absolute(rel - 1, root, k), bounds[r_chunk], bounds[r_chunk + 1])))
    return progs


def _recursive_doubling(progs: list[list[Op]], k: int, root: int, bounds: list[int]) -> None:
    """log2 k steps: at step i a rank swaps all it holds (its 2^i chunks) with the rank
    whose relative id differs in bit i (MPIR_Bcast's pof2 allgather)."""
    if k & (k - 1):
        raise ValueError(f"scatter-allgather's recursive-doubling allgather needs a power "
                         f"of two of ranks, got {k} (MPICH2 takes the ring there)")
    mask = 1
    while mask < k:
        for rel in range(k):
            dst = rel ^ mask
            mine, theirs = rel & -mask, dst & -mask  # the roots of the two halves
            progs[_absolute(rel, root, k)].append(SendRecv(
                Send(_absolute(dst, root, k), bounds[mine], bounds[mine + mask]),
                Recv(_absolute(dst, root, k), bounds[theirs], bounds[theirs + mask])))
        mask <<= 1


def _opt_children(k: int, params: Mapping[str, Any]) -> Children:
    t_hold, t_end = params.get("t_hold"), params.get("t_end")
    if t_hold is None or t_end is None:
        raise ValueError("opt-tree needs t_hold and t_end (measured by 'mcastlab params')")
    return opttree.opt_children(k, opttree.opt_table(k, t_hold, t_end).j)


TREES: dict[str, Callable[[int], Children]] = {
    "sequential": sequential_tree, "binomial": binomial_tree, "chain": chain_tree,
    "binary": binary_tree,
}
# scatter-allgather's allgather (allgather=): MPICH2's two, chosen by MPIR_Bcast
ALLGATHERS = {"ring": "p - 1 steps around the ring (van de Geijn)",
              "recursive-doubling": "log2 p swaps of all a rank holds (a power of two of "
                                    "ranks only)"}


def _fragment(algorithm: str, params: Mapping[str, Any]) -> int | None:
    """The pieces' size: fragmented-chain's (DEFAULT_FRAGMENT unless given), a plain tree's
    if given (Open MPI's segsize), else None (the message whole)."""
    given = params.get("fragment")
    if algorithm == "fragmented-chain":
        given = DEFAULT_FRAGMENT if given is None else given
    elif given is None or algorithm not in TREES:
        return None
    fragment = int(given)
    if fragment < 1:
        raise ValueError(f"fragment size must be at least 1 byte, got {fragment}")
    return fragment


def build(algorithm: Named, size: int, root: int = 0, nbytes: int = 0,
          **params: Any) -> Schedule:
    """The schedule of `algorithm` for `size` ranks, `root`, an `nbytes` message.
    Parameters: send_order (every tree: fifo, the default, or overlapped;
    collectives.algorithms.SEND_ORDERS), fragment (bytes: fragmented-chain's pieces; a
    plain tree's, sequential, binomial, chain or binary, pipelined in pieces as Open MPI's
    segmented trees are), allgather (scatter-allgather's: ALLGATHERS), blocksize
    (block-binomial, nodes a block; at most the ranks: the sequential tree), t_hold and t_end
    (opt-tree, opt-mesh, opt-min); for the TOPOLOGY_ALGORITHMS mesh=(rows, cols) (opt-mesh,
    u-mesh), torus=(rows, cols) (u-torus), bmin=(k, n) (opt-min) and nodes=(node of rank 0,
    ...) (default rank i on node i), node ids as topologies numbers hosts
    (`collectives.contention.schedules`). `algorithm`: a name, or its record (a call's:
    handed on to the contention trees, which then look nothing up)."""
    record, algorithm = (algorithm, algorithm.name) if isinstance(algorithm, Algorithm) \
        else (None, algorithm)
    # a record was resolved where its call was made: it says whether it has a schedule
    scheduled = record.scheduled if record is not None else (
        algorithm in ALGORITHMS or algorithm in TOPOLOGY_ALGORITHMS)
    if not scheduled:
        extra = " (MPICH's own MPI_Bcast has no schedule)" if algorithm == NATIVE else ""
        raise ValueError(f"unknown algorithm {algorithm!r}{extra}; choose from "
                         f"{', '.join((*ALGORITHMS, *TOPOLOGY_ALGORITHMS))}")
    if not isinstance(size, int) or size < 1:
        raise ValueError(f"communicator size must be at least 1, got {size!r}")
    if not isinstance(root, int) or not 0 <= root < size:
        raise ValueError(f"root must be a rank in 0..{size - 1}, got {root!r}")
    if not isinstance(nbytes, int) or nbytes < 0:
        raise ValueError(f"message size must be a non-negative byte count, got {nbytes!r}")
    params["send_order"] = check_send_order(params.get("send_order", DEFAULT_SEND_ORDER))
    if algorithm in TOPOLOGY_ALGORITHMS:
        # imported on first use (a rank's start-up: collectives.executor)
        from ..contention import schedules as contention_schedules

        return contention_schedules.schedule(record or algorithm, size, root, nbytes, **params)
    fragment = _fragment(algorithm, params)
    if fragment is not None:
        params = {**params, "fragment": fragment}
    if algorithm == "fragmented-chain":
        progs = _tree_programs(chain_tree(size), size, root, nbytes, fragment)
    elif algorithm == "scatter-allgather":
        allgather = check_choice("allgather", params.get("allgather", "ring"), ALLGATHERS)
        params = {**params, "allgather": allgather}
        progs = _scatter_allgather(size, root, nbytes, allgather)
    elif algorithm == "opt-tree":
        progs = _tree_programs(_opt_children(size, params), size, root, nbytes)
    elif algorithm == "block-binomial":
        blocksize = int(params.get("blocksize", DEFAULT_BLOCKSIZE))
        if blocksize < 1:
            raise ValueError(f"blocksize must be at least 1, got {blocksize}")
        progs = _tree_programs(block_binomial_tree(size, min(blocksize, size)), size, root,
                               nbytes)
        params = {**params, "blocksize": blocksize}
    else:
        progs = _tree_programs(TREES[algorithm](size), size, root, nbytes, fragment)
    return Schedule(algorithm, size, root, nbytes, tuple(tuple(p) for p in progs),
                    dict(params))
