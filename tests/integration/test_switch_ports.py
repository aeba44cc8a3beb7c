"""The switch ports that face hosts: AF_XDP ports (the default where the machine has them)
and the default AF_PACKET ports forward unicast and multicast groups, carry loss and
shaping in both directions, and count frames; the switch runs at a higher priority while a
run is up, and gets its own back afterwards."""

from __future__ import annotations

import json
import subprocess
import time

import pytest

from testbed.emulation import priority
from testbed.emulation.controller_proc import api_get
from testbed.emulation.environment import AFXDP_PORT
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .mcast import Receiver, results, send
from .netutil import IPERF_PORT, tcp_transfer, wait_listening


def iface_types() -> dict[str, str]:
    out = subprocess.run(["ovs-vsctl", "--format=json", "--columns=name,type", "list",
                          "Interface"], capture_output=True, text=True, check=True).stdout
    return {name: kind for name, kind in json.loads(out)["data"]}


def switch_nice() -> set[int]:
    pid = priority.switch_pid()
    assert pid is not None, "ovs-vswitchd is not running"
    return {n for t in priority.threads(pid) if (n := priority.niceness(t)) is not None}


@pytest.mark.parametrize("ports", ["afxdp", "af_packet"])
def test_host_ports_forward_shape_and_count(ports, caps, clean_after, tmp_path):
    assert caps.afxdp, "this machine should offer AF_XDP ports (see mcastlab doctor)"
    before_nice = {t: priority.niceness(t) for t in priority.threads(priority.switch_pid())}
    before_group = priority.autogroup(priority.switch_pid())
    with Emulation(parse_spec("star:hosts=4,bw=10"), caps=caps, ports=ports) as emu:
        types = iface_types()
        want = AFXDP_PORT if ports == "afxdp" else ""
        assert {types[f"s1-eth{i}"] for i in range(1, 5)} == {want}, types
        assert emu.host_ports == (AFXDP_PORT if ports == "afxdp" else "af_packet")
        assert switch_nice() == {priority.SWITCH_NICE}
        if before_group is not None:  # autogroup scheduling: the session weighs, not nice
            assert priority.autogroup(priority.switch_pid()) == priority.SWITCH_NICE

        # unicast, shaped to 10 Mbit/s both ways (the switch-to-host way through the IFB)
        for src, dst in (("h0", "h1"), ("h1", "h0")):
            got = tcp_transfer(emu, src, dst, nbytes=2_500_000)
            assert 7e6 < got["received"]["bits_per_second"] < 10.5e6, (src, dst, got)

        # a multicast group reaches its members only; the switch's counters saw it
        ports_before = api_get(emu.controller.api, "/ports")["s1"]
        members = [Receiver(emu.host(h), "239.1.1.1", 4.0, tmp_path) for h in ("h1", "h2")]
        other = Receiver(emu.host("h3"), "239.1.1.9", 4.0, tmp_path)
        for r in (*members, other):
            r.wait_ready()
        send(emu.host("h0"), "239.1.1.1", count=10, gap=0.02)
        *got, got_other = results([*members, other])
        assert [r["count"] for r in got] == [10, 10]
        assert got_other["count"] == 0
        ports_after = api_get(emu.controller.api, "/ports")["s1"]
        h0_port = next(p for p, c in ports_after.items() if c["neighbour"] == "h0")
        assert ports_after[h0_port]["rx_packets"] - ports_before[h0_port]["rx_packets"] >= 10

        # loss on a host link: each ping crosses it twice, so about 1 - 0.5^2 = 75 % lost
        emu.set_loss(0.5, ["h1"])
        out = emu.host("h0").cmd("ping -q -c 200 -i 0.005 -W 1", emu.host("h1").IP())
        lost = float(out.split("% packet loss")[0].split()[-1])
        assert 55 <= lost <= 92, out
        emu.set_loss(0)
    # threads that lived through the run have their own priority back (OVS makes and
    # ends per-datapath threads as bridges come and go)
    after = {t: n for t in before_nice if (n := priority.niceness(t)) is not None}
    assert priority.switch_pid() in after
    assert after == {t: before_nice[t] for t in after}
    assert priority.autogroup(priority.switch_pid()) == before_group
    assert not priority.note_exists()


def test_unknown_port_type_is_refused(caps):
    from testbed.errors import UsageError

    with pytest.raises(UsageError, match="not one of auto, afxdp, af_packet"):
        Emulation(parse_spec("star:hosts=2"), caps=caps, ports="dpdk")


def test_frames_an_overrun_switch_drops_at_its_ports_flag_the_window(caps, clean_after):
    """UDP at a 1 Gbit/s host link's full rate through two switches is more than the
    software switch on this machine takes in (it forwards about 200 Mbit/s of full frames
    here): the AF_XDP port's ring overflows, the frames are dropped on arrival, and the
    fidelity monitor flags the window, naming the sender's port; the same stream at 20
    Mbit/s is carried whole, unflagged."""
    from testbed.emulation.ports import host_links
    from testbed.fidelity.flags import Monitor

    topo = parse_spec("tree:leaves=2,hosts_per_leaf=1,bw=1000")
    with Emulation(topo, caps=caps, ports="afxdp") as emu:
        h0, h1 = emu.host(0), emu.host(1)
        port = host_links(topo)[h0.name][0]
        got = {}
        for rate in ("20M", "1000M"):
            server = h1.popen(["iperf3", "-s", "-1", "-B", h1.IP()])
            wait_listening(h1, IPERF_PORT, server)
            with Monitor(emu.topo) as mon:
                t0 = time.time()
                # 1 s: the overrun ring drops within milliseconds of 1 Gbit/s, and the
                # monitor's samples (0.5 s apart) enclose the window either way (2 s each,
                # as it was, took 2 s more of the test)
                out = h0.cmd(f"iperf3 -c {h1.IP()} -u -b {rate} -l 1400 -t 1 -J")
                t1 = time.time()
            window = mon.window(t0, t1)
            server.wait(timeout=20)
            got[rate] = (window, json.loads(out)["end"]["sum"]["lost_packets"])
    quiet, (lossy, lost) = got["20M"][0], got["1000M"]
    assert quiet["ok"] and quiet["port_drops"] == [], quiet["flags"]
    assert lost > 0 and not lossy["ok"]
    assert [d["port"] for d in lossy["port_drops"]][:1] == [port], lossy["port_drops"]
    assert any(f.startswith("switch ports dropped") for f in lossy["flags"]), lossy["flags"]
