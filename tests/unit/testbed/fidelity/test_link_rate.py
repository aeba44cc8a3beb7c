"""testbed.fidelity.link_rate: `auto` is the default of bare shapes, --bw and --hosts reach the
topology as values, topology files keep their rates, and scaling keeps the ratio of core to
host links."""

from __future__ import annotations

from pathlib import Path

import pytest

from testbed.fidelity.link_rate import NOMINAL_MBIT, is_auto, nominal_topology
from topologies import TopologyError, parse_spec


@pytest.mark.parametrize("spec, auto", [
    ("star", True), ("star:hosts=16", True), ("star:hosts=4,bw=auto", True),
    ("star:hosts=4,bw=10", False), ("mesh:rows=2,cols=2", True),
    ("mesh:rows=2,cols=2,bw=30", False)])
def test_auto_is_the_default_of_bare_shapes(spec: str, auto: bool) -> None:
    assert is_auto(spec) is auto
    topo = nominal_topology(spec)
    assert topo.host_rate() == (NOMINAL_MBIT if auto else float(spec.split("bw=")[1]))


def test_a_rate_and_a_size_given_as_values_not_text() -> None:
    """--bw and --hosts reach the topology as values (topologies.parse_spec(**given)), as
    if written into its text; one given both ways, or to a file, is refused."""
    given = nominal_topology("star", hosts=4, bw=10.0)
    assert given.to_dict() == nominal_topology("star:hosts=4,bw=10").to_dict()
    assert not is_auto("star", bw=10.0) and is_auto("star", bw="auto") and is_auto("star")
    assert nominal_topology("star", bw="auto").host_rate() == NOMINAL_MBIT
    assert parse_spec("star:hosts=3", bw=7.5).host_rate() == 7.5
    with pytest.raises(TopologyError, match="parameter 'bw' is given twice: bw=20 in"):
        parse_spec("star:bw=20", bw=10.0)
    path = str(Path(__file__).parents[4] / "topologies/examples/dumbbell.toml")
    with pytest.raises(TopologyError, match="sets its own bw"):
        parse_spec(path, bw=10.0)


def test_topology_files_keep_their_rates() -> None:
    path = str(Path(__file__).parents[4] / "topologies/examples/dumbbell.toml")
    assert not is_auto(path)
    assert nominal_topology(path).to_dict() == parse_spec(path).to_dict()


def test_scaling_keeps_the_ratio_of_core_to_host_links() -> None:
    topo = nominal_topology("fattree:k=2,n=3,core_bw=400")
    slow = topo.scaled(0.3)
    rates = {(lk.node1, lk.node2): lk.params.bw_mbit for lk in slow.links}
    assert slow.host_rate() == pytest.approx(30)
    assert max(rates.values()) == pytest.approx(120)
    assert [(lk.node1, lk.port1, lk.node2, lk.port2) for lk in slow.links] == \
        [(lk.node1, lk.port1, lk.node2, lk.port2) for lk in topo.links]
