"""The differential check: one membership script (real kernel IGMP from the hosts) against
the controller, Open vSwitch's snooping and the kernel's Linux bridge. The controller does
what RFC 3376/4604/4541 say at every step; the other two differ exactly where docs/controller.md
says they do (OVS snooping ignores source lists; both take any-source joins in the SSM
range)."""

from __future__ import annotations

import pytest

from controller.config import ControllerConfig
from controller.timers import IgmpTimers
from testbed.bench import snooping_diff
from testbed.emulation.network import Emulation
from topologies import parse_spec

from .conftest import QUICK_BRIDGE

KNOWN = {
    "controller": [],
    "ovs-snooping": [
        "SSM channel (h0, G): h2 also got h4 232.50.0.2",
        "any source but h4: h3 also got h4 239.50.0.3",
        "any-source join in the SSM range: h1 also got h0 232.50.0.4, h4 232.50.0.4"],
    "linux-bridge": [
        "any-source join in the SSM range: h1 also got h0 232.50.0.4, h4 232.50.0.4"],
}


# The leave step waits for the switch to drop the member: the controller's and the bridge's
# last-member time shortened (2 x 1 s by default) to 2 x 0.3 s; the script is the same.
QUICK = {"controller": {"controller_config": ControllerConfig(
             timers=IgmpTimers(last_member_interval=0.3))},
         "ovs-snooping": {},
         "linux-bridge": {"bridge_options": {**QUICK_BRIDGE,
                                             "mcast_last_member_interval": "30"}}}


@pytest.mark.parametrize("switch", list(snooping_diff.SWITCHES))
def test_the_membership_script(switch, caps, clean_after):
    with Emulation(parse_spec(snooping_diff.SPEC), caps=caps,
                   **snooping_diff.SWITCHES[switch], **QUICK[switch]) as emu:
        rows = snooping_diff.run_script(emu, print)
    assert len(rows) == len(snooping_diff.STEPS)
    assert rows[0]["got"]["h1"] == ["h0 239.50.0.1", "h4 239.50.0.1"]  # the script ran
    assert snooping_diff.differences(rows) == KNOWN[switch]
