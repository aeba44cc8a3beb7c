"""The keep-up envelope: the highest link rate at which this machine emulates a network
faithfully, found by trying rates on the network itself and cached per machine.

A rate passes when, on the network at that rate:
- the links of half the hosts, loaded at once (each sending TCP at full rate to a
  neighbour, iperf3, as in a binomial tree's last round), carry at least LINK_MIN of
  their rate;
- the reference tree broadcast (sequential, PROBE_SIZE bytes on every host: the root's link
  saturated while all the others wait) takes at most TREE_MAX times the t_hold/t_end
  model's prediction from the same network's own two-host measurement;
- the reference multicast (bursts of PROBE_SIZE bytes in full-size UDP datagrams from one
  host to a group of all the others, no protocol on top: testbed.hostprogs.mcast_burst)
  reaches every member whole, its last datagram at most MCAST_MAX times the burst's wire
  time after the first left (a switch replicates in parallel: flat in N);
- the software switch waited for a core at most SWITCH_WAIT_MAX of its time throughout, and
  its forwarding thread had work at most SWITCH_WORK_MAX of it (more, and the one thread that
  forwards for every bridge sets the pace, not the links: fidelity.switch_load),
  and the hosts' processes, while the reference broadcasts ran and while MPI_Bcast of
  PROBE_SIZE ran on every host (the baseline of every comparison, its ranks all busy at
  once), at most HOST_WAIT_MAX of a frame time each time they had work (they measure it
  themselves; the fidelity monitor flags a point beyond fidelity.HOST_WAIT_LIMIT).
The thresholds sit inside the flags a run raises (testbed.fidelity.flags), so that a calibrated
run is not flagged for what calibration let pass.

The search assumes that a rate that fails makes every higher one fail: it tries the cap
first (usually the nominal rate), then halves the ladder below it. All rates are tried on
one network, retuned in place (Emulation.retune).
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from collectives.call import BcastCall
from collectives.timing import wait_per_turn
from topologies import Topology, TopologyError

from ..emulation.controller_proc import tcp_listening, wait_listed
from ..emulation.environment import detected
from ..emulation.group_probe import wait_file
from ..emulation.linkshape import check
from ..emulation.network import Emulation
from ..emulation.ports import host_port_type, switch_side
from ..errors import RunFailed, UsageError
from ..fidelity.flags import Monitor, expected_rates
from ..fidelity.link_rate import NOMINAL_MBIT, LinkRate, is_auto, nominal_topology
from ..fidelity.wire_units import FRAME_BYTES, frame_time_s
from ..hostprogs import command
from ..measure.bcast import run_bcast
from ..measure.options import RunOptions
from ..measure.params import model_params
from ..results import versions, write_json
from ..safepath import make_folder

LADDER_MBIT = (1, 2, 3, 5, 10, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000)
PROBE_SIZE = 65536
LINK_MIN = 0.85
TREE_MAX = 1.3
MCAST_MAX = 1.3
SWITCH_WAIT_MAX = 0.5
# The switch's forwarding thread had work (on a core or waiting) at most this share of a
# rate's probes (fidelity.SWITCH_WORK_LIMIT, 0.95, flags a point): stars of 16 and 64 hosts
# had 0.06-0.61 at their calibrated rates, the 8 x 8 mesh with 64 ranks 0.97-0.99 at any
# (docs/fidelity.md, "A busy switch"). Added after VERSION 3's envelopes were measured: they
# are kept (every star's passed it with room) and a new calibration applies it.
SWITCH_WORK_MAX = 0.9
HOST_WAIT_MAX = 1.0  # fidelity.HOST_WAIT_LIMIT is 1.5: a calibrated run stays inside it
LOAD_S = 3.0
ITERS = 5
VERSION = 3  # raise when the probes, thresholds or shaping change: cached envelopes are redone
# (2: per-frame HTB buckets with the wire overhead, testbed.emulation.linkshape; 3: TCP's
# packets capped at one frame on shaped host links, testbed.emulation.link_setup)
CACHE_ENV = "MCASTLAB_CACHE_DIR"
DEFAULT_CACHE_DIR = Path("/var/cache/mcastlab")

Progress = Callable[[str], None]


@dataclass
class Verdict:
    """One rate tried: passed or not, why, and the figures behind it."""

    mbit: float
    ok: bool
    failed: list[str] = field(default_factory=list)
    figures: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def topology_key(topo: Topology) -> str:
    """What a calibration is valid for: the shape and its size (not its rates)."""
    return (f"{topo.shape}/{len(topo.hosts)}h/{len(topo.switches)}s/{len(topo.links)}l/"
            f"{topo.routing}")


def machine(host_ports: str) -> dict[str, Any]:
    """What the envelope depends on; a cached one for another machine is redone."""
    v = versions()
    try:
        mem = next(int(ln.split()[1]) for ln in Path("/proc/meminfo").read_text().splitlines()
                   if ln.startswith("MemTotal:"))
    except (OSError, StopIteration, ValueError):
        mem = 0
    return {"cpu_model": v["cpu_model"], "cpus": v["cpus"],
            "affinity": len(os.sched_getaffinity(0)), "mem_gib": round(mem / (1 << 20)),
            "kernel": platform.release(), "openvswitch": v["openvswitch"],
            "mpich": v["mpich"], "mpi4py": v["mpi4py"], "host_ports": host_ports,
            "calibration": VERSION}


# ---- the cache ---------------------------------------------------------------------------
def cache_file(name: str = "calibration.json") -> Path:
    """A file of the cache folder: the calibrations', or another cache kept beside it (the
    operating points of experiments' work: testbed.experiments.operating_point)."""
    return Path(os.environ.get(CACHE_ENV) or DEFAULT_CACHE_DIR) / name


def load_cache(path: Path | None = None) -> dict[str, Any]:
    """A cache file's data ({} when it is missing or not a JSON object)."""
    try:
        data = json.loads((path or cache_file()).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def cached(key: str, here: dict[str, Any], cap: float) -> dict[str, Any] | None:
    """The cached calibration of `key` on this machine that answers for rates up to
    `cap`, or None. An entry answers when it searched up to at least `cap`, or when a rate
    below its own cap already failed (so every higher one would)."""
    data = load_cache()
    if data.get("machine") != here:
        return None
    entry = (data.get("entries") or {}).get(key)
    if not isinstance(entry, dict) or "mbit" not in entry:
        return None
    if entry["cap"] >= cap or entry["mbit"] < entry["cap"]:
        return entry
    return None


def store(key: str, here: dict[str, Any], entry: dict[str, Any],
          path: Path | None = None) -> Path:
    """Write an entry into the cache file `path` (default the calibrations'); entries of
    another machine are dropped. Written atomically, never through or over a link
    (results.write_json)."""
    path = path or cache_file()
    data = load_cache(path)
    if data.get("machine") != here:
        data = {"machine": here, "entries": {}}
    data.setdefault("entries", {})[key] = entry
    option = f"cannot write the calibration cache (set {CACHE_ENV} to another folder)"
    try:
        make_folder(option, path.parent)
        write_json(path, data, option)
    except OSError as exc:  # what safepath does not word itself (a stat refused)
        raise UsageError(f"cannot write the calibration cache {path}: {exc.strerror} "
                         f"(set {CACHE_ENV} to a writable folder)") from None
    return path


# ---- probing ------------------------------------------------------------------------------
def _pairs(hosts: list[str]) -> dict[str, str]:
    """Sender -> receiver: half the hosts each send to a neighbour in host order (h0 -> h1,
    h2 -> h3, ...), as the last round of a binomial tree does. One way only: a link that
    also carried data the other way would delay the ACKs behind it (real switches do the
    same), and all links at once both ways is more than any broadcast asks."""
    return dict(zip(hosts[0::2], hosts[1::2], strict=False))


def _listening(hosts: list[Any], port: int, timeout: float = 10.0) -> None:
    """Until a TCP socket listens on `port` in every host's network namespace (read from
    its /proc/PID/net/tcp and tcp6, without connecting), at most `timeout` s: a server
    that never listens is found out by its clients."""
    deadline = time.monotonic() + timeout
    for h in hosts:
        while not tcp_listening(port, None, h.pid) and time.monotonic() < deadline:
            time.sleep(0.02)


def load_links(emu: Emulation, monitor: Monitor, seconds: float = LOAD_S) -> dict[str, Any]:
    """Half the hosts send TCP at full rate to a neighbour for `seconds`; what each
    sender's link carried against its rate."""
    names = [h.name for h in emu.topo.hosts]
    pairs = _pairs(names)
    servers = [emu.host(h).popen(["iperf3", "-s", "-1", "-p", "29480"])
               for h in pairs.values()]
    _listening([emu.host(h) for h in pairs.values()], 29480)
    t0 = time.time()
    clients = [emu.host(a).popen(["iperf3", "-c", emu.host(b).IP(), "-p", "29480", "-t",
                                  f"{seconds:g}"])
               for a, b in pairs.items()]
    try:
        for c in clients:
            c.wait(timeout=seconds + 30)
    finally:
        t1 = time.time()
        for p in (*clients, *servers):
            if p.poll() is None:
                p.kill()
            p.wait()
    capacity = {h: mbit for h, (_, mbit) in switch_side(emu.topo).items()}
    expected = expected_rates({h: capacity[h] or 0.0 for h in pairs},
                              {a: {b: 1.0} for a, b in pairs.items()}, capacity)
    # past TCP's slow start; the monitor widens the window to its samples (SAMPLE_S)
    window = monitor.window(t0 + 0.6, t1 - 0.6, expected)
    ratios = [lk["ratio"] for lk in window["links"]]
    return {"worst_ratio": min(ratios) if ratios else None,
            "links": len(ratios), "window_s": window["window_s"]}


BURST_DATAGRAM = 1472  # a full Ethernet frame's UDP payload
BURST_PORT = 29490
BURSTS = 6  # the first is not counted: the controller installs the group's tree on it


def multicast_bursts(emu: Emulation, nbytes: int = PROBE_SIZE,
                     bursts: int = BURSTS) -> dict[str, Any]:
    """The first host sends bursts of `nbytes` to a group of every other host: the median
    time until the last member has a burst's last datagram, against the burst's wire time
    on one link (headers, preamble and gap included), and the datagrams lost."""
    hosts = [emu.host(h.name) for h in emu.topo.hosts]
    sender, members = hosts[0], hosts[1:]
    count = math.ceil(nbytes / BURST_DATAGRAM)
    rate = emu.topo.host_rate() or 1000.0
    wire_s = count * FRAME_BYTES * 8 / (rate * 1e6)
    work = emu.run_dir / f"bursts-{uuid.uuid4().hex[:8]}"
    work.mkdir()
    group = "239.77.0.1"
    procs = []
    try:
        for h in members:
            procs.append(h.popen(command("mcast_burst", "recv", group, BURST_PORT, h.IP(),
                                         bursts, count, work / f"{h.name}.ready",
                                         work / f"{h.name}.json"),
                                 stderr=subprocess.PIPE, text=True))
        for h, p in zip(members, procs, strict=True):
            wait_file(work / f"{h.name}.ready", p, f"burst receiver on {h.name}")
        if emu.controller is not None:  # their reports reach the controller (5 s at most)
            wait_listed(emu.controller.api, group, [h.name for h in members], 5.0)
        gap = 3 * wire_s + 0.05
        send = sender.popen(command("mcast_burst", "send", group, BURST_PORT, sender.IP(),
                                    bursts, count, BURST_DATAGRAM, gap, work / "send.json"),
                            stderr=subprocess.PIPE, text=True)
        send.wait(timeout=bursts * (gap + 10 * wire_s) + 30)
        for p in procs:
            p.wait(timeout=30)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    starts = json.loads((work / "send.json").read_text())
    reports = {h.name: json.loads((work / f"{h.name}.json").read_text()) for h in members}
    got = {name: r["bursts"] for name, r in reports.items()}
    times, lost = [], 0
    for b in range(1, bursts):
        arrived = [got[h.name].get(str(b)) for h in members]
        lost += sum(count - (a[0] if a else 0) for a in arrived)
        if all(a and a[0] >= count for a in arrived):
            times.append(max(a[1] for a in arrived) - starts[str(b)])
    median = statistics.median(times) if times else None
    return {"members": len(members), "bytes": nbytes, "datagrams": count,
            "wait_per_turn_s": wait_per_turn([r["sched"] for r in reports.values()]),
            "wire_ms": wire_s * 1e3, "ms": median and median * 1e3,
            "ratio": median / wire_s if median else None, "lost": lost,
            "bursts": bursts - 1, "whole_bursts": len(times)}


def probe(emu: Emulation, mbit: float, progress: Progress) -> Verdict:
    """Retune the network to `mbit` on host links (others in proportion) and judge it."""
    rate = emu.topo.host_rate()
    if rate is None:
        raise UsageError("calibration needs shaped host links (a topology with bw set)")
    emu.retune(emu.topo.scaled(mbit / rate))
    n = len(emu.topo.hosts)
    t0 = time.time()
    v = Verdict(mbit, True)
    with Monitor(emu.topo) as monitor:
        load = load_links(emu, monitor)
        params = model_params(emu, PROBE_SIZE)
        tree = run_bcast(emu, BcastCall("sequential", PROBE_SIZE),
                         RunOptions(repetitions=ITERS, flow=False,
                                    params=params))
        mcast = multicast_bursts(emu)
        native = run_bcast(emu, BcastCall("mpich", PROBE_SIZE),
                           RunOptions(repetitions=ITERS, flow=False))
    t1 = time.time()
    whole = monitor.window(t0, t1)
    # how long the hosts waited for a core each turn while the references ran, in frames
    frame = frame_time_s(mbit)
    host_wait = [w / frame for w in (tree.wait_per_turn_s, mcast["wait_per_turn_s"],
                                     native.wait_per_turn_s)
                 if w is not None and frame]
    tree_ms = tree.median_s * 1e3
    model_ms = (tree.predicted_s or 0.0) * 1e3
    v.figures = {
        "worst_link_ratio": load["worst_ratio"], "switch_waited": whole["switch_waited"],
        "host_wait_frames": max(host_wait) if host_wait else None,
        "cpu_busy": whole["cpu_busy"], "switch_had_work": whole["switch_had_work"],
        "tree": {"algorithm": "sequential", "hosts": n, "ms": tree_ms, "model_ms": model_ms,
                 "ratio": tree_ms / model_ms if model_ms else None},
        "mcast": mcast,
        "mpi_bcast": {"hosts": n, "ms": native.median_s * 1e3,
                      "wait_per_turn_s": native.wait_per_turn_s},
        "t_hold_s": params["t_hold_s"][0], "t_end_s": params["t_end_s"][0]}
    v.failed = shortfalls(v.figures, n)
    v.ok = not v.failed
    v.seconds = t1 - t0
    progress(f"  {mbit:g} Mbit/s: {'keeps up' if v.ok else 'no: ' + '; '.join(v.failed)}")
    return v


def shortfalls(f: dict[str, Any], n: int) -> list[str]:
    """Why a rate's figures (`probe`'s, on `n` hosts) do not keep up; empty where they do.
    Figures a probe could not take (None) fail nothing but the tree's ratio.

    Not operating_point.shortfall, which judges a spec point's own record: this judges the
    machine's reference workloads (loaded links, the tree against its model, a multicast
    burst) that a record has no figure of; the two share only the margins HOST_WAIT_MAX,
    SWITCH_WAIT_MAX and SWITCH_WORK_MAX (this module's constants). Every reason is listed:
    the search prints them all for the rate it turns down."""
    failed = []
    if f["worst_link_ratio"] is not None and f["worst_link_ratio"] < LINK_MIN:
        failed.append(f"a loaded link carried {f['worst_link_ratio']:.0%} of its rate "
                      f"(at least {LINK_MIN:.0%})")
    tree = f["tree"]
    if tree["ratio"] is None or tree["ratio"] > TREE_MAX:
        failed.append(f"sequential {PROBE_SIZE >> 10} KiB on {n} hosts took "
                      f"{tree['ms']:.1f} ms, model {tree['model_ms']:.1f} ms "
                      f"(at most x{TREE_MAX:g})")
    m = f["mcast"]
    if m["lost"] or m["ratio"] is None or m["ratio"] > MCAST_MAX:
        failed.append(f"a {PROBE_SIZE >> 10} KiB multicast burst to {m['members']} hosts "
                      + (f"lost {m['lost']} of {m['datagrams'] * m['bursts'] * m['members']}"
                         " datagrams" if m["lost"] else
                         f"took {m['ms']:.1f} ms for {m['wire_ms']:.1f} ms on the wire "
                         f"(at most x{MCAST_MAX:g})"))
    if f["host_wait_frames"] is not None and f["host_wait_frames"] > HOST_WAIT_MAX:
        failed.append(f"the hosts waited for a core {f['host_wait_frames']:.0%} of a frame "
                      f"time each turn (at most {HOST_WAIT_MAX:.0%})")
    if f["switch_waited"] is not None and f["switch_waited"] > SWITCH_WAIT_MAX:
        failed.append(f"the switch waited for a core {f['switch_waited']:.0%} of its time "
                      f"(at most {SWITCH_WAIT_MAX:.0%})")
    work = f.get("switch_had_work")
    if work is not None and work > SWITCH_WORK_MAX:
        failed.append(f"the switch's forwarding thread had work {work:.0%} of the time "
                      f"(at most {SWITCH_WORK_MAX:.0%}): the switch, not the links, set the "
                      "pace")
    return failed


def search(emu: Emulation, cap: float, progress: Progress,
           ladder: tuple[float, ...] = LADDER_MBIT) -> tuple[float | None, list[Verdict]]:
    """The highest ladder rate up to `cap` that passes (None: not even the lowest)."""
    rungs = [r for r in ladder if r < cap] + [cap]
    tried: list[Verdict] = []

    def passes(i: int) -> bool:
        tried.append(probe(emu, rungs[i], progress))
        return tried[-1].ok

    if passes(len(rungs) - 1):
        return cap, tried
    lo, hi = -1, len(rungs) - 1  # rungs[lo] passes (lo = -1: none known), rungs[hi] fails
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if passes(mid):
            lo = mid
        else:
            hi = mid
    return (rungs[lo] if lo >= 0 else None), tried


def calibrate(topo: Topology, cap: float, progress: Progress, *,
              ports: str | None = None) -> dict[str, Any]:
    """Find and cache the operating rate of `topo`'s network (its rates only scale)."""
    if len(topo.hosts) < 2:
        raise UsageError("calibration needs at least 2 hosts")
    if topo.host_rate() is None:
        raise UsageError("calibration needs shaped host links")
    started = time.time()
    progress(f"calibrating {topo_text(topo)} on this machine (once: the result is cached "
             f"in {cache_file()})")
    with Emulation(topo, progress=progress, ports=ports) as emu:
        best, tried = search(emu, cap, progress)
        here = machine(emu.host_ports)
    if best is None:
        work = tried[-1].figures.get("switch_had_work")
        fewer = ("fewer switches" if work is not None and work > SWITCH_WORK_MAX
                 else "fewer hosts")
        raise RunFailed(f"this machine does not keep up with {topo_text(topo)} even at "
                        f"{LADDER_MBIT[0]} Mbit/s: " + "; ".join(tried[-1].failed)
                        + f" (try {fewer})")
    entry = {"mbit": best, "cap": cap, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
             "seconds": round(time.time() - started, 1),
             "tried": [asdict(v) for v in tried]}
    store(topology_key(topo), here, entry)
    progress(f"{topo_text(topo)}: {best:g} Mbit/s is the highest rate it keeps up with"
             + (f" (searched up to {cap:g})" if best == cap else ""))
    return entry


def topo_text(topo: Topology) -> str:
    return f"{topo.shape} with {len(topo.hosts)} hosts"


def resolve(text: str, progress: Progress, *, given: Mapping[str, Any] | None = None,
            ports: str | None = None, recalibrate: bool = False) -> tuple[Topology, LinkRate]:
    """The topology to run and its LinkRate; `given`: the spec's parameters given as values
    (bw="auto" or Mbit/s, hosts=...), not written into `text`; `auto` is answered from the
    calibration cache, or by calibrating now (minutes, once per machine and network size)."""
    given = dict(given or {})
    try:
        topo = nominal_topology(text, **given)
    except TopologyError as exc:
        raise UsageError(f"topology: {exc}") from None
    rate = topo.host_rate()
    if not is_auto(text, **given):
        return topo, LinkRate(rate, rate, False, "given")
    caps = detected()
    caps.require()
    check(topo, caps)  # what the machine cannot emulate is refused before calibrating
    here = machine(host_port_type(caps, ports))
    key = topology_key(topo)
    entry = None if recalibrate else cached(key, here, NOMINAL_MBIT)
    source = "calibration cache"
    if entry is None:
        entry = calibrate(topo, NOMINAL_MBIT, progress, ports=ports)
        source = "calibrated now"
    mbit = min(float(entry["mbit"]), NOMINAL_MBIT)
    chosen = LinkRate(NOMINAL_MBIT, mbit, True, source)
    progress(f"link rate: {chosen.text()}")
    return topo.scaled(mbit / NOMINAL_MBIT), chosen
