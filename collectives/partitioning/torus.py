"""Torus geometry and Tseng2001's network partition into DDNs and DCNs (pure).

Nodes of a rows x cols torus are numbered row-major, node = row * cols + col, at (row, col),
and routed 'xy': column first, then row; in a dimension of more than two nodes the shorter way
round, an exact tie the positive way. Both are the conventions of `topologies.grid` and
`topologies.routing.xy`, restated here on plain numbers because this layer runs in MPI ranks.

The partition is reconstructed from Tseng2001's Fig. 1 ("four dilated-4 subnetworks, each as
an undirected 4x4 torus, in a 16x16 torus"); the report gives no explicit construction. With
dilation h dividing both sides:
- DDN_a (a = 0..h-1) holds the nodes with row = col = a (mod h) and owns the row links of the
  rows = a (mod h) and the column links of the columns = a (mod h): a (rows/h) x (cols/h)
  torus whose links are h hops long. The DDNs share no link and together own every link once
  (P1, evenly spread link load); an xy route between two nodes of DDN_a runs on DDN_a's links.
- DCN_b is the b-th h x h block, row-major. Blocks are disjoint and cover the torus (P2), and
  each holds exactly one node of every DDN, (h * block_row + a, h * block_col + a) (P3). The
  DDNs are isomorphic (P4) and so are the blocks (P5).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

Link = tuple[int, int]
"""A directed link between neighbouring nodes (from, to)."""


def _direction(here: int, there: int, n: int) -> int:
    if n > 2:  # wrap links exist only in dimensions of more than two nodes
        return +1 if (there - here) % n <= (here - there) % n else -1
    return +1 if there > here else -1


@lru_cache(maxsize=1 << 17)
def _route(rows: int, cols: int, src: int, dst: int) -> tuple[Link, ...]:
    for node in (src, dst):  # checked on a cache miss only: routes are asked for often
        if not isinstance(node, int) or isinstance(node, bool) or not 0 <= node < rows * cols:
            raise ValueError(f"node must be in 0..{rows * cols - 1} on a {rows}x{cols} torus, "
                             f"got {node!r}")
    (r, c), (tr, tc) = divmod(src, cols), divmod(dst, cols)
    links: list[Link] = []
    node = src
    while c != tc:
        c = (c + _direction(c, tc, cols)) % cols
        nxt = r * cols + c
        links.append((node, nxt))
        node = nxt
    while r != tr:
        r = (r + _direction(r, tr, rows)) % rows
        nxt = r * cols + c
        links.append((node, nxt))
        node = nxt
    return tuple(links)


@dataclass(frozen=True)
class Torus:
    rows: int
    cols: int

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"torus {name} must be a positive integer, got {v!r}")

    @property
    def size(self) -> int:
        return self.rows * self.cols

    def coords(self, node: int) -> tuple[int, int]:
        self.check(node)
        return divmod(node, self.cols)

    def node(self, row: int, col: int) -> int:
        return (row % self.rows) * self.cols + col % self.cols

    def check(self, node: int) -> int:
        if not isinstance(node, int) or isinstance(node, bool) or not 0 <= node < self.size:
            raise ValueError(f"node must be in 0..{self.size - 1} on a {self.rows}x{self.cols} "
                             f"torus, got {node!r}")
        return node

    def route(self, src: int, dst: int) -> tuple[Link, ...]:
        """The directed links an xy-routed message from src to dst crosses, in order."""
        return _route(self.rows, self.cols, src, dst)

    def distance(self, a: int, b: int) -> int:
        return len(self.route(a, b))

    def links(self) -> frozenset[Link]:
        """Every directed link of the torus."""
        out: set[Link] = set()
        for node in range(self.size):
            r, c = divmod(node, self.cols)
            if c + 1 < self.cols or self.cols > 2:
                out |= {(node, self.node(r, c + 1)), (self.node(r, c + 1), node)}
            if r + 1 < self.rows or self.rows > 2:
                out |= {(node, self.node(r + 1, c)), (self.node(r + 1, c), node)}
        return frozenset(out)


@dataclass(frozen=True)
class Partition:
    """DDN_0..DDN_{h-1} and the h x h blocks (DCNs) of a torus with dilation h."""

    torus: Torus
    dilation: int

    def __post_init__(self) -> None:
        h, t = self.dilation, self.torus
        if not isinstance(h, int) or isinstance(h, bool) or h < 1:
            raise ValueError(f"dilation must be a positive integer, got {h!r}")
        if t.rows % h or t.cols % h:
            raise ValueError(f"dilation {h} must divide both sides of the {t.rows}x{t.cols} "
                             "torus")

    @property
    def ddn_count(self) -> int:
        return self.dilation

    @property
    def block_shape(self) -> tuple[int, int]:
        """Blocks per column and per row of blocks: the shape of every DDN as a torus."""
        return self.torus.rows // self.dilation, self.torus.cols // self.dilation

    @property
    def block_count(self) -> int:
        r, c = self.block_shape
        return r * c

    def ddn_of(self, node: int) -> int | None:
        """The DDN holding node, or None for a node in no DDN."""
        r, c = self.torus.coords(node)
        return r % self.dilation if r % self.dilation == c % self.dilation else None

    def block_of(self, node: int) -> int:
        r, c = self.torus.coords(node)
        return (r // self.dilation) * self.block_shape[1] + c // self.dilation

    def member(self, ddn: int, block: int) -> int:
        """The one node of DDN_ddn inside block `block` (P3)."""
        br, bc = divmod(block, self.block_shape[1])
        return self.torus.node(br * self.dilation + ddn, bc * self.dilation + ddn)

    def ddn_nodes(self, ddn: int) -> tuple[int, ...]:
        return tuple(self.member(ddn, b) for b in range(self.block_count))

    def block_nodes(self, block: int) -> tuple[int, ...]:
        h = self.dilation
        br, bc = divmod(block, self.block_shape[1])
        return tuple(self.torus.node(br * h + i, bc * h + j) for i in range(h) for j in range(h))

    def ddn_links(self, ddn: int) -> frozenset[Link]:
        """The links DDN_ddn owns: those of its rows and of its columns."""
        h = self.dilation
        out = set()
        for u, v in self.torus.links():
            (ur, uc), (vr, vc) = self.torus.coords(u), self.torus.coords(v)
            if (ur == vr and ur % h == ddn) or (uc == vc and uc % h == ddn):
                out.add((u, v))
        return frozenset(out)
