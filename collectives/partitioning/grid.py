"""Torus and mesh geometry and Tseng2001's network partition into DDNs and DCNs (pure).

Nodes of a rows x cols grid are numbered row-major, node = row * cols + col, at (row, col),
and routed 'xy': column first, then row. A torus has wrap links in every dimension of more
than two nodes and goes the shorter way round, an exact tie the positive way; a mesh has no
wrap links and goes straight. These are the conventions of `topologies.grid` (mesh and torus)
and `topologies.routing.xy`, restated here on plain numbers because this layer runs in MPI
ranks.

The partition is reconstructed from Tseng2001's Fig. 1 ("four dilated-4 subnetworks, each as
an undirected 4x4 torus, in a 16x16 torus"); the report gives no explicit construction and
omits meshes "due to space limitation", but the construction never uses a wrap link, so it
holds on a mesh as it stands. With dilation h dividing both sides:
- DDN_a (a = 0..h-1) holds the nodes with row = col = a (mod h) and owns the row links of the
  rows = a (mod h) and the column links of the columns = a (mod h): a (rows/h) x (cols/h)
  torus (mesh) whose links are h hops long. The DDNs share no link and together own every
  link once (P1, evenly spread link load); an xy route between two nodes of DDN_a runs on
  DDN_a's links (along its source's row, then its destination's column).
- DCN_b is the b-th h x h block, row-major. Blocks are disjoint and cover the grid (P2), and
  each holds exactly one node of every DDN, (h * block_row + a, h * block_col + a) (P3). The
  DDNs are isomorphic (P4) and so are the blocks (P5).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

Link = tuple[int, int]
"""A directed link between neighbouring nodes (from, to)."""


def _direction(here: int, there: int, n: int, wrap: bool) -> int:
    if wrap and n > 2:  # wrap links exist only in dimensions of more than two nodes
        return +1 if (there - here) % n <= (here - there) % n else -1
    return +1 if there > here else -1


@lru_cache(maxsize=1 << 17)
def _route(rows: int, cols: int, wrap: bool, src: int, dst: int) -> tuple[Link, ...]:
    for node in (src, dst):  # checked on a cache miss only: routes are asked for often
        if not isinstance(node, int) or isinstance(node, bool) or not 0 <= node < rows * cols:
            raise ValueError(f"node must be in 0..{rows * cols - 1} on a {rows}x{cols} "
                             f"{'torus' if wrap else 'mesh'}, got {node!r}")
    (r, c), (tr, tc) = divmod(src, cols), divmod(dst, cols)
    links: list[Link] = []
    node = src
    while c != tc:
        c = (c + _direction(c, tc, cols, wrap)) % cols
        nxt = r * cols + c
        links.append((node, nxt))
        node = nxt
    while r != tr:
        r = (r + _direction(r, tr, rows, wrap)) % rows
        nxt = r * cols + c
        links.append((node, nxt))
        node = nxt
    return tuple(links)


@dataclass(frozen=True)
class Grid:
    """A rows x cols grid with xy routing: a `Torus` or a `Mesh` (`wrap` tells them apart)."""

    rows: int
    cols: int
    wrap: ClassVar[bool]
    kind: ClassVar[str]  # the topology shape's name, as topologies.registry spells it

    def __post_init__(self) -> None:
        for name in ("rows", "cols"):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < 1:
                raise ValueError(f"{self.kind} {name} must be a positive integer, got {v!r}")

    @property
    def size(self) -> int:
        return self.rows * self.cols

    @property
    def name(self) -> str:
        return f"{self.rows}x{self.cols} {self.kind}"

    def coords(self, node: int) -> tuple[int, int]:
        self.check(node)
        return divmod(node, self.cols)

    def node(self, row: int, col: int) -> int:
        return (row % self.rows) * self.cols + col % self.cols

    def check(self, node: int) -> int:
        if not isinstance(node, int) or isinstance(node, bool) or not 0 <= node < self.size:
            raise ValueError(f"node must be in 0..{self.size - 1} on a {self.name}, "
                             f"got {node!r}")
        return node

    def route(self, src: int, dst: int) -> tuple[Link, ...]:
        """The directed links an xy-routed message from src to dst crosses, in order."""
        return _route(self.rows, self.cols, self.wrap, src, dst)

    def distance(self, a: int, b: int) -> int:
        return len(self.route(a, b))

    def links(self) -> frozenset[Link]:
        """Every directed link of the grid."""
        out: set[Link] = set()
        for node in range(self.size):
            r, c = divmod(node, self.cols)
            if c + 1 < self.cols or (self.wrap and self.cols > 2):
                out |= {(node, self.node(r, c + 1)), (self.node(r, c + 1), node)}
            if r + 1 < self.rows or (self.wrap and self.rows > 2):
                out |= {(node, self.node(r + 1, c)), (self.node(r + 1, c), node)}
        return frozenset(out)


@dataclass(frozen=True)
class Torus(Grid):
    wrap: ClassVar[bool] = True
    kind: ClassVar[str] = "torus"


@dataclass(frozen=True)
class Mesh(Grid):
    wrap: ClassVar[bool] = False
    kind: ClassVar[str] = "mesh"


GRIDS: dict[str, type[Grid]] = {"torus": Torus, "mesh": Mesh}
"""The grid of each topology shape the partition runs on."""


@dataclass(frozen=True)
class Partition:
    """DDN_0..DDN_{h-1} and the h x h blocks (DCNs) of a torus or mesh with dilation h."""

    grid: Grid  # a Torus or a Mesh
    dilation: int

    def __post_init__(self) -> None:
        h, t = self.dilation, self.grid
        if not isinstance(h, int) or isinstance(h, bool) or h < 1:
            raise ValueError(f"dilation must be a positive integer, got {h!r}")
        if t.rows % h or t.cols % h:
            raise ValueError(f"dilation {h} must divide both sides of the {t.name}")

    @property
    def ddn_count(self) -> int:
        return self.dilation

    @property
    def block_shape(self) -> tuple[int, int]:
        """Blocks per column and per row of blocks: the shape of every DDN as a torus or mesh."""
        return self.grid.rows // self.dilation, self.grid.cols // self.dilation

    @property
    def block_count(self) -> int:
        r, c = self.block_shape
        return r * c

    def ddn_of(self, node: int) -> int | None:
        """The DDN holding node, or None for a node in no DDN."""
        r, c = self.grid.coords(node)
        return r % self.dilation if r % self.dilation == c % self.dilation else None

    def block_of(self, node: int) -> int:
        r, c = self.grid.coords(node)
        return (r // self.dilation) * self.block_shape[1] + c // self.dilation

    def member(self, ddn: int, block: int) -> int:
        """The one node of DDN_ddn inside block `block` (P3)."""
        br, bc = divmod(block, self.block_shape[1])
        return self.grid.node(br * self.dilation + ddn, bc * self.dilation + ddn)

    def ddn_nodes(self, ddn: int) -> tuple[int, ...]:
        return tuple(self.member(ddn, b) for b in range(self.block_count))

    def block_nodes(self, block: int) -> tuple[int, ...]:
        h = self.dilation
        br, bc = divmod(block, self.block_shape[1])
        return tuple(self.grid.node(br * h + i, bc * h + j) for i in range(h) for j in range(h))

    def ddn_links(self, ddn: int) -> frozenset[Link]:
        """The links DDN_ddn owns: those of its rows and of its columns."""
        h = self.dilation
        out = set()
        for u, v in self.grid.links():
            (ur, uc), (vr, vc) = self.grid.coords(u), self.grid.coords(v)
            if (ur == vr and ur % h == ddn) or (uc == vc and uc % h == ddn):
                out.add((u, v))
        return frozenset(out)
