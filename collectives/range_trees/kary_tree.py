"""Node numbering in a k-ary n-tree (QsNET's quaternary fat tree), for range multicasts (pure).

Nodes 0..k^n-1 hang off the level-0 switches in order, k per switch. A level-l block is the
set of nodes under one level-l switch: block ``node // k**(l+1)`` at level l, or, as the
paper writes it, the level-l broadcast-tree link ``node // k**l`` leads down to it. The root
switch of a contiguous range [lo, hi] is its nearest common ancestor on the broadcast tree,
at the lowest level l where ``lo // k**(l+1) == hi // k**(l+1)`` (Coll et al., sec. 3-5).

A network may be a partial tree: N nodes that fill m whole top-level subtrees of the
smallest k-ary n-tree holding them (QsNET's 32-node cluster is two 16-node subtrees of a
64-port tree; Table 1's 2048 nodes are two 1024-node subtrees). Ports N..k^n-1 are absent.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["KaryNTree"]


@dataclass(frozen=True)
class KaryNTree:
    """A k-ary n-tree with ``nodes`` attached nodes: ``arity`` k, ``dims`` switch levels."""

    arity: int
    dims: int
    nodes: int
    _levels: dict[tuple[int, int], int] = field(default_factory=dict, init=False, repr=False,
                                                compare=False)  # root_level's answers

    def __post_init__(self) -> None:
        if self.arity < 2:
            raise ValueError(f"the arity must be >= 2, got {self.arity}")
        if self.dims < 1:
            raise ValueError(f"a tree has at least one switch level, got {self.dims}")
        if not 0 < self.nodes <= self.arity ** self.dims:
            raise ValueError(f"{self.nodes} nodes do not fit a {self.arity}-ary "
                             f"{self.dims}-tree")

    @classmethod
    def for_nodes(cls, nodes: int, arity: int = 4) -> KaryNTree:
        """The smallest k-ary n-tree holding ``nodes``; they must fill whole top subtrees."""
        if arity < 2:
            raise ValueError(f"the arity must be >= 2, got {arity}")
        if nodes < 2:
            raise ValueError(f"a network needs at least 2 nodes, got {nodes}")
        dims = 1
        while arity ** dims < nodes:
            dims += 1
        sub = arity ** (dims - 1)
        if nodes % sub:
            lower, upper = nodes // sub * sub, (nodes // sub + 1) * sub
            raise ValueError(f"{nodes} nodes is not a power of {arity} nor a whole number of "
                             f"{sub}-node subtrees (try {lower or sub} or {upper})")
        return cls(arity, dims, nodes)

    @property
    def ports(self) -> int:
        """Leaf ports of the full tree, k^n."""
        return self.arity ** self.dims

    def block(self, node: int, level: int) -> int:
        """Index of the level-``level`` broadcast-tree link above ``node`` (node // k^level)."""
        return node // self.arity ** level

    def root_level(self, lo: int, hi: int) -> int:
        """Level of the root switch of the range [lo, hi]: 0 if one level-0 switch holds it."""
        level = self._levels.get((lo, hi))
        if level is None:
            level = self._levels[(lo, hi)] = self._root_level(lo, hi)
        return level

    def _root_level(self, lo: int, hi: int) -> int:
        bits = self.arity.bit_length() - 1
        if self.arity == 1 << bits:  # a power of two: the highest differing bit tells
            return max(0, -(-(lo ^ hi).bit_length() // bits) - 1)
        level, span = 0, self.arity
        while lo // span != hi // span:
            level += 1
            span *= self.arity
        return level

    def spans(self, lo: int, hi: int, level: int) -> bool:
        """Does [lo, hi] use two or more broadcast-tree links at ``level`` (eq. 1's test)?"""
        size = self.arity ** level
        return lo // size != hi // size
