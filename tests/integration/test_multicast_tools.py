"""The multicast tools people use, from Debian packages, in the emulated hosts: ssmping,
asmping and mcfirst (package ssmping), iperf version 2 for streams, and smcroute for many
joins. What they print is checked, and what the switch delivered is counted on the wire per
source: an SSM receiver must not see a source it did not ask for."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

from controller.config import ControllerConfig
from controller.timers import IgmpTimers
from testbed.emulation.controller_proc import api_get
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .mcast import SourceSniffer, send

TIMERS = IgmpTimers(query_interval=5.0, query_response_interval=1.0, last_member_interval=0.3)
CONFIG = ControllerConfig(timers=TIMERS)


def run(host, cmd: str, timeout: float = 60) -> tuple[int, str]:
    p = host.popen(cmd.split(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out, _ = p.communicate(timeout=timeout)
    return p.returncode, out


def test_ssmping_asmping_mcfirst_and_iperf(caps, clean_after, tmp_path):
    with Emulation(parse_spec("star:hosts=4"), caps=caps, controller_config=CONFIG) as emu:
        h0, h1, h2, h3 = (emu.host(i) for i in range(4))
        server = h0.popen(["ssmpingd"], stdout=subprocess.DEVNULL)
        wire = {h: SourceSniffer(emu.host(h), "224.0.0.0/4", 14.0, tmp_path)
                for h in ("h1", "h2", "h3")}
        for s in wire.values():
            s.wait_ready()
        # ssmping: (h0, 232.43.211.234), unicast requests, multicast replies
        ssm = h1.popen(["ssmping", "-c", "4", h0.IP()], stdout=subprocess.PIPE, text=True)
        rc_asm, asm = run(h2, f"asmping -c 4 239.1.2.234 {h0.IP()}")
        ssm_out, _ = ssm.communicate(timeout=60)
        server.terminate()
        server.wait(timeout=10)

        # mcfirst: h1 asks for (h0, 232.1.2.3) only; h2 makes an any-source join in the SSM
        # range, which RFC 4604 has the switch ignore; h0 and h3 both send.
        firsts = [h.popen(cmd.split(), stdout=subprocess.PIPE, text=True) for h, cmd in
                  ((h1, f"mcfirst -c 3 -t 4 {h0.IP()} 232.1.2.3 5003"),
                   (h2, "mcfirst -t 4 232.1.2.3 5003"))]
        time.sleep(0.5)
        send(h3, "232.1.2.3", 5, port=5003)
        send(h0, "232.1.2.3", 5, port=5003)
        (first_h1, _), (first_h2, _) = (p.communicate(timeout=30) for p in firsts)

        # iperf 2: an SSM receiver of (h0, 232.1.2.4) on h1, an ASM one of 239.1.2.4 on h3
        receivers = [h.popen(cmd.split(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for h, cmd in
                     ((h1, f"iperf -s -u -B 232.1.2.4%h1-eth0 -H {h0.IP()} -t 5"),
                      (h3, "iperf -s -u -B 239.1.2.4%h3-eth0 -t 5"))]
        time.sleep(1.0)
        senders = [h0.popen(f"iperf -c {g} -u -T 1 -t 2 -b 100pps".split(),
                            stdout=subprocess.PIPE, text=True) for g in ("232.1.2.4", "239.1.2.4")]
        for p in senders:
            p.communicate(timeout=30)
        reports = [p.communicate(timeout=30) for p in receivers]
        seen = {h: s.counts() for h, s in wire.items()}
        counters = api_get(emu.controller.api_port, "/state")["counters"]

    assert ssm.returncode == 0, ssm_out
    assert len(re.findall(r"^multicast from", ssm_out, re.M)) >= 2, ssm_out  # the 1st may race
    assert len(re.findall(r"^  unicast from", ssm_out, re.M)) == 4, ssm_out
    assert rc_asm == 0 and "asmping joined (S,G) = (*,239.1.2.234)" in asm, asm
    assert "(S,G) = (10.0.0.1,232.1.2.3)" in first_h1
    assert re.findall(r"Received \d+ bytes from (\S+) after", first_h1) == [h0.IP()] * 3
    assert "0 packets received" in first_h2 and counters["igmp_ignored_ssm_exclude"] >= 1
    for (out, err), group in zip(reports, ("232.1.2.4", "239.1.2.4"), strict=True):
        assert "Joining multicast" in out and "failed" not in err, (out, err)
        lost, total = map(int, re.findall(r"(\d+)/(\d+) \(", out)[-1])
        assert total >= 190 and lost <= 0.05 * total, (group, out)
    # on the wire: each host got exactly the (source, group)s it asked for
    assert seen["h1"].get((h3.IP(), "232.1.2.3"), 0) == 0
    assert seen["h1"][(h0.IP(), "232.1.2.3")] == 5
    assert seen["h1"][(h0.IP(), "232.1.2.4")] >= 190 and (h0.IP(), "239.1.2.4") not in seen["h1"]
    assert not [k for k in seen["h2"] if k[1].startswith("232.")], seen["h2"]
    assert seen["h2"][(h0.IP(), "239.1.2.234")] >= 2
    assert set(seen["h3"]) == {(h0.IP(), "239.1.2.4")}, seen["h3"]


def test_smcroute_joins_many_groups_and_sources(caps, clean_after, tmp_path):
    """smcrouted in h1 (its own socket) joins 64 any-source groups and 16 (h0, G) channels
    in two commands; the kernel reports them in bulk; then it leaves the 64."""
    with Emulation(parse_spec("star:hosts=4"), caps=caps, controller_config=CONFIG) as emu:
        h0, h1, h3 = emu.host(0), emu.host(1), emu.host(3)
        ident = f"mcastlab-test-{emu.record.id}-h1"
        daemon = h1.popen(["smcrouted", "-n", "-N", "-c", "0", "-i", ident],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 10
            while not Path(f"/run/{ident}.pid").exists():
                assert daemon.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
            ctl = ["smcroutectl", "-i", ident]
            assert subprocess.run([*ctl, "join", "h1-eth0", "239.30.0.0/26"]).returncode == 0
            assert subprocess.run([*ctl, "join", "h1-eth0", h0.IP(), "232.30.0.0/28"]
                                  ).returncode == 0
            time.sleep(1.0)
            groups = api_get(emu.controller.api_port, "/groups")
            asm = [g for g in groups if g.startswith("239.30.") and "h1" in groups[g]["members"]]
            ssm = [g for g in groups if g.startswith("232.30.") and "h1" in groups[g]["members"]]
            sniff = SourceSniffer(h1, "224.0.0.0/4", 6.0, tmp_path)
            sniff.wait_ready()
            for sender in (h0, h3):
                for g in [f"239.30.0.{i}" for i in (0, 17, 63)] + ["232.30.0.5", "232.30.0.15"]:
                    send(sender, g, 2, gap=0.0)
            seen = sniff.counts()
            assert subprocess.run([*ctl, "leave", "h1-eth0", "239.30.0.0/26"]).returncode == 0
            time.sleep(TIMERS.last_member_time + 1.0)
            after = api_get(emu.controller.api_port, "/groups")
        finally:
            subprocess.run(["smcroutectl", "-i", ident, "kill"], capture_output=True)
            daemon.wait(timeout=10)
    assert len(asm) == 64 and len(ssm) == 16
    assert groups["232.30.0.5"]["members"]["h1"]["mode"] == "include"
    assert list(groups["232.30.0.5"]["members"]["h1"]["sources"]) == [h0.IP()]
    assert {k: v for k, v in seen.items() if k[0] == h3.IP()} == {
        (h3.IP(), g): 2 for g in ("239.30.0.0", "239.30.0.17", "239.30.0.63")}
    assert sum(v for k, v in seen.items() if k[0] == h0.IP()) == 10
    assert not [g for g in after if g.startswith("239.30.") and "h1" in after[g]["members"]]
    assert "h1" in after["232.30.0.5"]["members"]
