"""2D mesh and torus: one switch per grid cell, one host per switch, row-major node ids.

Ports keep a fixed meaning so a port number always names a direction: 1 = host, 2 = east
(+col), 3 = west (-col), 4 = south (+row), 5 = north (-row); a port without a neighbour (mesh
edge) is simply absent. The torus adds wrap links in each dimension of size > 2 only: with
2 cells the wrap link would duplicate the mesh link, and with 1 cell it would be a self-loop.
"""

from __future__ import annotations

from topologies.construction import check_size, link_profile, positive_int
from topologies.model import Host, Link, Switch, Topology

HOST, EAST, WEST, SOUTH, NORTH = 1, 2, 3, 4, 5


def _grid(shape: str, rows: int, cols: int, wrap: bool, bw: float | None,
          core_bw: float | None, delay_ms: float, routing: str) -> Topology:
    rows = positive_int(shape, "rows", rows)
    cols = positive_int(shape, "cols", cols)
    check_size(shape, rows * cols, rows * cols)
    profile = link_profile(shape, bw, core_bw, delay_ms)
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    hosts = [Host.numbered(i, coords=cell) for i, cell in enumerate(cells)]
    switches = [Switch.numbered(i + 1, coords=cell) for i, cell in enumerate(cells)]

    def name(r: int, c: int) -> str:
        return switches[r * cols + c].name

    links = [Link(h.name, 0, s.name, HOST, profile.host)
             for h, s in zip(hosts, switches, strict=True)]
    for r, c in cells:
        if c + 1 < cols or (wrap and cols > 2):
            links.append(Link(name(r, c), EAST, name(r, (c + 1) % cols), WEST, profile.core))
        if r + 1 < rows or (wrap and rows > 2):
            links.append(Link(name(r, c), SOUTH, name((r + 1) % rows, c), NORTH, profile.core))
    return Topology(
        name=f"{shape}-{rows}x{cols}", shape=shape, routing=routing,
        params={"rows": rows, "cols": cols, **profile.record(), "routing": routing},
        hosts=hosts, switches=switches, links=links,
    )


def mesh(rows: int = 4, cols: int = 4, *, bw: float | None = 100.0,
         core_bw: float | None = None, delay_ms: float = 0.0, routing: str = "xy") -> Topology:
    return _grid("mesh", rows, cols, False, bw, core_bw, delay_ms, routing)


def torus(rows: int = 4, cols: int = 4, *, bw: float | None = 100.0,
          core_bw: float | None = None, delay_ms: float = 0.0, routing: str = "xy") -> Topology:
    return _grid("torus", rows, cols, True, bw, core_bw, delay_ms, routing)
