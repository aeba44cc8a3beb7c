"""Lab 1: IGMP snooping. Joins become forwarding state; leaves and silence remove it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.config import ControllerConfig
from controller.timers import IgmpTimers

from ..emulation.controller_proc import api_get, wait_members
from ..emulation.group_probe import Member, send_counted
from ..errors import McastlabError
from .answers import Question
from .lab import Lab

GROUP = "239.1.1.1"
SENT = 5
TIMERS = IgmpTimers(query_interval=2.0, query_response_interval=1.0, last_member_interval=0.5)

QUESTIONS = (
    Question("member_frames", f"h0 sends {SENT} datagrams to {GROUP}, which h1 and h2 joined: "
             "frames of the group on h1's wire", "int"),
    Question("nonmember_frames", "... and on h3's wire (h3 did not join)", "int"),
    Question("buckets", "buckets (output ports) of the switch's OpenFlow group for "
             f"{GROUP} from h0", "int"),
    Question("leave_s", "seconds from h2's leave until the controller no longer lists it",
             factor=3.0, abs_tol=1.0),
    Question("after_leave_frames", f"frames on h2's wire when h0 sends {SENT} more after "
             "the leave", "int"),
    Question("membership_interval_s", "the membership interval the controller runs with "
             "(robustness x query interval + query response interval), s", factor=1.0,
             abs_tol=0.01),
    Question("expiry_s", "seconds from cutting h1 off (loss 100%) until the controller forgets "
             "it", factor=2.0, abs_tol=2.0),
)


def _wait_members(emu: Any, want: Callable[[set[str]], bool], what: str,
                  timeout: float) -> float:
    """Seconds until the controller's members are as wanted (the switches' confirmation of
    the flows that follow waited for, not counted)."""
    took = wait_members(emu.controller.api, GROUP, want, timeout)
    if took is None:
        raise McastlabError(f"lab 1: {what} did not happen (or the switches did not confirm "
                            f"it) within {timeout:g} s")
    return took


def _is(emu: Any, name: str) -> set[str]:
    """The names a member may go by in /groups (host name or address)."""
    return {name, emu.topo.host(name).ip}


def measure(emu: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    work = emu.run_dir / "lab1"
    work.mkdir(exist_ok=True)
    hosts = {h.name: h for h in emu.hosts}
    h1, h2 = (_is(emu, n) for n in ("h1", "h2"))
    out: dict[str, Any] = {}
    progress("lab 1: h1 and h2 join, h0 sends")
    members = {n: Member(hosts[n], GROUP, work) for n in ("h1", "h2")}
    try:
        _wait_members(emu, lambda m: bool(m & h1) and bool(m & h2), "the joins", 10)
        frames = send_counted(emu.hosts, hosts["h0"], GROUP, SENT, work)
        out["member_frames"], out["nonmember_frames"] = frames["h1"], frames["h3"]
        src = api_get(emu.controller.api, "/groups")[GROUP]["sources"]
        tree = next(iter(src.values()))
        out["buckets"] = sum(len(p) for p in tree.get("tree", {}).values())
        progress("lab 1: h2 leaves")
        members.pop("h2").stop()
        out["leave_s"] = round(_wait_members(emu, lambda m: not m & h2, "h2's removal", 15),
                               2)
        out["after_leave_frames"] = send_counted(emu.hosts, hosts["h0"], GROUP, SENT,
                                                 work)["h2"]
        t = emu.controller_config.timers
        out["membership_interval_s"] = t.membership_interval
        progress("lab 1: h1 cut off; waiting for its membership to expire")
        emu.set_loss(1.0, ["h1"])
        try:
            out["expiry_s"] = round(_wait_members(emu, lambda m: not m & h1, "h1's expiry",
                                                  3 * t.membership_interval), 2)
        finally:
            emu.set_loss(0, ["h1"])
    finally:
        for m in members.values():
            m.stop()
    return out


LAB = Lab(1, "IGMP snooping", "01-igmp-snooping.md", "star:hosts=4", QUESTIONS, measure,
          ControllerConfig(timers=TIMERS), paper="RFC 3376 / Chen2000 (IP multicast on "
          "switched Ethernet)")
