"""Linux kernel bridges as standalone switches (Emulation(switch="linux-bridge")): the argument
checks made before anything starts, and how cleanup tells a run's kernel bridges apart."""

from __future__ import annotations

from pathlib import Path

import pytest

from testbed.emulation import cleanup
from testbed.emulation.network import Emulation
from testbed.emulation.ports import LINUX_BRIDGE_PORT
from testbed.emulation.run_records import RunRecord
from testbed.errors import UsageError
from topologies import parse_spec

from .test_testbed_linkshape import caps


def test_linux_bridge_mode_has_no_controller_and_plain_ports() -> None:
    emu = Emulation(parse_spec("star:hosts=4"), caps=caps(), switch="linux-bridge",
                    bridge_options={"mcast_last_member_interval": "50"})
    assert emu.standalone and emu.linux_bridge
    assert emu.host_ports == LINUX_BRIDGE_PORT
    assert emu._xdp_intfs() == set()
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


def _netdev(root: Path, name: str, alias: str | None = None, bridge: bool = True) -> None:
    (root / name).mkdir()
    if bridge:
        (root / name / "bridge").mkdir()
    if alias is not None:
        (root / name / "ifalias").write_text(alias + "\n")


def test_kernel_bridges_are_told_apart_by_their_alias(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    _netdev(tmp_path, "s1", f"{cleanup.BRIDGE_MARK}=run-a")      # run-a's
    _netdev(tmp_path, "s2", "")                                  # unmarked (killed early)
    _netdev(tmp_path, "s3", f"{cleanup.BRIDGE_MARK}=run-b")      # another run's
    _netdev(tmp_path, "docker0")                                 # no alias file: not ours
    _netdev(tmp_path, "br-lab", "someone else's bridge")
    _netdev(tmp_path, "s1-eth1", bridge=False)                   # a port, not a bridge
    _netdev(tmp_path, "s9", bridge=False)                        # an OVS internal port
    monkeypatch.setattr(cleanup, "SYS_NET", tmp_path)
    assert cleanup.kernel_bridges() == {"s1": "run-a", "s2": "", "s3": "run-b",
                                        "docker0": "", "br-lab": ""}
    rec = RunRecord(id="run-a", pid=1, started=0.0, run_dir="", bridges=["s1", "s2", "s3"])
    assert cleanup.run_kernel_bridges(rec) == ["s1", "s2"]
    other = RunRecord(id="run-c", pid=1, started=0.0, run_dir="", bridges=["s1", "s9"])
    assert cleanup.run_kernel_bridges(other) == []
