"""testbed.emulation.hub (Emulation(switch="hub")): the flows that feed every port into one
medium and back out of every port but the sender's, the medium's rate (its switch's slowest
link), the medium recorded for teardown, and bad arguments refused before anything starts."""

from __future__ import annotations

import pytest

from testbed.cluster.spread import Spread
from testbed.emulation import hub
from testbed.emulation.network import Emulation
from testbed.emulation.one_way import switch_rate
from testbed.errors import UsageError
from testbed.specs.cluster import LOCAL, from_servers
from topologies import parse_spec

from .machines import caps


def _outputs(line: str) -> set[int]:
    return {int(a.split(":")[1]) for a in line.split("actions=")[1].split(",")
            if a.startswith("output:")}


def test_every_port_feeds_the_medium_and_the_medium_skips_the_senders_side() -> None:
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2")  # s1 above leaves s2 (h0 h1), s3
    m0, m1 = hub.MEDIUM_PORTS
    for sw in topo.switches:
        lines = hub.flows(topo, sw.name).splitlines()
        ports = set(topo.ports(sw.name))
        into = {int(x.split("in_port=")[1].split(",")[0]) for x in lines
                if x.endswith(f"actions=output:{m0}")}
        assert into == ports
        for h in topo.hosts:
            (line,) = [x for x in lines if f"in_port={m1},dl_src={h.mac}," in x]
            assert line.startswith("priority=20")
            leaf, port = topo.host_attachment(h)
            towards = (port if leaf == sw.name else topo.port_to(sw.name, "s1")
                       if sw.name != "s1" else topo.port_to("s1", leaf))
            assert _outputs(line) == ports - {towards}, (sw.name, h.name, line)
    # On a leaf, a frame from its own host h0 goes to h1 and up, not back to h0.
    (line,) = [x for x in hub.flows(topo, "s2").splitlines()
               if f"dl_src={topo.host('h0').mac}," in x]
    assert {topo.neighbour("s2", p) for p in _outputs(line)} == {"h1", "s1"}


def test_the_medium_runs_at_the_slowest_link_of_its_switch() -> None:
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2,bw=20,core_bw=50")
    assert switch_rate(topo, "s2") == 20
    assert switch_rate(topo, "s1") == 50
    cmds, tc, _ = hub.setup(topo, "s2")
    assert cmds[0] == ["ip", "link", "add", "s2-hub0", "type", "veth", "peer", "name", "s2-hub1"]
    assert cmds[1] == ["ip", "link", "add", "s2-hub2", "type", "veth", "peer", "name", "s2-hub3"]
    # OVS sends into hub0; a mirror at hub1 queues a clone no socket owns in hub2's HTB
    assert "dev s2-hub2" in tc and "rate 20mbit" in tc and "dev s2-hub0" not in tc
    assert "filter add dev s2-hub1 parent ffff:" in tc and "mirror dev s2-hub2" in tc
    assert "ofport_request=65000" in cmds[-1] and "s2-hub3" in cmds[-1]
    unshaped = parse_spec("star:hosts=2,bw=none")
    assert switch_rate(unshaped, "s1") is None
    assert "htb" not in hub.setup(unshaped, "s1")[1]


def test_a_hubs_medium_is_recorded_for_teardown() -> None:
    emu = Emulation(parse_spec("star:hosts=3"), caps=caps(ingress_shaping=True), switch="hub")
    assert emu.standalone and emu.hub
    assert {"s1-hub0", "s1-hub1", "s1-hub2", "s1-hub3"} <= set(emu.network_on(LOCAL)[1])


@pytest.mark.parametrize(("spec", "kwargs", "message"), [
    ("star:hosts=4", {"switch": "hubs"}, "unknown switch kind 'hubs'; choose from "
                                         "controller, ovs-snooping, flooding, hub, "
                                         "linux-bridge"),
    ("mesh:rows=2,cols=2", {"switch": "hub"}, "has loops"),
    ("star:hosts=4", {"switch": "hub", "servers": "node2"}, "hubs"),
])
def test_bad_hub_arguments_are_refused(spec: str, kwargs: dict, message: str) -> None:
    topo = parse_spec(spec)
    if "servers" in kwargs:
        kwargs["cluster"] = Spread(topo, from_servers(kwargs.pop("servers")))
    with pytest.raises(UsageError, match=message):
        Emulation(topo, caps=caps(), **kwargs)
