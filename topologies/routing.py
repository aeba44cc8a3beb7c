"""Destination-based routing rules: for every (switch, destination host) one output port.

The controller installs exactly this table ("ipv4_dst=host -> port" per switch), so each
rule must depend only on the switch and the destination, and `hop_counts` proves that
following it from any switch reaches the destination without a loop.

- shortest: BFS distances from the destination; among the neighbours one hop closer, the one
  behind the lowest output port.
- xy: dimension-ordered on a grid (switch attr coords=(row, col)): fix the column first, then
  the row. In a dimension with wrap links take the shorter way round; an exact tie goes the
  positive way, which the next switch then agrees with (its positive distance is shorter).
- updown: on a levelled tree (switch attr level, 0 = leaf): go up until the switch's subtree
  holds the destination, then down. The up port is picked d-mod-k: with k up ports at level
  l, index (dest_id // k**l) % k, i.e. the destination's k-ary digit l, which spreads
  destinations over the top and stays destination-based.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from topologies.errors import TopologyError

if TYPE_CHECKING:
    from topologies.model import Topology

Table = dict[str, dict[str, int]]


def shortest(topo: Topology) -> Table:
    ports = {s.name: sorted(topo.ports(s.name).items()) for s in topo.switches}
    table: Table = {name: {} for name in ports}
    for host in topo.hosts:
        dist = topo.distances(host.name)
        for switch, entries in table.items():
            # Another host is never one hop closer: hosts are leaves, so only `host` can be.
            entries[host.name] = next(port for port, nb in ports[switch]
                                      if dist[nb] == dist[switch] - 1)
    return table


def _grid_coords(topo: Topology) -> dict[str, tuple[int, int]]:
    coords: dict[str, tuple[int, int]] = {}
    owner: dict[tuple[int, int], str] = {}
    for switch in topo.switches:
        c = switch.attrs.get("coords")
        if not (isinstance(c, tuple) and len(c) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in c)):
            raise TopologyError(f"routing 'xy' needs grid switches (mesh, torus), but "
                                f"{switch.name} has no 'coords' attribute (row, col)")
        if c in owner:
            raise TopologyError(f"routing 'xy' needs distinct coordinates, but {switch.name} and "
                                f"{owner[c]} both sit at {c}")
        coords[switch.name], owner[c] = c, switch.name
    return coords


def _step(a: tuple[int, int], b: tuple[int, int], size: tuple[int, int]) -> tuple[int, int, bool]:
    """(dimension, +1/-1, is_wrap) of the grid link a -> b, or raise if they are not adjacent."""
    for dim in (0, 1):
        if a[1 - dim] != b[1 - dim]:
            continue
        n = size[dim]
        if b[dim] == a[dim] + 1:
            return dim, +1, False
        if b[dim] == a[dim] - 1:
            return dim, -1, False
        if n > 2 and b[dim] == (a[dim] + 1) % n:
            return dim, +1, True
        if n > 2 and b[dim] == (a[dim] - 1) % n:
            return dim, -1, True
    raise TopologyError(f"routing 'xy' needs grid links, but switches at {a} and {b} are linked "
                        "without being grid neighbours")


def xy(topo: Topology) -> Table:
    coords = _grid_coords(topo)
    size = (max(r for r, _ in coords.values()) + 1, max(c for _, c in coords.values()) + 1)
    moves: dict[str, dict[tuple[int, int], int]] = {name: {} for name in coords}
    wraps = [False, False]
    for switch, cell in coords.items():
        for port, nb in topo.ports(switch).items():
            if nb in coords:
                dim, sign, wrap = _step(cell, coords[nb], size)
                moves[switch][(dim, sign)] = port
                wraps[dim] = wraps[dim] or wrap

    def direction(dim: int, here: int, there: int) -> int:
        if wraps[dim]:
            ahead, back = (there - here) % size[dim], (here - there) % size[dim]
            return +1 if ahead <= back else -1
        return +1 if there > here else -1

    table: Table = {name: {} for name in coords}
    for host in topo.hosts:
        home, home_port = topo.host_attachment(host)
        target = coords[home]
        for switch, cell in coords.items():
            if switch == home:
                table[switch][host.name] = home_port
                continue
            dim = 1 if cell[1] != target[1] else 0  # column (X) first, then row (Y)
            sign = direction(dim, cell[dim], target[dim])
            out_port = moves[switch].get((dim, sign))
            if out_port is None:
                way = {(1, 1): "east", (1, -1): "west", (0, 1): "south", (0, -1): "north"}[
                    (dim, sign)]
                raise TopologyError(f"routing 'xy' must leave {switch} {way} towards {host.name}, "
                                    "but that switch has no such link")
            table[switch][host.name] = out_port
    return table


def updown(topo: Topology) -> Table:
    level: dict[str, int] = {}
    for sw in topo.switches:
        lv = sw.attrs.get("level")
        if not isinstance(lv, int) or isinstance(lv, bool):
            raise TopologyError(f"routing 'updown' needs levelled switches (fattree, bmin, tree, "
                                f"star), but {sw.name} has no integer 'level' attribute")
        level[sw.name] = lv
    up: dict[str, list[int]] = {name: [] for name in level}
    down: dict[str, dict[int, str]] = {name: {} for name in level}
    for switch, lv in level.items():
        for port, nb in topo.ports(switch).items():
            if nb not in level:
                if lv != 0:
                    raise TopologyError(f"routing 'updown' needs hosts on level-0 switches, but "
                                        f"{nb} plugs into {switch} at level {lv}")
                down[switch][port] = nb
            elif level[nb] == lv + 1:
                up[switch].append(port)
            elif level[nb] == lv - 1:
                down[switch][port] = nb
            else:
                raise TopologyError(f"routing 'updown' needs links between adjacent levels, but "
                                    f"{switch} (level {lv}) links to {nb} (level {level[nb]})")

    below: dict[str, set[str]] = {}  # hosts reachable by going down only
    for switch in sorted(level, key=level.__getitem__):
        below[switch] = set()
        for nb in down[switch].values():
            below[switch] |= below.get(nb, {nb})

    table: Table = {name: {} for name in level}
    for host in topo.hosts:
        for switch, entries in table.items():
            if host.name in below[switch]:
                entries[host.name] = min(port for port, nb in down[switch].items()
                                         if host.name in below.get(nb, {nb}))
            elif up[switch]:
                k = len(up[switch])
                entries[host.name] = up[switch][(host.node_id // k ** level[switch]) % k]
            else:
                raise TopologyError(f"routing 'updown' cannot reach {host.name} from {switch}: "
                                    "it is not below that switch, which has no up link")
    return table


RULES: dict[str, Callable[[Topology], Table]] = {"shortest": shortest, "xy": xy, "updown": updown}
ROUTINGS = tuple(RULES)


def compute_next_hops(topo: Topology) -> Table:
    rule = RULES.get(topo.routing)
    if rule is None:
        raise TopologyError(f"unknown routing {topo.routing!r}; choose from {', '.join(ROUTINGS)}")
    return rule(topo)


def hop_counts(topo: Topology, table: Table) -> dict[str, dict[str, int]]:
    """Destination host -> {switch -> links to it}; raises if any route loops or goes astray."""
    counts: dict[str, dict[str, int]] = {}
    for host in topo.hosts:
        dest = host.name
        hops = {dest: 0}
        for start in table:
            trail: list[str] = []
            node = start
            while node not in hops:
                if node not in table:
                    raise TopologyError(f"routing {topo.routing!r} delivers packets for {dest} "
                                        f"to host {node}")
                if node in trail:
                    raise TopologyError(f"routing {topo.routing!r} loops at {node} on the way "
                                        f"to {dest}")
                trail.append(node)
                node = topo.neighbour(node, table[node][dest])
            for distance, passed in enumerate(reversed(trail), start=hops[node] + 1):
                hops[passed] = distance
        del hops[dest]
        counts[dest] = hops
    return counts
