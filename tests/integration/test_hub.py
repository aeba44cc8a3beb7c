"""A hub (Emulation(switch="hub")): every frame, unicast too, reaches every other host, and two
streams between different pairs share the hub's one medium instead of crossing side by
side; its loop exists while the network is up and is gone after."""

from __future__ import annotations

import json
import subprocess

from testbed.emulation.cleanup import interfaces
from testbed.emulation.network import Emulation
from topologies import parse_spec

RATE = 20  # Mbit/s, the hub's and every link's


MEDIUM = {"s1-hub0", "s1-hub1", "s1-hub2", "s1-hub3"}  # testbed.emulation.one_way


def medium_class(intf: str = "s1-hub2") -> str:
    return subprocess.run(["tc", "class", "show", "dev", intf], capture_output=True,
                          text=True, check=True).stdout


def rx_packets(host) -> int:
    return int(host.cmd(f"cat /sys/class/net/{host.name}-eth0/statistics/rx_packets"))


def udp_stream(client, server) -> object:
    """iperf3 UDP at the link's rate for 1 s (the server already listening once)."""
    return client.popen(["iperf3", "-c", server.IP(), "-u", "-b", f"{RATE}M", "-t", "1",
                         "-l", "1400", "-J"], text=True)


def test_hub_floods_unicast_and_shares_one_medium(caps, clean_after):
    topo = parse_spec(f"star:hosts=4,bw={RATE}")
    with Emulation(topo, caps=caps, switch="hub") as emu:
        assert emu.controller is None
        assert interfaces() >= MEDIUM
        h0, h1, h2, h3 = emu.hosts
        assert f"rate {RATE}Mbit" in medium_class()

        # Unicast between h0 and h1 (MACs long learned by a switch) is on h2's wire too.
        h0.cmd(f"ping -c2 -i 0.05 -W1 {h1.IP()}")  # 50 ms apart, not a second
        before = rx_packets(h2)
        out = h0.cmd(f"ping -c5 -i 0.05 -W1 -q {h1.IP()}")
        assert " 0% packet loss" in out, out
        assert rx_packets(h2) - before >= 10  # 5 requests and 5 replies

        # h0->h1 and h2->h3 at the link rate each: on a switch each pair gets its rate
        # (together twice the rate), on the hub both share one medium of that rate.
        servers = [h.popen(["iperf3", "-s", "-1", "-B", h.IP()], text=True) for h in (h1, h3)]
        for s, h in zip(servers, (h1, h3), strict=True):
            for _ in range(50):
                if "LISTEN" in h.cmd("ss -Hltn sport = :5201 | head -1") or s.poll():
                    break
                h.cmd("sleep 0.05")
        streams = [udp_stream(h0, h1), udp_stream(h2, h3)]
        got = []
        for p in streams:
            out, _ = p.communicate(timeout=30)
            got.append(json.loads(out)["end"]["sum_received"]["bits_per_second"] / 1e6)
        for s in servers:
            s.communicate(timeout=30)
        # (how the two share it is the drop-tail queue's business: a real hub's stations
        # would defer and back off, which this one does not emulate)
        assert 0.6 * RATE <= sum(got) <= 1.1 * RATE, got

        # calibration retunes a running network: the medium follows its links
        emu.retune(topo.scaled(0.5))
        assert f"rate {RATE // 2}Mbit" in medium_class()
    assert not MEDIUM & interfaces()
