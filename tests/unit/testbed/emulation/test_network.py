"""testbed.emulation.network.Emulation's checks before anything starts: Linux kernel bridges as
standalone switches (no controller, plain ports, a loop-free topology, bad arguments
refused), and the hosts' CPU share."""

from __future__ import annotations

import pytest

from testbed.emulation.network import Emulation
from testbed.emulation.ports import LINUX_BRIDGE_PORT
from testbed.errors import CapabilityError, UsageError
from topologies import parse_spec

from .machines import caps


def test_linux_bridge_mode_has_no_controller_and_plain_ports() -> None:
    emu = Emulation(parse_spec("star:hosts=4"), caps=caps(), switch="linux-bridge",
                    bridge_options={"mcast_last_member_interval": "50"})
    assert emu.standalone and emu.linux_bridge
    assert emu.host_ports == LINUX_BRIDGE_PORT
    assert emu.port_plan.xdp_intfs(emu.topo) == set()
    with pytest.raises(UsageError, match="no controller"):
        emu.fail_nodes([1])


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"switch": "linux_bridge"}, "unknown switch kind 'linux_bridge'"),
    ({"bridge_options": {"mcast_querier": "1"}}, "switch linux-bridge"),
    ({"switch": "linux-bridge", "bridge_options": {"mcast_querier": "1\nlink del eth0"}},
     "a name and a number"),
    ({"switch": "linux-bridge", "bridge_options": {"mcast querier": "1"}}, "a name and a number"),
    ({"switch": "linux-bridge", "ports": "afxdp"}, "AF_XDP switch ports are OVS ports"),
])
def test_bad_linux_bridge_arguments_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Emulation(parse_spec("star:hosts=4"), caps=caps(), **kwargs)


def test_linux_bridges_need_a_loop_free_topology() -> None:
    with pytest.raises(UsageError, match="has loops: standalone switches need a tree"):
        Emulation(parse_spec("mesh:rows=2,cols=2"), caps=caps(), switch="linux-bridge")
    Emulation(parse_spec("tree:leaves=2,hosts_per_leaf=2"), caps=caps(), switch="linux-bridge")

def test_host_cpu_share_is_checked_before_anything_starts(monkeypatch, tmp_path):
    from testbed.emulation import network

    topo = parse_spec("star:hosts=2")
    for bad in (0, -0.5, 1.5):
        with pytest.raises(UsageError, match=r"fraction of the machine in \(0, 1\]"):
            Emulation(topo, caps=caps(), host_cpu=bad)
    monkeypatch.setattr(network, "CFS_QUOTA", tmp_path / "absent")
    with pytest.raises(CapabilityError, match="cgroup v1 cpu controller"):
        Emulation(topo, caps=caps(), host_cpu=0.1)
