"""topologies.grid: mesh and torus sizes and port numbering, a port's number as its direction,
and the torus's wrap links."""

import pytest

from topologies import mesh, torus
from topologies.grid import EAST, HOST, NORTH, SOUTH, WEST

from .shape_checks import check_ports, counts


@pytest.mark.parametrize(("rows", "cols"), [(1, 1), (2, 2), (3, 4), (8, 8)])
def test_mesh_sizes(rows: int, cols: int) -> None:
    topo = mesh(rows, cols)
    assert counts(topo) == (rows * cols, rows * cols,
                            rows * cols + rows * (cols - 1) + cols * (rows - 1))
    check_ports(topo)
    assert topo.routing == "xy" and topo.name == f"mesh-{rows}x{cols}"


def wraps(size: int) -> int:
    return size if size > 2 else size - 1


@pytest.mark.parametrize(("rows", "cols"), [(3, 3), (4, 4), (2, 5), (1, 3), (2, 2)])
def test_torus_sizes(rows: int, cols: int) -> None:
    topo = torus(rows, cols)
    assert counts(topo) == (rows * cols, rows * cols,
                            rows * cols + rows * wraps(cols) + cols * wraps(rows))
    check_ports(topo)


@pytest.mark.parametrize("builder", [mesh, torus])
@pytest.mark.parametrize(("rows", "cols"), [(2, 2), (3, 4), (4, 4)])
def test_grid_port_is_direction(builder, rows: int, cols: int) -> None:
    topo = builder(rows, cols)
    step = {EAST: (0, 1), WEST: (0, -1), SOUTH: (1, 0), NORTH: (-1, 0)}
    for i, switch in enumerate(topo.switches):
        r, c = switch.attrs["coords"]
        assert (r, c) == divmod(i, cols)
        assert topo.host(i).attrs["coords"] == (r, c)
        assert topo.host_attachment(i) == (switch.name, HOST)
        for port, nb in topo.ports(switch.name).items():
            if port == HOST:
                continue
            dr, dc = step[port]
            assert topo.switch(nb).attrs["coords"] == ((r + dr) % rows, (c + dc) % cols)
            if builder is mesh:
                assert 0 <= r + dr < rows and 0 <= c + dc < cols
        expected = {HOST}
        expected |= {EAST} if c + 1 < cols or (builder is torus and cols > 2) else set()
        expected |= {WEST} if c > 0 or (builder is torus and cols > 2) else set()
        expected |= {SOUTH} if r + 1 < rows or (builder is torus and rows > 2) else set()
        expected |= {NORTH} if r > 0 or (builder is torus and rows > 2) else set()
        assert set(topo.ports(switch.name)) == expected


def test_torus_wrap_links() -> None:
    topo = torus(4, 4)
    for r in range(4):
        east_end, west_end = f"s{r * 4 + 4}", f"s{r * 4 + 1}"
        assert topo.port_to(east_end, west_end) == EAST
        assert topo.port_to(west_end, east_end) == WEST
    for c in range(4):
        assert topo.port_to(f"s{12 + c + 1}", f"s{c + 1}") == SOUTH
        assert topo.port_to(f"s{c + 1}", f"s{12 + c + 1}") == NORTH
    # size-2 dimension: the wrap would duplicate the mesh link, so only the mesh link exists
    small = torus(2, 5)
    assert set(small.ports("s1")) == {HOST, EAST, WEST, SOUTH}
