"""Thousands of groups (``mcastlab bench --suite groups``): 1000 groups held by 14 of 16 hosts
on a star (3 members each), joined all at once, then a datagram to every group, then join and
leave probes on top; the same on the controller (RFC timers, and with fast leave), on Open
vSwitch's own snooping and on the kernel's Linux bridge with its snooping and querier.

Measured per switch: how long the 3000 joins take to be absorbed (until the switch's own
state lists them all) and the rate that makes; flow, OpenFlow group and snooping-table sizes;
whether every member got exactly its groups' datagrams (counted on the wire of three hosts);
join-to-first-datagram and leave-to-silence (the last datagram on the leaver's wire) median
and p99 from a prober joining fresh groups while a stream runs; the time until every
membership is gone once all hosts leave; the controller's CPU seconds and memory.
"""

from __future__ import annotations

import json
import re
import statistics
import subprocess
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.config import ControllerConfig
from topologies import parse_spec

from ..emulation.controller_proc import api_get
from ..emulation.environment import Capabilities
from ..emulation.group_probe import sniffed, wait_ready
from ..emulation.network import Emulation, Progress
from ..hostprogs import command
from ..interpreter import code

SPEC = "star:hosts=16"
MEMBERS_PER_GROUP = 3
GAP = 0.0005  # the probe stream's datagram interval
FAST = ControllerConfig(igmp_rate=1e6)  # measures processing, not the per-host limit
SWITCHES: dict[str, dict[str, Any]] = {
    "controller": {"controller_config": FAST},
    "controller, fast leave": {"controller_config": replace(FAST, fast_leave=True)},
    "ovs-snooping": {"switch": "ovs-snooping"},
    "linux-bridge": {"switch": "linux-bridge"},
}


SWEEP = """
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[1]))
for g in sys.argv[2:]:  # one datagram per group, 2 ms apart
    s.sendto(b"x", (g, 5002))
    time.sleep(0.002)
"""


def group_address(i: int) -> str:
    return f"239.80.{i // 250}.{i % 250 + 1}"


def members_of(i: int, n_hosts: int) -> list[str]:
    """Group i's members: three of h2..h{n-1}, round robin (h0 sends, h1 probes)."""
    pool = n_hosts - 2
    return [f"h{(i * MEMBERS_PER_GROUP + k) % pool + 2}" for k in range(MEMBERS_PER_GROUP)]


def percentile(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


class Switch:
    """The switch's own view of the memberships and its table sizes, per mode."""

    def __init__(self, emu: Emulation, name: str) -> None:
        self.emu, self.name = emu, name
        self.bridge = emu.topo.switches[0].name

    def memberships(self) -> int:
        if self.emu.controller is not None:
            groups = api_get(self.emu.controller.api, "/groups", timeout=30)
            return sum(len(g["members"]) for a, g in groups.items()
                       if a.startswith("239.80."))
        if self.name == "ovs-snooping":
            out = _run(["ovs-appctl", "mdb/show", self.bridge])
            return sum(1 for line in out.splitlines() if " 239.80." in line)
        out = _run(["bridge", "mdb", "show", "dev", self.bridge])
        return sum(1 for line in out.splitlines() if " 239.80." in line)

    def tables(self) -> dict[str, int]:
        out: dict[str, int] = {"snooping_entries": 0}
        if self.emu.controller is None:
            out["snooping_entries"] = self.memberships()
        flows = _run(["ovs-ofctl", "-O", "OpenFlow13", "dump-flows", self.bridge]) \
            if self.name != "linux-bridge" else ""
        groups = _run(["ovs-ofctl", "-O", "OpenFlow13", "dump-groups", self.bridge]) \
            if self.emu.controller is not None else ""
        out["flows"] = sum(1 for line in flows.splitlines() if "actions=" in line)
        out["openflow_groups"] = sum(1 for line in groups.splitlines() if "group_id=" in line)
        return out

    def controller_usage(self) -> dict[str, float]:
        pid = self.emu.controller.pid if self.emu.controller is not None else None
        if pid is None:
            return {}
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks = 100.0  # USER_HZ
        status = Path(f"/proc/{pid}/status").read_text()
        kb = {k: int(v.split()[0]) for k, v in re.findall(r"(VmRSS|VmHWM):\s+(.+)", status)}
        return {"cpu_s": (int(stat[11]) + int(stat[12])) / ticks,
                "rss_mb": kb.get("VmRSS", 0) / 1024, "peak_rss_mb": kb.get("VmHWM", 0) / 1024}


def _run(cmd: list[str]) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout


def _wait_for(count: Any, target: int, timeout: float) -> float | None:
    """Seconds until count() == target, polled every 0.1 s; None on timeout."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if count() == target:
            return time.monotonic() - t0
        time.sleep(0.1)
    return None


def measure(emu: Emulation, name: str, n_groups: int, probes: int,
            progress: Progress, quiet: float = 1.0) -> dict[str, Any]:
    """The measurement of one switch (see the module's docstring); `quiet`: the silence on
    the prober's wire, s, that ends a leave (the probe stream sends every GAP s)."""
    sw = Switch(emu, name)
    hosts = emu.hosts
    per_host: dict[str, list[str]] = {h.name: [] for h in hosts}
    for i in range(n_groups):
        for m in members_of(i, len(hosts)):
            per_host[m].append(group_address(i))
    joiners, ready = [], []
    for h in hosts:
        h.cmd(f"sysctl -qw net.ipv4.igmp_max_memberships={n_groups + 20}")
    usage0 = sw.controller_usage()
    t0 = time.monotonic()
    for h in hosts:
        if per_host[h.name]:
            path = emu.run_dir / f"groups-{h.name}.txt"
            path.write_text("\n".join(per_host[h.name]) + "\n")
            ready.append(emu.run_dir / f"joined-{h.name}")
            joiners.append(h.popen(command("group_joins", path, h.IP(), ready[-1]), text=True))
    expected = n_groups * MEMBERS_PER_GROUP
    absorbed = _wait_for(sw.memberships, expected, 120)
    joined_at = time.monotonic() - t0
    usage1 = sw.controller_usage()
    progress(f"bench:   {name}: {expected} joins absorbed in "
             f"{'-' if absorbed is None else f'{joined_at:.1f}'} s")

    # One datagram to every group; three hosts count theirs on the wire.
    watch = ["h1", "h2", "h3"]
    sniffers = {w: emu.host(w).popen(command("mcast_sniff", f"{w}-eth0", "239.80.0.0/16",
                                             n_groups * 0.002 + 30, "-", "--until-stop"),
                                     stdin=subprocess.PIPE, text=True) for w in watch}
    for w, p in sniffers.items():
        wait_ready(p, f"the sniffer on {w}")
    sender = emu.host("h0")
    groups = (group_address(i) for i in range(n_groups))
    sender.popen(code(SWEEP, sender.IP(), *groups)).wait(timeout=120)
    got = {w: c and c["count"] for w, c in sniffed(sniffers, timeout=60).items()}
    want = {w: len(per_host[w]) for w in watch}
    tables = sw.tables()

    # Probes: a stream from h0 follows the group h1 joins and leaves.
    control = emu.run_dir / "probe.group"
    duration = probes * 5 + 10
    stream = sender.popen(command("mcast_stream", control, sender.IP(), GAP, duration))
    probe = emu.host("h1").popen(command("join_leave_probe", control, "h1-eth0",
                                         emu.host("h1").IP(), probes, 0.3, 0, 0.2, quiet),
                                 text=True)
    out, err = probe.communicate(timeout=duration + 60)
    stream.kill()
    stream.wait()
    if probe.returncode != 0:
        raise RuntimeError(f"join/leave probe failed: {err}")
    lat = json.loads(out)
    joins = [x * 1000 for x in lat["join_s"] if x is not None]
    leaves = [x * 1000 for x in lat["leave_s"] if x is not None]

    # Every host leaves everything.
    for p in joiners:
        p.terminate()
    t_leave = time.monotonic()
    for p in joiners:
        p.communicate(timeout=60)
    gone = _wait_for(sw.memberships, 0, 60)
    left_at = time.monotonic() - t_leave if gone is not None else None
    usage2 = sw.controller_usage()
    res: dict[str, Any] = {
        "groups": n_groups, "memberships": expected,
        "joins_absorbed_s": joined_at if absorbed is not None else None,
        "joins_per_s": expected / joined_at if absorbed is not None else None,
        "delivered": got, "expected": want, **tables,
        "join_ms": {"n": len(joins), "of": probes, "median": statistics.median(joins)
                    if joins else None, "p99": percentile(joins, 0.99)},
        "leave_ms": {"n": len(leaves), "median": statistics.median(leaves)
                     if leaves else None, "p99": percentile(leaves, 0.99)},
        "join_samples_ms": [round(x, 3) for x in joins],
        "leave_samples_ms": [round(x, 3) for x in leaves],
        "all_left_s": left_at,
    }
    if usage0:
        res["controller"] = {"cpu_s_joins": usage1["cpu_s"] - usage0["cpu_s"],
                             "cpu_s_total": usage2["cpu_s"] - usage0["cpu_s"],
                             "rss_mb": usage1["rss_mb"], "peak_rss_mb": usage2["peak_rss_mb"]}
    return res


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    n_groups, probes = (200, 10) if quick else (1000, 40)
    out: dict[str, Any] = {"spec": SPEC, "stream_gap_ms": GAP * 1000}
    for name, kwargs in SWITCHES.items():
        progress(f"bench: {n_groups} groups on {SPEC} through {name}")
        with Emulation(parse_spec(SPEC), caps=caps, **kwargs) as emu:
            out[name] = measure(emu, name, n_groups, probes, progress)
        r = out[name]
        progress(f"bench:   {name}: join {r['join_ms']['median']} ms, leave "
                 f"{r['leave_ms']['median']} ms (medians)")
    return out


def _f(x: float | None, fmt: str = ".1f") -> str:
    return "-" if x is None else format(x, fmt)


def markdown(res: dict[str, Any]) -> list[str]:
    rows = {k: r for k, r in res.items() if isinstance(r, dict) and "memberships" in r}
    if not rows:
        return []
    any_r = next(iter(rows.values()))
    lines = ["", f"{any_r['groups']} groups, {any_r['memberships']} memberships on "
             f"{res['spec']}; probes join and leave fresh groups while a stream sends every "
             f"{res['stream_gap_ms']:g} ms:", "",
             "| switch | joins absorbed (s) | joins/s | join median / p99 ms | "
             "leave-to-silence median / p99 ms | all left (s) | flows | OF groups | "
             "snooping entries | delivered h1/h2/h3 (expected) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for k, r in rows.items():
        d = "/".join(str(r["delivered"][h]) for h in ("h1", "h2", "h3"))
        e = "/".join(str(r["expected"][h]) for h in ("h1", "h2", "h3"))
        lines.append(
            f"| {k} | {_f(r['joins_absorbed_s'])} | {_f(r['joins_per_s'], '.0f')} | "
            f"{_f(r['join_ms']['median'], '.2f')} / {_f(r['join_ms']['p99'], '.2f')} | "
            f"{_f(r['leave_ms']['median'], '.0f')} / {_f(r['leave_ms']['p99'], '.0f')} | "
            f"{_f(r['all_left_s'])} | {r['flows']} | {r['openflow_groups']} | "
            f"{r['snooping_entries']} | {d} ({e}) |")
    lines += ["", "Controller process:", "", "| run | CPU s for the joins | CPU s in all | "
              "RSS MB | peak RSS MB |", "|---|---|---|---|---|"]
    for k, r in rows.items():
        c = r.get("controller")
        if c:
            lines.append(f"| {k} | {c['cpu_s_joins']:.2f} | {c['cpu_s_total']:.2f} | "
                         f"{c['rss_mb']:.0f} | {c['peak_rss_mb']:.0f} |")
    return lines
