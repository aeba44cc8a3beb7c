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

from .mcast import SourceSniffer, members, send, until
from .shared import shared_network

TIMERS = IgmpTimers(query_interval=5.0, query_response_interval=1.0, last_member_interval=0.3)
CONFIG = ControllerConfig(timers=TIMERS)

# both tests end their tools and leave their groups: they share one star (shared.py)
star, star_network = shared_network("star", "star:hosts=4", controller_config=CONFIG)


def h1_groups(api: Path) -> list[str]:
    """The groups of smcroute's ranges that h1 is a member of at the controller."""
    return [g for g, v in api_get(api, "/groups").items()
            if g.startswith(("239.30.", "232.30.")) and "h1" in v["members"]]


def test_ssmping_asmping_mcfirst_and_iperf(star, tmp_path):
    emu = star
    h0, h1, h2, h3 = (emu.host(i) for i in range(4))
    port = emu.controller.api
    server = h0.popen(["ssmpingd"], stdout=subprocess.DEVNULL)
    wire = {h: SourceSniffer(emu.host(h), "224.0.0.0/4", 30.0, tmp_path)
            for h in ("h1", "h2", "h3")}
    for s in wire.values():
        s.wait_ready()
    # Every tool at once, each on groups of its own (the sniffers count per source and
    # group), so that the run takes as long as the slowest, ssmping's one ping a second.
    # ssmping: (h0, 232.43.211.234), unicast requests, multicast replies
    ssm = h1.popen(["ssmping", "-c", "4", h0.IP()], stdout=subprocess.PIPE, text=True)
    asm_p = h2.popen(f"asmping -c 4 239.1.2.234 {h0.IP()}".split(), stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
    # mcfirst: h1 asks for (h0, 232.1.2.3) only; h2 makes an any-source join in the SSM
    # range, which RFC 4604 has the switch ignore; h0 and h3 both send.
    firsts = [h.popen(cmd.split(), stdout=subprocess.PIPE, text=True) for h, cmd in
              ((h1, f"mcfirst -c 3 -t 4 {h0.IP()} 232.1.2.3 5003"),
               (h2, "mcfirst -t 4 232.1.2.3 5003"))]
    # iperf 2: an SSM receiver of (h0, 232.1.2.4) on h1, an ASM one of 239.1.2.4 on h3;
    # 200 datagrams to each group (1 s at 200 a second), inside the receivers' 3.5 s
    receivers = [h.popen(cmd.split(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True) for h, cmd in
                 ((h1, f"iperf -s -u -B 232.1.2.4%h1-eth0 -H {h0.IP()} -t 3.5"),
                  (h3, "iperf -s -u -B 239.1.2.4%h3-eth0 -t 3.5"))]
    until(lambda: "h1" in members(port, "232.1.2.3") and "h1" in members(port, "232.1.2.4")
          and "h3" in members(port, "239.1.2.4") and api_get(port, "/state")["counters"]
          .get("igmp_ignored_ssm_exclude"), time.monotonic() + 5)  # the joins arrived
    senders = [h0.popen(f"iperf -c {g} -u -T 1 -t 1 -b 200pps".split(),
                        stdout=subprocess.PIPE, text=True) for g in ("232.1.2.4", "239.1.2.4")]
    send(h3, "232.1.2.3", 5, port=5003)
    send(h0, "232.1.2.3", 5, port=5003)
    (first_h1, _), (first_h2, _) = (p.communicate(timeout=30) for p in firsts)
    for p in senders:
        p.communicate(timeout=30)
    reports = [p.communicate(timeout=30) for p in receivers]
    ssm_out, _ = ssm.communicate(timeout=60)
    asm, _ = asm_p.communicate(timeout=60)
    rc_asm = asm_p.returncode
    server.terminate()
    server.wait(timeout=10)
    seen = {h: s.counts() for h, s in wire.items()}
    counters = api_get(port, "/state")["counters"]

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


def test_smcroute_joins_many_groups_and_sources(star, tmp_path):
    """smcrouted in h1 (its own socket) joins 64 any-source groups and 16 (h0, G) channels
    in two commands; the kernel reports them in bulk; then it leaves the 64."""
    emu = star
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
        port = emu.controller.api
        until(lambda: len(h1_groups(port)) == 64 + 16, time.monotonic() + 10)
        groups = api_get(emu.controller.api, "/groups")
        asm = [g for g in groups if g.startswith("239.30.") and "h1" in groups[g]["members"]]
        ssm = [g for g in groups if g.startswith("232.30.") and "h1" in groups[g]["members"]]
        sniff = SourceSniffer(h1, "224.0.0.0/4", 6.0, tmp_path)
        sniff.wait_ready()
        for sender in (h0, h3):
            for g in [f"239.30.0.{i}" for i in (0, 17, 63)] + ["232.30.0.5", "232.30.0.15"]:
                send(sender, g, 2, gap=0.0)
        seen = sniff.counts()
        assert subprocess.run([*ctl, "leave", "h1-eth0", "239.30.0.0/26"]).returncode == 0
        until(lambda: not [g for g in h1_groups(port) if g.startswith("239.30.")],
              time.monotonic() + TIMERS.last_member_time + 1.0)
        after = api_get(emu.controller.api, "/groups")
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
