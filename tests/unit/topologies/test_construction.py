"""topologies.construction: the link parameters the shape builders give host and core links
(bw, core_bw, delay_ms; unlimited where none)."""

from topologies import mesh, star, tree


def test_link_parameters_of_builders() -> None:
    topo = tree(2, 2, bw=10, core_bw=40, delay_ms=1.5)
    for link in topo.links:
        core = not (topo.is_host(link.node1) or topo.is_host(link.node2))
        assert link.params.bw_mbit == (40.0 if core else 10.0)
        assert link.params.delay_ms == 1.5
    assert topo.params == {"leaves": 2, "hosts_per_leaf": 2, "bw": 10.0, "core_bw": 40.0,
                           "delay_ms": 1.5, "routing": "shortest"}
    assert {lk.params.bw_mbit for lk in mesh(2, 2, bw=5).links} == {5.0}  # core_bw = bw
    unlimited_core = mesh(2, 2, bw=5, core_bw=float("inf"))
    assert {lk.params.bw_mbit for lk in unlimited_core.links} == {5.0, None}
    assert {lk.params.bw_mbit for lk in star(2, bw=None).links} == {None}
