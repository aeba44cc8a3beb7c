"""The same membership script against three switches (``mcastlab bench --suite snooping``):
the project's controller, Open vSwitch's own IGMP snooping and the kernel's Linux bridge
with snooping and querier on, on one star. Hosts join, filter sources and leave with their
kernels' own IGMP (real sockets); two senders send to every group after each step; what each
receiver got is counted on its wire per source and compared with what RFC 3376 (source
filters), RFC 4604 (the SSM range) and RFC 4541 (snooping) say it should get.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from topologies import parse_spec

from ..emulation.controller_proc import api_get, group_members, wait_confirmed
from ..emulation.environment import Capabilities
from ..emulation.group_probe import sniffed, wait_ready
from ..emulation.network import Emulation, Progress
from ..hostprogs import command

SPEC = "star:hosts=5"
SENDERS = ("h0", "h4")
RECEIVERS = ("h1", "h2", "h3")
COUNT = 5  # datagrams per sender and group after each step
SNIFF_MAX_S = 30  # a sniffer counts until the senders are done and its wire is quiet
LEAVE_WAIT_S = 3.0  # after a leave: past every switch's last-member time (RFC default 2 s)
# a table shows a change a moment before the forwarding does (the controller lists a member
# gone, then sends its flow and group changes): the sends wait this much longer (a
# fresh-clone run of 2026-11-27 saw h1 still get a group at once after the controller had
# dropped it, once in many)
SETTLE_S = 0.2  # Open vSwitch's snooping and the bridge; the controller says when (`_settle`)
SWITCHES: dict[str, dict[str, Any]] = {
    "controller": {},
    "ovs-snooping": {"switch": "ovs-snooping"},
    "linux-bridge": {"switch": "linux-bridge"},
}


class Step(NamedTuple):
    name: str
    # (host, group, mode, sources as sender names) to start, or ("-", host, group) to stop
    members: tuple[tuple[str, ...], ...]
    groups: tuple[str, ...]  # each sender sends to these after the step
    expect: dict[str, tuple[str, ...]]  # receiver -> "sender group" pairs it should get
    wait_s: float = 1.0  # at most, until the switch's own table shows the step's change


STEPS = (
    Step("any-source join", (("h1", "239.50.0.1", "exclude"),), ("239.50.0.1",),
         {"h1": ("h0 239.50.0.1", "h4 239.50.0.1")}),
    Step("SSM channel (h0, G)", (("h2", "232.50.0.2", "include", "h0"),), ("232.50.0.2",),
         {"h2": ("h0 232.50.0.2",)}),
    Step("any source but h4", (("h3", "239.50.0.3", "exclude", "h4"),), ("239.50.0.3",),
         {"h3": ("h0 239.50.0.3",)}),
    Step("any-source join in the SSM range", (("h1", "232.50.0.4", "exclude"),),
         ("232.50.0.4",), {}),
    Step("leave", (("-", "h1", "239.50.0.1"),), ("239.50.0.1",), {}, LEAVE_WAIT_S),
    Step("IGMPv2 host joins", (("v2", "h2", "239.50.0.5"),), ("239.50.0.5",),
         {"h2": ("h0 239.50.0.5", "h4 239.50.0.5")}),
    Step("nobody joined", (), ("239.50.0.6",), {}),
)


def run_script(emu: Emulation, progress: Callable[[str], None]) -> list[dict[str, Any]]:
    """Play STEPS on a running network; per step what each receiver got on its wire."""
    ip = {h.name: h.IP() for h in emu.hosts}
    name_of = {v: k for k, v in ip.items()}
    held: dict[tuple[str, str], Any] = {}
    out = []
    try:
        for step in STEPS:
            # the receivers' sniffers start first and come up while the step's members do
            # (nothing is sent before the step's sends, and they count from then on)
            sniffers = _sniffers(emu)
            changes = []  # (group, whether the switch should now list it)
            ignored = _ignored(emu)
            for m in step.members:
                if m[0] == "-":
                    p = held.pop((m[1], m[2]))
                    p.terminate()
                    p.wait(timeout=10)
                    changes.append((m[2], False))
                    continue
                if m[0] == "v2":
                    emu.host(m[1]).cmd(f"sysctl -qw net.ipv4.conf.{m[1]}-eth0."
                                       "force_igmp_version=2")
                    m = (m[1], m[2], "exclude")
                host, group, mode, *sources = m
                ready = emu.run_dir / f"member-{host}-{group}"
                h = emu.host(host)
                held[(host, group)] = h.popen(command("source_member", group, h.IP(), mode,
                                                      ready, *(ip[s] for s in sources)))
                _wait_file(ready)
                changes.append((group, True))
            _wait_listed(emu, changes, step.wait_s, ignored)
            got = _deliveries(emu, sniffers, step.groups, name_of)
            out.append({"step": step.name, "got": got,
                        "expect": {r: sorted(step.expect.get(r, ())) for r in RECEIVERS}})
            agrees = out[-1]["got"] == out[-1]["expect"]
            progress(f"bench:   {step.name}: {'as the RFCs say' if agrees else 'differs'}")
    finally:
        for p in held.values():
            p.terminate()
            p.wait(timeout=10)
    return out


def listed(emu: Emulation, group: str) -> bool:
    """Whether the switch's own table has members of `group` (each group of the script has
    one member at a time): the controller's state, Open vSwitch's or the bridge's MDB."""
    bridge = emu.topo.switches[0].name
    if emu.controller is not None:
        return bool(group_members(emu.controller.api, group))
    if emu.linux_bridge:
        out = subprocess.run(["bridge", "mdb", "show", "dev", bridge], capture_output=True,
                             text=True, timeout=30).stdout
        return f" grp {group} " in out
    out = subprocess.run(["ovs-appctl", "mdb/show", bridge], capture_output=True, text=True,
                         timeout=30).stdout
    return any(line.split()[2:3] == [group] for line in out.splitlines())


def _ignored(emu: Emulation) -> int:
    """The IGMP records the controller took in and ignored so far (its igmp_ignored_*
    counters, e.g. an any-source join in the SSM range); 0 without a controller."""
    if emu.controller is None:
        return 0
    counters = api_get(emu.controller.api, "/state")["counters"]
    return sum(n for k, n in counters.items() if k.startswith("igmp_ignored_"))


def _wait_listed(emu: Emulation, changes: list[tuple[str, bool]], most_s: float,
                 ignored: int) -> None:
    """Wait until the switch's table shows the step's joins and leaves, or `most_s` passed,
    then for the forwarding to follow (`_settle`); a step that changes no membership does
    not wait. A join the switch ignores never shows: the controller's counters say it took
    it in (more ignored records than `ignored`, the count before the step); Open vSwitch
    and the bridge ignore none, and a join they never showed would wait the whole time."""
    deadline = time.monotonic() + most_s
    while changes and time.monotonic() < deadline:
        taken_in = _ignored(emu) > ignored
        if all(listed(emu, g) == want or (want and taken_in) for g, want in changes):
            _settle(emu, most_s)
            return
        time.sleep(0.05)


def _settle(emu: Emulation, most_s: float) -> None:
    """The forwarding follows the table a moment later: the controller's once every switch
    has confirmed the changes it sent (its barriers: /state's `unconfirmed`, at most
    `most_s`: controller_proc.wait_confirmed, as wait_members waits); Open vSwitch's
    snooping and the bridge say no such thing: SETTLE_S."""
    if emu.controller is None:
        time.sleep(SETTLE_S)
        return
    wait_confirmed(emu.controller.api, most_s)  # not confirmed in time: the counts say so


def _wait_file(path: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{path.name}: the member did not start")
        time.sleep(0.05)


def _sniffers(emu: Emulation) -> dict[str, subprocess.Popen[str]]:
    """A sniffer on every receiver's wire, counting multicast datagrams per source and
    group until told to stop (or SNIFF_MAX_S; the run's teardown ends any left)."""
    return {r: emu.host(r).popen(command("mcast_sniff", f"{r}-eth0", "224.0.0.0/4",
                                         SNIFF_MAX_S, "-", "--until-stop"),
                                 stdin=subprocess.PIPE, text=True) for r in RECEIVERS}


def _deliveries(emu: Emulation, sniffers: dict[str, subprocess.Popen[str]],
                groups: tuple[str, ...], name_of: dict[str, str]) -> dict[str, list[str]]:
    """Every sender sends COUNT datagrams to each group, all of them at once; per receiver
    the "sender group" pairs that reached its wire as `sniffers` counted them (all COUNT of
    them; a partial count is shown as such)."""
    for r, p in sniffers.items():
        wait_ready(p, f"the sniffer on {r}")
    # the senders side by side: each starts an interpreter, which cost as much as its sends
    sends = [(h := emu.host(s)).popen(command("group_send", g, 5004, h.IP(), COUNT, 0.01, s))
             for s in SENDERS for g in groups]
    for sender in sends:
        sender.wait(timeout=30)
    got: dict[str, list[str]] = {}
    for r, counted in sniffed(sniffers).items():
        if counted is None:
            raise RuntimeError(f"the sniffer on {r} failed")
        by = counted["by"]
        got[r] = sorted(f"{name_of.get(src, src)} {grp}" + ("" if n == COUNT else f" x{n}")
                        for key, n in by.items() for src, grp in [key.split()])
    return got


def differences(rows: list[dict[str, Any]]) -> list[str]:
    """The steps where a switch did not do what the RFCs say, with what it did instead."""
    out = []
    for row in rows:
        for r in RECEIVERS:
            extra = sorted(set(row["got"][r]) - set(row["expect"][r]))
            missing = sorted(set(row["expect"][r]) - set(row["got"][r]))
            if extra or missing:
                out.append(f"{row['step']}: {r}" + (f" also got {', '.join(extra)}" if extra
                                                     else "") +
                           (f" missed {', '.join(missing)}" if missing else ""))
    return out


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {"spec": SPEC, "count": COUNT}
    for name, kwargs in SWITCHES.items():
        progress(f"bench: the membership script through {name}")
        with Emulation(parse_spec(SPEC), caps=caps, **kwargs) as emu:
            out[name] = run_script(emu, progress)
    return out


def markdown(res: dict[str, Any]) -> list[str]:
    names = [k for k in SWITCHES if k in res]
    lines = ["", f"Each step, then {res['count']} datagrams from h0 and from h4 to its group; "
             "cells: what the receivers got on their wire (sender group), or what differs from "
             "the RFCs:", "",
             "| step | the RFCs say | " + " | ".join(names) + " |",
             "|---|---|" + "---|" * len(names)]
    for i, step in enumerate(STEPS):
        rows = {n: res[n][i] for n in names}
        want = "; ".join(f"{r}: {', '.join(v)}" for r, v in rows[names[0]]["expect"].items()
                         if v) or "nobody"
        cells = []
        for n in names:
            d = differences([rows[n]])
            cells.append("as the RFCs" if not d else
                         "; ".join(x.split(": ", 1)[1] for x in d))
        lines.append(f"| {step.name} | {want} | " + " | ".join(cells) + " |")
    return lines
