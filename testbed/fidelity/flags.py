"""Did the emulator keep up? CPU load, how long the software switch waited for a core, how
long the ranks waited for one each time they had work (against the time a frame takes on
their link; the ranks measure it), and every loaded host link's achieved rate against what
it should have carried, sampled during a run, so that results taken while the machine
could not keep up are flagged instead of silently mixed in.

The switch ends of the host links live in the root namespace, so their kernel byte counters
(/sys/class/net/<intf>/statistics) show what each host put on its link, whatever runs the
switches (controller, standalone OVS)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from collectives.timing import busy_fraction, cpu_jiffies

from ..emulation.network import host_links
from ..emulation.periodic import Periodic
from ..emulation.priority import switch_pid, threads
from .wire_units import frame_time_s

SWITCH_WAIT_LIMIT = 0.75  # the switch waited for a core this share of the time it had work
MAX_LINK_FLAGS = 3  # more short links than this are flagged as one
LINK_LIMIT = 0.7    # a loaded link carrying less than this share of its expected rate
SAMPLE_S = 0.5
# The hosts' processes (ranks, generators) waited for a core longer than this many frame
# times per turn on a core: a host that each time it has work waits much longer than a
# frame takes on its link falls behind its link. Measured on a 16-host star (nack 64 KiB,
# every rank receiving at once): about 0.35 frame times at 10 Mbit/s, 0.75 at 30, 1.45 at
# 50, 3.1 at 100 (where nack's T(16)/T(2) was 2.35, against 1.2-1.4 up to 50); binomial
# 0.04 / 0.2 / 0.4 / 1.6. Calibration keeps its probes under 1.0 (calibration.HOST_WAIT_MAX).
HOST_WAIT_LIMIT = 1.5


def switch_sched() -> tuple[int, int] | None:
    """(ns on a core, ns runnable but waiting for one) of every ovs-vswitchd thread, from
    /proc/<pid>/task/*/schedstat: with MPICH ranks polling busily the machine is always
    busy, so its load says little; time the software switch wanted a core and had none is
    what delays the emulated network."""
    pid = switch_pid()
    if pid is None:
        return None
    try:
        run = wait = 0
        for tid in threads(pid):
            fields = Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()
            run, wait = run + int(fields[0]), wait + int(fields[1])
        return run, wait
    except (OSError, ValueError, IndexError):
        return None


def switch_side(topo: Any) -> dict[str, tuple[str, float | None]]:
    """Host name -> (the switch end of its link, the link's configured Mbit/s)."""
    return {h: (end, lk.params.bw_mbit) for h, (end, lk) in host_links(topo).items()}


def _rx_bytes(intf: str) -> int:
    try:
        return int(Path(f"/sys/class/net/{intf}/statistics/rx_bytes").read_text())
    except (OSError, ValueError):
        return 0


class Monitor:
    """Samples (time, cpu jiffies, bytes each host sent) every SAMPLE_S in a thread;
    `window(t0, t1, expected)` judges any stretch of the run afterwards."""

    def __init__(self, topo: Any) -> None:
        self.links = switch_side(topo)
        self.frame_s = frame_time_s(topo.host_rate())
        self.samples: list[tuple[float, tuple[int, int] | None, dict[str, int],
                                 tuple[int, int] | None]] = []
        self._poll = Periodic(self._sample, SAMPLE_S)

    def __enter__(self) -> Monitor:
        self._sample()
        self._poll.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._poll.stop(5)
        self._sample()

    def _sample(self) -> None:
        sent = {h: _rx_bytes(intf) for h, (intf, _) in self.links.items()}
        self.samples.append((time.time(), cpu_jiffies(), sent, switch_sched()))

    def window(self, t0: float, t1: float, expected_mbit: Mapping[str, float] | None = None,
               judge_links: bool = True, host_wait_s: float | None = None) -> dict[str, Any]:
        """Fidelity over [t0, t1] (widened to the enclosing samples). `expected_mbit`: what
        each loaded host link should have carried (e.g. its traffic's offered rate, capped
        by the links). Under loss or faults TCP traffic rightly carries less than offered:
        there (`judge_links` False) the rates are recorded but flag nothing. `host_wait_s`:
        how long the ranks waited for a core each turn over exactly that stretch (they
        measure it themselves: collectives.timing.sched_self)."""
        before = [s for s in self.samples if s[0] <= t0] or self.samples[:1]
        after = [s for s in self.samples if s[0] >= t1] or self.samples[-1:]
        if not before or not after or after[0][0] <= before[-1][0]:
            return judge(None, [], 0.0, host_wait_s=host_wait_s, frame_s=self.frame_s)
        a, b = before[-1], after[0]
        span = b[0] - a[0]
        links = []
        for host, mbit in (expected_mbit or {}).items():
            if mbit <= 0 or host not in self.links:
                continue
            achieved = (b[2][host] - a[2][host]) * 8 / span / 1e6
            links.append({"link": self.links[host][0], "host": host,
                          "configured_mbit": self.links[host][1], "expected_mbit": mbit,
                          "achieved_mbit": achieved, "ratio": achieved / mbit})
        waited = None
        if a[3] is not None and b[3] is not None:
            ran, wait = b[3][0] - a[3][0], b[3][1] - a[3][1]
            waited = wait / (ran + wait) if ran + wait > 0 else 0.0
        return judge(busy_fraction(a[1], b[1]), links, span, judge_links, waited,
                     host_wait_s, self.frame_s)


def judge(cpu_busy: float | None, links: list[dict[str, Any]], span: float,
          judge_links: bool = True, switch_waited: float | None = None,
          host_wait_s: float | None = None, frame_s: float | None = None) -> dict[str, Any]:
    """Flags: the software switch starved of CPU, the hosts' processes waiting longer for a
    core each turn (`host_wait_s`) than a frame takes on their link (`frame_s`), a loaded
    link short of its rate. The machine's busy share is recorded but flags nothing alone."""
    flags = []
    if switch_waited is not None and switch_waited >= SWITCH_WAIT_LIMIT:
        flags.append(f"switch waited for a core {switch_waited:.0%} of its time "
                     f"(limit {SWITCH_WAIT_LIMIT:.0%})")
    host_frames = host_wait_s / frame_s if host_wait_s is not None and frame_s else None
    if host_frames is not None and host_frames > HOST_WAIT_LIMIT:
        flags.append(f"hosts waited for a core {host_frames:.0%} of a frame time each turn "
                     f"(limit {HOST_WAIT_LIMIT:.0%})")
    short = sorted((lk for lk in links if lk["ratio"] < LINK_LIMIT),
                   key=lambda lk: lk["ratio"]) if judge_links else []
    said = [f"{lk['link']} carried {lk['achieved_mbit']:.1f} of "
            f"{lk['expected_mbit']:.1f} Mbit/s expected" for lk in short]
    if len(short) > MAX_LINK_FLAGS:  # one line for many: a 48-generator run is one flag
        said = [f"{len(short)} of {len(links)} loaded links carried less than "
                f"{LINK_LIMIT:.0%} of their expected rate (worst: {said[0]})"]
    flags += said
    return {"cpu_busy": cpu_busy, "switch_waited": switch_waited,
            "host_wait_s": host_wait_s, "host_wait_frames": host_frames, "links": links,
            "links_judged": judge_links,
            "window_s": span, "flags": flags, "ok": not flags}


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
