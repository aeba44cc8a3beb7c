"""Linux kernel bridges with their own IGMPv3 snooping and querier as the switches
(Emulation(switch="linux-bridge")): no controller; joins and leaves made by real sockets decide
which hosts get a group, as with the controller and OVS snooping; the bridges exist while
the network is up and are gone after."""

from __future__ import annotations

import json
import subprocess
import sys
import time

from testbed.emulation import ctlnet
from testbed.emulation.cleanup import kernel_bridges, leftovers
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .conftest import MCASTLAB, QUICK_BRIDGE, assert_clean, net_namespaces
from .mcast import Receiver, results, wire_counts

GROUP = "239.5.6.7"
MEMBERS = ("h1", "h3")


def bridge_info(name: str) -> dict:
    out = subprocess.run(["ip", "-d", "-j", "link", "show", name], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)[0]["linkinfo"]["info_data"]


def mdb_ports(bridge: str, group: str) -> set[str]:
    out = subprocess.run(["bridge", "-j", "mdb", "show", "dev", bridge], capture_output=True,
                         text=True, check=True).stdout
    return {e["port"] for dev in json.loads(out or "[]") for e in dev.get("mdb", [])
            if e.get("grp") == group}


def test_kernel_bridge_snoops_joins_and_leaves(caps, clean_after, tmp_path):
    topo = parse_spec("star:hosts=4")
    # the last-member time shortened too (2 x 1 s by default; ip-link counts centiseconds):
    # the leaves wait it out, whatever it is
    quick = {**QUICK_BRIDGE, "mcast_last_member_interval": "30"}
    with Emulation(topo, caps=caps, switch="linux-bridge", bridge_options=quick) as emu:
        assert emu.controller is None
        # the switch, and the control network's bridge (testbed.emulation.ctlnet)
        assert kernel_bridges() == {"s1": emu.record.id, ctlnet.BRIDGE: emu.record.id}
        shown = subprocess.run(["ip", "-d", "link", "show", "s1"], capture_output=True,
                               text=True, check=True).stdout
        assert "mcast_snooping 1" in shown and "mcast_querier 1" in shown, shown
        info = bridge_info("s1")
        assert info["mcast_igmp_version"] == 3
        ports = subprocess.run(["ip", "-br", "link", "show", "master", "s1"],
                               capture_output=True, text=True, check=True).stdout
        assert sorted(line.split("@")[0] for line in ports.split()
                      if line.startswith("s1-eth")) == [f"s1-eth{i}" for i in range(1, 5)]

        # Members h1 and h3 get the group, h2 (not a member) sees none of it on its wire.
        rx = {m: Receiver(emu.host(m), GROUP, 4.0, tmp_path) for m in MEMBERS}
        for r in rx.values():
            r.wait_ready()
        # the bridge forwards by its MDB: h0 sends once both joins are in it (not a
        # settling time after the sockets joined)
        deadline = time.monotonic() + 10
        while len(mdb_ports("s1", GROUP)) < len(MEMBERS) and time.monotonic() < deadline:
            time.sleep(0.05)
        wire = wire_counts(emu, "h0", GROUP, tmp_path, settle=0)
        joined = mdb_ports("s1", GROUP)
        got = {m: r["count"] for m, r in zip(rx, results(rx.values()), strict=True)}  # leaves
        assert got == {m: 5 for m in MEMBERS}
        assert wire == {h.name: (5 if h.name in MEMBERS else 0) for h in topo.hosts}, wire
        assert len(joined) == 2, joined

        # After the leaves and the bridge's last-member time, the group reaches nobody.
        lmt = info["mcast_last_member_cnt"] * info["mcast_last_member_intvl"] / 100
        deadline = time.monotonic() + lmt + 1
        while mdb_ports("s1", GROUP) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert mdb_ports("s1", GROUP) == set()
        wire = wire_counts(emu, "h0", GROUP, tmp_path, settle=0)
        assert wire == {h.name: 0 for h in topo.hosts}, wire

        # Link-local groups reach every host, as RFC 4541 asks (and OVS and the controller do).
        wire = wire_counts(emu, "h0", "224.0.0.251", tmp_path, settle=0)
        assert wire == {h.name: (0 if h.name == "h0" else 5) for h in topo.hosts}, wire
    assert "s1" not in kernel_bridges()


UP_AND_SLEEP = f"""
import time
from testbed.emulation.network import Emulation
from topologies import parse_spec
with Emulation(parse_spec("tree:leaves=2,hosts_per_leaf=1"), switch="linux-bridge",
               bridge_options={QUICK_BRIDGE!r}):
    print("up", flush=True)
    time.sleep(300)
"""


def test_sigkill_then_cleanup_removes_the_kernel_bridges(caps):
    before = net_namespaces()
    proc = subprocess.Popen([sys.executable, "-c", UP_AND_SLEEP], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # the run lock may make it wait for another network
        assert line.strip() == "up", proc.communicate(timeout=60)
        run_id = kernel_bridges()["s1"]
        assert kernel_bridges() == {s: run_id for s in ("s1", "s2", "s3", ctlnet.BRIDGE)}
    finally:
        proc.kill()
        proc.wait()
    # The kill left the bridges (and the rest) behind: the cleanup below is not vacuous. (Not
    # the hosts' veths, control ones included: the hosts' shells end when their parent is
    # killed, and a veth goes with the namespace of its other end, sooner or later; a CI run
    # of 2026-12-07 found ctl-h0 already gone here.)
    assert leftovers()["bridges"] == sorted(["s1", "s2", "s3", ctlnet.BRIDGE])
    out = subprocess.run([*MCASTLAB, "cleanup"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "removed run" in out.stdout
    assert_clean(before)
