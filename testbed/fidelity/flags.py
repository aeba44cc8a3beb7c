"""Did the emulator keep up? CPU load, how long the software switch waited for a core, how
much of the time its forwarding thread had work (switch_load), how long the ranks waited for
one each time they had work (against the time a frame takes on their link; the ranks
measure it), frames the switch's host ports dropped because the switch
did not take them in time, and every loaded host link's achieved rate against what it
should have carried, sampled during a run, so that results taken while the machine
could not keep up are flagged instead of silently mixed in.

The switch ends of the host links live in the root namespace, so their kernel byte counters
(/sys/class/net/<intf>/statistics) show what each host put on its link, whatever runs the
switches (controller, standalone OVS)."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Mapping
from typing import Any

from collectives.timing import busy_fraction

from ..emulation.periodic import Periodic
from ..emulation.ports import intf_name, switch_side
from ..errors import RunFailed
from ..interpreter import module
from ..specs.cluster import LOCAL
from .reading import reading
from .switch_load import switch_load
from .wire_units import frame_time_s

SWITCH_WAIT_LIMIT = 0.75  # the switch waited for a core this share of the time it had work
# The switch's forwarding thread (switch_load) had work, on a core or waiting for one, this
# share of the window: it never slept, so at every hop a frame waited for the thread's pass
# over every port of every bridge, and the switch, not the links, set the pace. Measured
# (docs/fidelity.md, "A busy switch"; 64 KiB, 2026-12-07): stars of 16 and 64 hosts at
# their calibrated rates 0.06-0.61; the 8 x 8 mesh at 2 Mbit/s with 2 ranks 0.57-0.92, their
# times within 2-5 % of a star's; with 64 ranks 0.97-0.99, nack 1.7-2.5 x M/B against the
# star's 1.4.
SWITCH_WORK_LIMIT = 0.95
MAX_LINK_FLAGS = 3  # more short links than this are flagged as one
LINK_LIMIT = 0.7    # a loaded link carrying less than this share of its expected rate
# ...or, where its source is random (exponential think times), this many standard deviations
# of the bytes such a source puts in a window that long below their mean (link_floor).
LINK_SIGMAS = 4.0
SAMPLE_S = 0.5
SAMPLE = module("testbed.cluster.agent", "sample")  # + {"intfs", "tunnels"}
# The hosts' processes (ranks, generators) waited for a core longer than this many frame
# times per turn on a core: a host that each time it has work waits much longer than a
# frame takes on its link falls behind its link. Measured on a 16-host star (nack 64 KiB,
# every rank receiving at once): about 0.35 frame times at 10 Mbit/s, 0.75 at 30, 1.45 at
# 50, 3.1 at 100 (where nack's T(16)/T(2) was 2.35, against 1.2-1.4 up to 50); binomial
# 0.04 / 0.2 / 0.4 / 1.6. Calibration keeps its probes under 1.0 (calibration.HOST_WAIT_MAX).
HOST_WAIT_LIMIT = 1.5


def tunnel_ends(topo: Any, spread: Any) -> dict[str, list[str]]:
    """Server -> the ends of the tunnels there (links between switches on two servers)."""
    out: dict[str, list[str]] = {}
    for lk in topo.links:
        if spread.server_of(lk.node1) != spread.server_of(lk.node2):
            for n, p in ((lk.node1, lk.port1), (lk.node2, lk.port2)):
                out.setdefault(spread.server_of(n), []).append(intf_name(n, p))
    return out


class Monitor:
    """Samples every server of the run (one, or a cluster's through their agents) every
    SAMPLE_S in a thread; `window(t0, t1, expected)` judges any stretch of the run
    afterwards, each server on its own readings, and once `through(t1)` is true, as soon
    as the stretch ends."""

    def __init__(self, topo: Any, spread: Any = None) -> None:
        self.links = switch_side(topo)
        self.frame_s = frame_time_s(topo.host_rate())
        self.spread = spread if spread is not None and spread.cluster else None
        where = self.spread.server_of if self.spread else (lambda _n: LOCAL)
        tunnels = tunnel_ends(topo, self.spread) if self.spread else {}
        servers = list(self.spread.runners) if self.spread else [LOCAL]
        self.reads = {s: ([intf for h, (intf, _) in self.links.items() if where(h) == s],
                          tunnels.get(s, [])) for s in servers}
        self.samples: dict[str, list[dict[str, Any]]] = {s: [] for s in servers}
        self._lock = threading.Lock()  # readings in the order taken, by the poll or through()
        self._poll = Periodic(self._sample, SAMPLE_S, ignore=(RunFailed, ValueError))

    def __enter__(self) -> Monitor:
        self._sample()
        self._poll.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._poll.stop(5)
        self._sample()

    def through(self, t: float) -> bool:
        """Whether every server has a reading taken at or after `t`, one taken now where the
        last is older. Then a window ending at `t` is judged now as it would be at any later
        time: its readings (the last at or before its start, the first at or after its end)
        are in, and every later one comes after them. False where a reading failed (or a
        server's clock is behind `t`): judge the window later."""
        with self._lock:
            if not self._past(t):
                try:
                    self._take()
                except (RunFailed, ValueError):
                    return False
            return self._past(t)

    def _past(self, t: float) -> bool:
        return all(s and s[-1]["t"] >= t for s in self.samples.values())

    def _sample(self) -> None:
        with self._lock:
            self._take()

    def _take(self) -> None:
        for server, (intfs, tunnels) in self.reads.items():
            if self.spread is None or self.spread.runners[server].name == LOCAL:
                self.samples[server].append(reading(intfs, tunnels))
                continue
            out = self.spread.runners[server].run(
                [*SAMPLE, json.dumps({"intfs": intfs, "tunnels": tunnels})], timeout=10)
            self.samples[server].append(json.loads(out.stdout))

    def window(self, t0: float, t1: float, expected_mbit: Mapping[str, float] | None = None,
               *, judge_links: bool = True, host_wait_s: float | None = None,
               message_bytes: float = 0.0, burstiness: float = 0.0) -> dict[str, Any]:
        """Fidelity over [t0, t1] (widened to the enclosing samples; the switch's figures
        over the part of each interval between readings inside it). `expected_mbit`: what
        each loaded host link should have carried (e.g. its traffic's offered rate, capped
        by the links), in messages of `message_bytes` on average whose `burstiness`
        (traffic_model.burstiness; 0: a steady source) sets each link's floor (link_floor).
        Under loss or faults TCP traffic rightly carries less than offered: there
        (`judge_links` False) the rates are recorded but flag nothing. `host_wait_s`:
        how long the ranks waited for a core each turn over exactly that stretch (they
        measure it themselves: collectives.timing.sched_self). Across servers the worst
        server's CPU and switch stand for the run (each is in `servers`), and the tunnels'
        rates and drops are recorded (`tunnels`)."""
        per: dict[str, dict[str, Any]] = {}
        links: list[dict[str, Any]] = []
        tunnels: list[dict[str, Any]] = []
        port_drops: list[dict[str, Any]] = []
        span = 0.0
        for server, samples in self.samples.items():
            before = [r for r in samples if r["t"] <= t0] or samples[:1]
            after = [r for r in samples if r["t"] >= t1] or samples[-1:]
            if not before or not after or after[0]["t"] <= before[-1]["t"]:
                continue
            a, b = before[-1], after[0]
            here = b["t"] - a["t"]
            span = max(span, here)
            for host, mbit in (expected_mbit or {}).items():
                intf = self.links.get(host, ("", None))[0]
                if mbit <= 0 or intf not in b["rx"] or intf not in a["rx"]:
                    continue
                achieved = (b["rx"][intf] - a["rx"][intf]) * 8 / here / 1e6
                messages = mbit * 1e6 / 8 * here / message_bytes if message_bytes > 0 else None
                links.append({"link": intf, "host": host,
                              "configured_mbit": self.links[host][1], "expected_mbit": mbit,
                              "achieved_mbit": achieved, "ratio": achieved / mbit,
                              "floor": link_floor(messages, burstiness)})
            for end, (sent, dropped) in b["tunnels"].items():
                if end in a["tunnels"]:
                    tunnels.append({"tunnel": end, "server": server,
                                    "mbit": (sent - a["tunnels"][end][0]) * 8 / here / 1e6,
                                    "dropped": dropped - a["tunnels"][end][1]})
            for intf, n in b.get("dropped", {}).items():
                lost = n - a.get("dropped", {}).get(intf, n)
                if lost > 0:
                    port_drops.append({"port": intf, "server": server, "frames": lost})
            load = switch_load([(r["t"], r.get("switch")) for r in samples], t0, t1)
            per[server] = {"cpu_busy": busy_fraction(a["cpu"], b["cpu"]),
                           "switch_waited": load["waited"], "switch_busy": load["busy"],
                           "switch_had_work": load["had_work"]}
        if not per:
            return judge(None, [], 0.0, host_wait_s=host_wait_s, frame_s=self.frame_s)
        worst = max(per, key=lambda s: per[s]["switch_waited"] or 0.0)
        fullest = max(per, key=lambda s: per[s]["switch_had_work"] or 0.0)
        busy = [v["cpu_busy"] for v in per.values() if v["cpu_busy"] is not None]
        out = judge(max(busy) if busy else None, links, span, judge_links,
                    per[worst]["switch_waited"], host_wait_s, self.frame_s,
                    where=f" on {worst}" if self.spread else "", tunnels=tunnels,
                    dropped=port_drops, switch_busy=per[fullest]["switch_busy"],
                    switch_had_work=per[fullest]["switch_had_work"],
                    where_busy=f" on {fullest}" if self.spread else "")
        if self.spread:
            out["servers"] = per
        return out


def judge(cpu_busy: float | None, links: list[dict[str, Any]], span: float,
          judge_links: bool = True, switch_waited: float | None = None,
          host_wait_s: float | None = None, frame_s: float | None = None, *,
          where: str = "", tunnels: list[dict[str, Any]] | None = None,
          dropped: list[dict[str, Any]] | None = None, switch_busy: float | None = None,
          switch_had_work: float | None = None, where_busy: str = "") -> dict[str, Any]:
    """Flags: the software switch (`where`: on which server) starved of CPU, its forwarding
    thread (`where_busy`) with work, on a core or waiting for one, through `switch_had_work`
    of the window (`switch_busy`: on a core; recorded), the hosts' processes waiting longer
    for a core each turn (`host_wait_s`) than a frame takes on their link (`frame_s`), a
    loaded link short of its rate, host ports of the switch that
    dropped frames on arrival (`dropped`: the switch did not take them in time; see
    reading.reading), a tunnel between servers that dropped frames (the servers' own link
    could not carry the emulated one: no emulated loss ever drops there). The machine's
    busy share is recorded but flags nothing alone."""
    flags = []
    if switch_waited is not None and switch_waited >= SWITCH_WAIT_LIMIT:
        flags.append(f"switch{where} waited for a core {switch_waited:.0%} of its time "
                     f"(limit {SWITCH_WAIT_LIMIT:.0%})")
    if switch_had_work is not None and switch_had_work >= SWITCH_WORK_LIMIT:
        flags.append(f"switch's forwarding thread{where_busy} had work {switch_had_work:.0%} "
                     f"of the time (limit {SWITCH_WORK_LIMIT:.0%})")
    host_frames = host_wait_s / frame_s if host_wait_s is not None and frame_s else None
    if host_frames is not None and host_frames > HOST_WAIT_LIMIT:
        flags.append(f"hosts waited for a core {host_frames:.0%} of a frame time each turn "
                     f"(limit {HOST_WAIT_LIMIT:.0%})")
    short = sorted((lk for lk in links if lk["ratio"] < lk.get("floor", LINK_LIMIT)),
                   key=lambda lk: lk["ratio"]) if judge_links else []
    said = [f"{lk['link']} carried {lk['achieved_mbit']:.1f} of "
            f"{lk['expected_mbit']:.1f} Mbit/s expected" for lk in short]
    if len(short) > MAX_LINK_FLAGS:  # one line for many: a 48-generator run is one flag
        said = [f"{len(short)} of {len(links)} loaded links carried less than "
                f"{LINK_LIMIT:.0%} of their expected rate (worst: {said[0]})"]
    flags += said
    if dropped:
        ports = ", ".join(d["port"] for d in sorted(dropped, key=lambda d: -d["frames"])[:3])
        flags.append(f"switch ports dropped {sum(d['frames'] for d in dropped)} frames from "
                     f"hosts that the switch did not take in time ({ports})")
    lost = [t for t in tunnels or [] if t["dropped"] > 0]
    if lost:
        where_lost = ", ".join(f"{t['tunnel']} on {t['server']}" for t in lost[:3])
        flags.append(f"tunnels between servers dropped {sum(t['dropped'] for t in lost)} "
                     f"frames ({where_lost})")
    out_tunnels = {"tunnels": tunnels} if tunnels is not None else {}
    return {**out_tunnels, "cpu_busy": cpu_busy, "switch_waited": switch_waited,
            "switch_busy": switch_busy, "switch_had_work": switch_had_work,
            "host_wait_s": host_wait_s, "host_wait_frames": host_frames, "links": links,
            "port_drops": dropped or [],
            "links_judged": judge_links,
            "window_s": span, "flags": flags, "ok": not flags}


def link_floor(messages: float | None, burstiness: float) -> float:
    """The share of its expected rate below which a loaded link is short, for a window in
    which its source should send `messages` messages (None: not known) of this `burstiness`
    (traffic_model.burstiness): LINK_LIMIT, or lower where a random source carries less by
    chance: LINK_SIGMAS standard deviations below the mean (0 where that is below nothing).
    A generator offering 1 Mbit/s in 1 KiB messages sends about 120 a second: over the
    0.1-0.5 s that a point's window spans it carries less than 70 % of its mean 2-18 % of
    the time with no fault anywhere, which flagged the chapter-6 hot spots' points."""
    if burstiness <= 0 or messages is None:
        return LINK_LIMIT
    if messages <= 0:
        return 0.0
    return max(0.0, min(LINK_LIMIT, 1 - LINK_SIGMAS * math.sqrt(burstiness / messages)))


def expected_rates(offered_mbit: Mapping[str, float],
                   share: Mapping[str, Mapping[str, float]],
                   capacity_mbit: Mapping[str, float | None]) -> dict[str, float]:
    """What each sender's link should carry: its offered rate, less what its destinations'
    links cannot take in (a hot spot's link caps everyone sending to it) and capped by its
    own link. `share[s][d]` is the fraction of s's messages that go to d."""
    inbound: dict[str, float] = {}
    for s, rate in offered_mbit.items():
        for d, p in share.get(s, {}).items():
            inbound[d] = inbound.get(d, 0.0) + rate * p
    out = {}
    for s, rate in offered_mbit.items():
        carried = 0.0
        for d, p in share.get(s, {}).items():
            cap = capacity_mbit.get(d)
            scale = 1.0 if cap is None or inbound[d] <= cap else cap / inbound[d]
            carried += rate * p * scale
        own = capacity_mbit.get(s)
        out[s] = min(carried, own) if own is not None else carried
    return out
