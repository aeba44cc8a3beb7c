"""testbed.emulation.loss_control without a network: a switch-to-switch link named by its
two switches is found, and every wrong name or loss is refused with what is wrong."""

from pathlib import Path

import pytest

from testbed.emulation.loss_control import LossControl
from testbed.emulation.network import Emulation
from testbed.emulation.servers import OneMachine
from testbed.emulation.wiring import Started, Wiring
from testbed.errors import UsageError
from topologies import parse_spec

from .machines import Shell, caps


def test_switch_links_finds_the_link_and_names_what_is_wrong() -> None:
    emu = Emulation(parse_spec("tree:leaves=2,hosts_per_leaf=2"), caps=caps())
    (link,) = emu.switch_links("s2", "s1")
    assert {link.node1, link.node2} == {"s1", "s2"}
    for a, b, message in (("s2", "s3", r"no link between s2 and s3 \(s2 links to s1\)"),
                          ("s1", "s9", r"no switch 's9' \(switches: s1, s2, s3\)"),
                          ("h0", "s2", "h0 is a host"), ("s1", "s1", "two different")):
        with pytest.raises(UsageError, match=message):
            emu.switch_links(a, b)
    with pytest.raises(UsageError, match=r"150 \(15000% of the packets\) is not a fraction"):
        emu.set_link_loss("s1", "s2", 150)  # a percentage, as it was before 2026-11-27
    with pytest.raises(UsageError, match="1 would drop every packet"):
        emu.set_link_loss("s1", "s2", 1)


def test_loss_is_set_from_the_values_handed_in() -> None:
    """LossControl takes a Wiring, the topology and the started run (None before the start:
    what was asked is checked, then refused as not started), not an Emulation."""
    loss = LossControl(Wiring(caps(), OneMachine()))
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2")
    with pytest.raises(UsageError, match="not a fraction"):
        loss.on_hosts(topo, None, 150)
    with pytest.raises(UsageError, match="not started"):
        loss.on_hosts(topo, None, 0.05)
    with pytest.raises(UsageError, match="not started"):
        loss.on_link(topo, None, "s1", "s2", 0.05)
    shells = {h.name: Shell() for h in topo.hosts}
    loss.on_hosts(topo, Started("r1", Path("/nonexistent"), shells.__getitem__), "5%",
                  ["h1", 2])
    assert [name for name, s in shells.items() if s.lines] == ["h1", "h2"]
    # what is set is kept, per link, for the live view (testbed.live); 0 removes it
    at = {h: topo.host_attachment(h)[0] for h in ("h1", "h2")}
    assert loss.current == {tuple(sorted((h, sw))): (0.05, "all") for h, sw in at.items()}
    loss.on_hosts(topo, Started("r1", Path("/nonexistent"), shells.__getitem__), 0, ["h1"])
    assert loss.current == {tuple(sorted(("h2", at["h2"]))): (0.05, "all")}
