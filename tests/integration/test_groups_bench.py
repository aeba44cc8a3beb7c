"""The groups bench's measurement on a real network, small: every host program runs, the
joins are absorbed, the members get exactly their groups on the wire, probes time joins and
leaves, everything is left at the end."""

from __future__ import annotations

import pytest

from testbed.bench import groups
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .conftest import QUICK_BRIDGE


@pytest.mark.parametrize("name", ["controller, fast leave", "ovs-snooping", "linux-bridge"])
def test_a_small_groups_run(name, caps, clean_after):
    # the bridge's last-member time (2 x 1 s by default) shortened too: each probe's leave
    # and the final leaves wait it out (ip-link counts centiseconds)
    quick = {"bridge_options": {**QUICK_BRIDGE, "mcast_last_member_interval": "30"}} \
        if name == "linux-bridge" else {}
    with Emulation(parse_spec(groups.SPEC), caps=caps, **groups.SWITCHES[name], **quick) as emu:
        # a leave ends after 0.5 s without the group's datagrams (the bench: 1 s) on the
        # prober's wire, where the stream sends one every 0.5 ms. Two probes (about 1 s
        # each): the timing of more than one join and leave, as three did
        r = groups.measure(emu, name, 40, 2, print, quiet=0.5)
    assert r["memberships"] == 120 and r["joins_absorbed_s"] is not None
    assert r["delivered"] == r["expected"] and r["expected"]["h1"] == 0
    assert r["join_ms"]["n"] == 2 and r["leave_ms"]["n"] == 2
    # fast leave and OVS: no last-member queries to wait for; the bridge waits its 0.6 s
    assert r["leave_ms"]["p99"] < (3000 if name == "linux-bridge" else 500)
    assert r["all_left_s"] is not None
    if name.startswith("controller"):
        assert r["openflow_groups"] >= 40 and r["controller"]["cpu_s_total"] > 0
    elif name == "ovs-snooping":
        assert r["snooping_entries"] == 120 and r["flows"] == 1  # NORMAL
    else:
        assert r["snooping_entries"] == 120 and r["flows"] == 0
