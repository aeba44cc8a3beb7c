"""IGMPv3 source filtering through the controller (RFC 3376 section 6), counted on the wire of
every host, since the receiving kernel's own filter would hide a frame the switch should not
have sent: reports built by controller.igmp for the state transitions, and the kernel's own
reports for sockets that ask for some sources (SSM, IP_ADD_SOURCE_MEMBERSHIP) or block some
(IP_BLOCK_SOURCE)."""

from __future__ import annotations

import time

from controller.config import ControllerConfig
from controller.timers import IgmpTimers
from testbed.emulation.controller_proc import api_get
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .mcast import (
    FilteredMember,
    members,
    until,
    v3_report,
    wire_counts,
    wire_counts_together,
)

# (the crafted reports go out in a few milliseconds each: the tests wait for the controller
# to have taken them in, as they waited for scapy to start in a host before)

SSM, ASM = "232.1.1.1", "239.2.2.2"


def test_crafted_records_pick_the_sources_each_port_gets(caps, clean_after, tmp_path):
    timers = IgmpTimers(query_interval=20.0, query_response_interval=1.0,
                        last_member_interval=0.3)  # crafted state lasts 41 s, LMQT 0.6 s
    with Emulation(parse_spec("star:hosts=4"), caps=caps,
                   controller_config=ControllerConfig(timers=timers)) as emu:
        ip = {h.name: h.IP() for h in emu.hosts}
        port = emu.controller.api
        v3_report(emu.host("h1"), ("allow", SSM, (ip["h0"],)), ("to_ex", ASM, (ip["h3"],)))
        v3_report(emu.host("h2"), ("is_in", SSM, (ip["h3"],)), ("to_ex", ASM, ()))
        v3_report(emu.host("h3"), ("is_ex", SSM, ()))  # no EXCLUDE mode in the SSM range
        until(lambda: members(port, SSM) == members(port, ASM) == {"h1", "h2"} and
              api_get(port, "/state")["counters"].get("igmp_ignored_ssm_exclude"),
              time.monotonic() + 5)  # the controller took in the three reports
        # each source in turn, to both groups at once (each group counted on its own)
        from_h0 = wire_counts_together(emu, [("h0", SSM), ("h0", ASM)], tmp_path)
        from_h3 = wire_counts_together(emu, [("h3", SSM), ("h3", ASM)], tmp_path)
        assert from_h0[0] == {"h0": 0, "h1": 5, "h2": 0, "h3": 0}  # SSM
        assert from_h3[0] == {"h0": 0, "h1": 0, "h2": 5, "h3": 0}
        assert from_h0[1] == {"h0": 0, "h1": 5, "h2": 5, "h3": 0}  # ASM
        assert from_h3[1] == {"h0": 0, "h1": 0, "h2": 5, "h3": 0}
        groups = api_get(port, "/groups")
        h1 = groups[ASM]["members"]["h1"]
        assert (h1["mode"], h1["blocked"], h1["compat"]) == ("exclude", [ip["h3"]], "v3")
        assert list(groups[SSM]["members"]["h1"]["sources"]) == [ip["h0"]]
        assert "h3" not in groups[SSM]["members"]
        state = api_get(port, "/state")["counters"]
        assert state["igmp_ignored_ssm_exclude"] == 1
        sent = state.get("queries_sent", 0)

        # BLOCK from EXCLUDE mode: Q(G,S) to h2's port, then the source runs out there.
        v3_report(emu.host("h2"), ("block", ASM, (ip["h3"],)))
        # TO_IN {} from INCLUDE {h0}: Q(G,{h0}), then h0 runs out on h1's port.
        v3_report(emu.host("h1"), ("to_in", SSM, ()))
        until(lambda: api_get(port, "/state")["counters"]["queries_sent"] >= sent + 4 and
              "h1" not in members(port, SSM) and api_get(port, "/groups")[ASM]["members"]
              .get("h2", {}).get("blocked") == [ip["h3"]],
              time.monotonic() + timers.last_member_time + 0.5)
        assert api_get(port, "/state")["counters"]["queries_sent"] >= sent + 4  # 2 x LMQC
        h3_asm, h0_ssm = wire_counts_together(emu, [("h3", ASM), ("h0", SSM)], tmp_path)
        assert h3_asm == {"h0": 0, "h1": 0, "h2": 0, "h3": 0}
        assert wire_counts(emu, "h0", ASM, tmp_path) == {"h0": 0, "h1": 5, "h2": 5, "h3": 0}
        assert h0_ssm == {"h0": 0, "h1": 0, "h2": 0, "h3": 0}
        groups = api_get(port, "/groups")
    assert groups[ASM]["members"]["h2"]["blocked"] == [ip["h3"]]
    assert groups[ASM]["sources"]["h3"]["kind"] == "unregistered"


def test_kernel_source_filters_hold_on_the_wire(caps, clean_after, tmp_path):
    """The hosts' kernels speak IGMPv3 for their sockets' filters and answer the queries."""
    timers = IgmpTimers(query_interval=4.0, query_response_interval=1.0,
                        last_member_interval=0.3)
    with Emulation(parse_spec("star:hosts=4"), caps=caps,
                   controller_config=ControllerConfig(timers=timers)) as emu:
        ip = {h.name: h.IP() for h in emu.hosts}
        joined = [FilteredMember(emu.host("h1"), "232.9.9.9", "include", [ip["h0"]], tmp_path),
                   FilteredMember(emu.host("h2"), "232.9.9.9", "include", [ip["h3"]], tmp_path),
                   FilteredMember(emu.host("h1"), "239.9.9.9", "exclude", [ip["h3"]], tmp_path),
                   FilteredMember(emu.host("h2"), "239.9.9.9", "exclude", [], tmp_path)]
        for m in joined:
            m.wait_ready()
        port = emu.controller.api
        until(lambda: members(port, "232.9.9.9") == members(port, "239.9.9.9") == {"h1", "h2"},
              time.monotonic() + 5)  # the kernels' reports reached the controller
        # each source to each group in turn: two new flows at once once cost h2 two of its
        # five datagrams here under load (as on fat trees, tests/integration/mcast.py)
        wires = {(s, g): wire_counts(emu, s, g, tmp_path)
                 for s in ("h0", "h3") for g in ("232.9.9.9", "239.9.9.9")}
        groups = api_get(emu.controller.api, "/groups")
        for m in joined:
            m.proc.terminate()
            m.proc.wait(timeout=10)
    assert wires[("h0", "232.9.9.9")] == {"h0": 0, "h1": 5, "h2": 0, "h3": 0}
    assert wires[("h3", "232.9.9.9")] == {"h0": 0, "h1": 0, "h2": 5, "h3": 0}
    assert wires[("h0", "239.9.9.9")] == {"h0": 0, "h1": 5, "h2": 5, "h3": 0}
    assert wires[("h3", "239.9.9.9")] == {"h0": 0, "h1": 0, "h2": 5, "h3": 0}
    assert groups["232.9.9.9"]["members"]["h1"]["mode"] == "include"
    assert groups["239.9.9.9"]["members"]["h1"]["blocked"] == [ip["h3"]]
