"""Lab 1: IGMP snooping. Joins become forwarding state; leaves and silence remove it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any

from controller.config import ControllerConfig
from controller.timers import IgmpTimers

from ..emulation.controller_proc import api_get, wait_members
from ..emulation.group_probe import Member, send_counted
from ..errors import McastlabError
from .answers import Question
from .lab import Lab
from .variant import Addresses, Knob, Values, VariantSpace

GROUP = "239.1.1.1"
SENT = 5
TIMERS = IgmpTimers(query_interval=2.0, query_response_interval=1.0, last_member_interval=0.5)

HOSTS = ("h0", "h1", "h2", "h3")
# what a student's variant may change (testbed.labs.variant): the handout's values first
VARIANTS = VariantSpace((
    Knob("group", "the group", GROUP, Addresses()),
    Knob("roles", "the sender, the member that stays, the member that leaves, the host that "
         "does not join", list(HOSTS), HOSTS, sizes=(4,),
         ordered=True),
    Knob("sent", "datagrams per send", SENT, tuple(range(3, 13))),
    Knob("query_interval_s", "the query interval, s",
         TIMERS.query_interval, (1.5, 2.0, 2.5, 3.0)),
    Knob("last_member_interval_s", "the last member interval, s",
         TIMERS.last_member_interval, (0.5, 0.75, 1.0)),
), graded=("sent", "query_interval_s", "last_member_interval_s"))


def questions(v: Values) -> tuple[Question, ...]:
    group, sent = v["group"], v["sent"]
    src, stays, leaves, out = v["roles"]
    return (
        Question("member_frames", f"{src} sends {sent} datagrams to {group}, which {stays} "
                 f"and {leaves} joined: frames of the group on {stays}'s wire", "int"),
        Question("nonmember_frames", f"... and on {out}'s wire ({out} did not join)", "int"),
        Question("buckets", "buckets (output ports) of the switch's OpenFlow group for "
                 f"{group} from {src}", "int"),
        Question("leave_s", f"seconds from {leaves}'s leave until the controller no longer "
                 "lists it", factor=3.0, abs_tol=1.0),
        Question("after_leave_frames", f"frames on {leaves}'s wire when {src} sends {sent} "
                 "more after the leave", "int"),
        Question("membership_interval_s", "the membership interval the controller runs with "
                 "(robustness x query interval + query response interval), s", factor=1.0,
                 abs_tol=0.01),
        Question("expiry_s", f"seconds from cutting {stays} off (loss 100%) until the "
                 "controller forgets it", factor=2.0, abs_tol=2.0),
    )


QUESTIONS = questions(VARIANTS.defaults())


def _wait_members(emu: Any, group: str, want: Callable[[set[str]], bool], what: str,
                  timeout: float) -> float:
    """Seconds until the controller's members are as wanted (the switches' confirmation of
    the flows that follow waited for, not counted)."""
    took = wait_members(emu.controller.api, group, want, timeout)
    if took is None:
        raise McastlabError(f"lab 1: {what} did not happen (or the switches did not confirm "
                            f"it) within {timeout:g} s")
    return took


def _is(emu: Any, name: str) -> set[str]:
    """The names a member may go by in /groups (host name or address)."""
    return {name, emu.topo.host(name).ip}


def measure(v: Values, emu: Any, progress: Callable[[str], None]) -> dict[str, Any]:
    """Lab 1 with the values `v` (VARIANTS: the handout's, or a student's variant)."""
    work = emu.run_dir / "lab1"
    work.mkdir(exist_ok=True)
    hosts = {h.name: h for h in emu.hosts}
    group, sent = v["group"], v["sent"]
    src, stays, leaves, out_ = v["roles"]
    one, two = (_is(emu, n) for n in (stays, leaves))
    out: dict[str, Any] = {}
    progress(f"lab 1: {stays} and {leaves} join {group}, {src} sends")
    members = {n: Member(hosts[n], group, work) for n in (stays, leaves)}
    try:
        _wait_members(emu, group, lambda m: bool(m & one) and bool(m & two), "the joins", 10)
        frames = send_counted(emu.hosts, hosts[src], group, sent, work)
        out["member_frames"], out["nonmember_frames"] = frames[stays], frames[out_]
        sources = api_get(emu.controller.api, "/groups")[group]["sources"]
        tree = next(iter(sources.values()))
        out["buckets"] = sum(len(p) for p in tree.get("tree", {}).values())
        progress(f"lab 1: {leaves} leaves")
        members.pop(leaves).stop()
        out["leave_s"] = round(_wait_members(emu, group, lambda m: not m & two,
                                             f"{leaves}'s removal", 15), 2)
        out["after_leave_frames"] = send_counted(emu.hosts, hosts[src], group, sent,
                                                 work)[leaves]
        t = emu.controller_config.timers
        out["membership_interval_s"] = t.membership_interval
        progress(f"lab 1: {stays} cut off; waiting for its membership to expire")
        emu.set_loss(1.0, [stays])
        try:
            out["expiry_s"] = round(_wait_members(emu, group, lambda m: not m & one,
                                                  f"{stays}'s expiry",
                                                  3 * t.membership_interval), 2)
        finally:
            emu.set_loss(0, [stays])
    finally:
        for m in members.values():
            m.stop()
    return out


def build(v: Values) -> Lab:
    """Lab 1 with the values `v`: its questions, measurement and IGMP timers."""
    timers = replace(TIMERS, query_interval=v["query_interval_s"],
                     last_member_interval=v["last_member_interval_s"])
    return Lab(1, "IGMP snooping", "01-igmp-snooping.md", "star:hosts=4", questions(v),
               partial(measure, dict(v)), ControllerConfig(timers=timers),
               paper="RFC 3376 / Chen2000 (IP multicast on switched Ethernet)",
               variants=VARIANTS, build=build, values=dict(v))


LAB = build(VARIANTS.defaults())
