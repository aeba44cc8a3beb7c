"""The block-based binomial tree of MPI-F's MPI_Bcast (pure), as Nupairoj1998 describes it
in section 3.4 (Fig. 3.7).

Some members are grouped into blocks of ``blocksize`` consecutive nodes, as many blocks as
the largest power of two that fits; the root reaches the first node of every block with a
binomial tree, each block's first node then sends to the rest of its block one after the
other (a sequential tree), and the m nodes left outside the blocks are served by nodes
0 .. m-1, node i sending to node (blocks x blocksize) + i. Blocksize 1 gives a binomial
tree, blocksize k a sequential tree.
"""

from __future__ import annotations

from .schedules import Children, binomial_tree

__all__ = ["block_binomial_tree", "block_count"]


def block_count(k: int, blocksize: int) -> int:
    """The number of blocks: the largest power of two with that many blocks within k nodes."""
    if k < 1:
        raise ValueError(f"a tree needs at least one node, got {k}")
    if not 1 <= blocksize <= k:
        raise ValueError(f"blocksize must be in 1..{k}, got {blocksize}")
    return 1 << ((k // blocksize).bit_length() - 1)


def block_binomial_tree(k: int, blocksize: int) -> Children:
    """Node -> children in send order (relative ids, root 0): a node first sends its binomial
    sends among the block leaders, then to its own block (a leader), then to the node it
    serves outside the blocks."""
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
