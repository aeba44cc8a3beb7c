"""testbed.emulation.ctlnet without a network: the control network's names and addresses, clear
of the data network and the two-server rig, and what a run records of it."""

from __future__ import annotations

import ipaddress
import subprocess
from pathlib import Path

import pytest

from testbed.cluster.rig import LOCAL_IP, REMOTE_IP
from testbed.emulation import ctlnet
from testbed.emulation.cleanup import BRIDGE_MARK
from testbed.emulation.mpi import _RANK_WRAPPER
from testbed.emulation.network import Emulation
from testbed.errors import UsageError
from testbed.specs.cluster import LOCAL
from topologies import parse_spec

from .machines import caps


def test_addresses_are_clear_of_the_data_network_and_the_rig() -> None:
    data = ipaddress.IPv4Network("10.0.0.0/8")
    first, last = ctlnet.address(0), ctlnet.address(ctlnet.SUBNET.num_addresses - 3)
    assert (first, last) == ("198.18.128.1", "198.18.255.254")
    assert not ctlnet.SUBNET.overlaps(data)
    assert not {ipaddress.IPv4Address(a) for a in (LOCAL_IP, REMOTE_IP)} & set(ctlnet.SUBNET)
    with pytest.raises(UsageError, match="room for 32766 hosts"):
        ctlnet.address(ctlnet.SUBNET.num_addresses - 2)


def test_interface_names_fit_the_kernels_limit() -> None:
    """A host name the data interface allows (h1023-eth0) fits both control ends."""
    assert ctlnet.host_intf("h1023") == "h1023-ctl" and ctlnet.root_intf("h1023") == "ctl-h1023"
    assert len(ctlnet.root_intf("abcdefghij")) <= 15  # IFNAMSIZ - 1


def test_a_runs_record_names_the_bridge_and_veths_only_on_one_machine() -> None:
    emu = Emulation(parse_spec("star:hosts=3"), caps=caps())
    bridges, intfs = emu.network_on(LOCAL)
    assert bridges == ["s1", ctlnet.BRIDGE]
    assert {"ctl-h0", "ctl-h1", "ctl-h2"} <= set(intfs)
    assert emu.control_address("h2") == "198.18.128.3"
    emu.control = False  # as across servers
    assert ctlnet.BRIDGE not in emu.network_on(LOCAL)[0] and emu.control_address("h2") is None


def test_the_bridge_is_marked_and_has_no_address() -> None:
    batch = ctlnet.bridge_batch("run-x", [("h0", 101), ("h1", 102)], BRIDGE_MARK)
    assert f"link set {ctlnet.BRIDGE} alias {BRIDGE_MARK}=run-x\n" in batch
    assert "nf_call_iptables 0" in batch and " addr " not in batch
    assert "link add ctl-h1 type veth peer name h1-ctl netns 102\n" in batch
    assert ctlnet.host_cmds("h1", 1)[0] == "ip addr add 198.18.128.2/17 dev h1-ctl"


def test_ranks_use_their_hosts_data_interface_whatever_the_caller_set() -> None:
    """The wrapper names UCX's device from the host's hostname (its name)."""
    out = subprocess.run(["sh", "-c", _RANK_WRAPPER, "sh", "sh", "-c",
                          'echo "$UCX_NET_DEVICES"'], capture_output=True, text=True,
                         env={"UCX_NET_DEVICES": "all", "PATH": "/usr/bin:/bin"})
    host = Path("/proc/sys/kernel/hostname").read_text().strip()
    assert out.stdout == f"{host}-eth0\n"
