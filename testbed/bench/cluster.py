"""The cost of running across servers (issue 22), on the two-server rig (testbed.cluster.rig:
a second "server" in namespaces of its own on this machine, behind a 1 Gbit/s link): the same
16-host fat tree on one server and on two, side by side: start-up per host, and nack and
binomial broadcasts timed by flow latency on both (the one measure that needs no shared
clock; on one server the direct time is shown beside it), every point with its fidelity
flags; TCP through a tunnel against the same pair on one server; and a paper plan of what N
real servers take to keep up with 64, 256 and 1024 hosts at 100 Mbit/s, from the figures
measured here; and the same experiment spec (two groups of 8 hosts, one per pod, so that
each group's ranks share a server's clock and the direct timing holds on both set-ups) run
by `mcastlab experiment`'s runner on one server and across two. The rig shares this
machine's cores, so two servers cannot be faster here: the point is the overhead and that
everything works."""

from __future__ import annotations

import math
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from collectives.call import BcastCall
from topologies import parse_spec

from .. import results
from ..cluster.rig import Rig
from ..cluster.spread import across
from ..emulation.environment import Capabilities
from ..emulation.network import Emulation, Progress
from ..experiments.calibration import resolve
from ..experiments.kinds import from_dict
from ..experiments.run import execute, new_run
from ..experiments.spec import across_servers
from ..fidelity.link_rate import LinkRate
from ..measure.options import RunOptions
from .points import Flagged, flagged_bcast, is_result, ratio
from .tcp import iperf

RIG_MBIT = 1000.0  # the servers' link: Gigabit Ethernet
ALGORITHMS = ("binomial", "nack")
PLAN_HOSTS = (64, 256, 1024)
PLAN_MBIT = 100.0
SERVER_CORES, OVS_CORES = 16, 2  # the plan's server: 16 cores, 2 kept for OVS and ssh


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    _star, rate = resolve("star:hosts=16", progress)  # what one machine keeps up with
    assert rate.mbit is not None  # a spec without bw is calibrated: a rate
    topo = parse_spec("fattree:k=4,n=2", bw=rate.mbit)
    sizes = (65536,) if quick else (1024, 65536)
    iters = 5 if quick else 10
    out: dict[str, Any] = {"mbit": rate.mbit, "link_rate": rate.to_dict(),
                           "topology": topo.name, "rig_mbit": RIG_MBIT, "setups": {}}
    with Rig(RIG_MBIT) as rig:
        for setup, cluster in (("one server", None), ("two servers", rig.spec)):
            progress(f"bench cluster: {topo.name} on {setup}")
            t0 = time.perf_counter()
            spread = across(topo, cluster)
            with Emulation(topo, caps=caps, cluster=spread) as emu:
                up_s = time.perf_counter() - t0
                res: dict[str, Any] = {"start_s": up_s, "timings": dict(emu.timings),
                                       "points": []}
                if spread is not None and spread.placement is not None:
                    res["hosts_per_server"] = spread.placement.hosts_per_server(topo)
                    res["tunnels"] = len(spread.placement.cut)
                for algo in ALGORITHMS:
                    for size in sizes:
                        progress(f"bench cluster: {algo} {size} B on {setup}")
                        p = flagged_bcast(emu, BcastCall(algo, size),
                                          RunOptions(repetitions=iters, flow=True))
                        res["points"].append(_point(algo, size, p))
                t1 = time.perf_counter()
            res["stop_s"] = time.perf_counter() - t1
            out["setups"][setup] = res
        out["tcp"] = _tcp(caps, rig, progress, quick)
        out["experiment"] = _experiment(caps, rig, progress, rate.mbit, quick)
    out["plan"] = plan(rate.mbit, out["setups"]["two servers"]["start_s"])
    return out


def _point(algo: str, size: int, p: Flagged) -> dict[str, Any]:
    r = p.result
    if r is None:
        return {"algorithm": algo, "size": size, "ms": None, "flags": [], "error": p.error}
    flow = (r.flow or {}).get("t_mcast_s")
    return {"algorithm": algo, "size": size, "timing": r.timing,
            "ms": flow * 1e3 if flow is not None else None,
            "direct_ms": r.median_s * 1e3 if r.timing == "direct" else None,
            "verified": r.verified, "flags": p.flags, "error": None, "fidelity": p.fidelity}


def _tcp(caps: Capabilities, rig: Rig, progress: Progress, quick: bool) -> dict[str, Any]:
    """iperf3 from h0 to h1 of a two-leaf tree at 1 Gbit/s host links: through the tunnel
    between the servers, and with both leaves on one server."""
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=1,bw=1000")
    seconds = 3 if quick else 5
    out = {}
    for setup, cluster in (("one server", None), ("two servers", rig.spec)):
        progress(f"bench cluster: TCP h0 -> h1 on {setup}")
        with Emulation(topo, caps=caps, cluster=across(topo, cluster)) as emu:
            out[setup] = iperf(emu.host(0), emu.host(1), seconds)
    return out


def _experiment(caps: Capabilities, rig: Rig, progress: Progress, mbit: float,
                quick: bool) -> dict[str, Any]:
    """One experiment spec on one server and on two: its points (median ms, timing, flags)
    and its wall time, network start-up included."""
    raw = {"name": "cluster-bench", "repetitions": 5 if quick else 10, "warmup": 2,
           "timeout": 60, "network": {"topology": f"fattree:k=4,n=2,bw={mbit:g}"},
           "sweep": {"algorithms": list(ALGORITHMS), "sizes": [65536], "hosts": [8],
                     "groups": [1, 2]}}
    out: dict[str, Any] = {"spec": raw, "setups": {}}
    for setup, cluster in (("one server", None), ("two servers", rig.spec)):
        progress(f"bench cluster: the experiment on {setup}")
        spec = from_dict(raw)
        if cluster is not None:
            across_servers(spec, cluster, "bench")
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            run = new_run(spec, Path(tmp), LinkRate(mbit, mbit, False, "given"), caps, progress)
            execute(run)
            wall = time.perf_counter() - t0
            recs = results.read_jsonl(Path(tmp) / "records.jsonl")
        out["setups"][setup] = {"wall_s": wall, "points": [{
            "algorithm": r["config"]["algorithm"], "groups": r["config"]["groups"],
            "timing": r.get("timing"), "servers": r.get("servers"),
            "ms": r["t_mcast_s"]["median"] * 1e3 if r["t_mcast_s"] else None,
            "flags": (r.get("fidelity") or {}).get("flags") or [], "error": r["error"]}
            for r in recs]}
    return out


def plan(mbit_16: float, two_server_start_s: float) -> dict[str, Any]:
    """Servers for N hosts at PLAN_MBIT, from what this machine keeps up with: 16 hosts at
    `mbit_16` on its cores is a host-Mbit/s budget per core; a server keeps OVS_CORES for
    its switch and ssh; a fat tree cut in halves sends half of a server's traffic over its
    NIC; Mininet builds node after node from the launching server, so start-up grows with
    N at the per-host time measured on the rig."""
    cores_here = os.cpu_count() or 1
    per_core = 16 * mbit_16 / cores_here  # host-Mbit/s one core keeps up with
    per_server = max(1, math.floor((SERVER_CORES - OVS_CORES) * per_core / PLAN_MBIT))
    per_host_s = two_server_start_s / 16
    rows = []
    for n in PLAN_HOSTS:
        servers = math.ceil(n / per_server)
        nic = min(n, per_server) * PLAN_MBIT / 2 / 1e3  # Gbit/s each way across the cut
        rows.append({"hosts": n, "cores": math.ceil(n * PLAN_MBIT / per_core),
                     "servers": servers, "hosts_per_server": min(n, per_server),
                     "nic_gbit": nic, "start_min": n * per_host_s / 60})
    return {"cores_here": cores_here, "host_mbit_per_core": per_core,
            "hosts_per_server": per_server, "per_host_start_s": per_host_s, "rows": rows}


def markdown(res: dict[str, Any]) -> list[str]:
    one, two = res["setups"]["one server"], res["setups"]["two servers"]
    out = ["", f"The same {res['topology']} (16 hosts, 8 switches) at {res['mbit']:g} Mbit/s "
           f"(the rate 16 hosts keep up with on this machine) on one server and on the "
           f"two-server rig: server2 is a set of namespaces on this same machine with its own "
           f"Open vSwitch and sshd, behind a {res['rig_mbit']:g} Mbit/s link (HTB); "
           f"{two.get('tunnels', 0)} links cross it as VXLAN tunnels (this kernel has no "
           f"GRE), hosts split "
           f"{' + '.join(str(n) for n in (two.get('hosts_per_server') or {}).values())}. "
           "Both set-ups share this machine's cores, so two servers cannot be faster here: "
           "this measures the overhead.", "",
           "## Start-up", "",
           "| set-up | controller (s) | Mininet built (s) | configured (s) | ready (s) | "
           "per host (s) | teardown (s) |", "|---|---|---|---|---|---|---|"]
    for name, s in res["setups"].items():
        t = s["timings"]
        out.append(f"| {name} | {t['controller_s']:.1f} | {t['mininet_s']:.1f} | "
                   f"{t['configure_s']:.1f} | {t['ready_s']:.1f} | {s['start_s'] / 16:.2f} | "
                   f"{s['stop_s']:.1f} |")
    out += ["", "## Broadcasts, timed by flow latency on both", "",
            "Flow latency (Nupairoj's Algorithm 3.3.2) needs no shared clock, so it is the "
            "measure across servers, and here the like-for-like one; the direct time (one "
            "clock) is shown for one server. ! = flagged (no result, no ratio). A flow "
            "figure is one mean over a few broadcasts to the critical responder, after a "
            "dummy wait: at small sizes on a busy 2-core machine it is noisy (compare the "
            "direct column).", "",
            "| algorithm | size | one server | two servers | two / one | one server, direct |",
            "|---|---|---|---|---|---|"]
    for a, b in zip(one["points"], two["points"], strict=True):
        direct = f"{a['direct_ms']:.2f} ms" if a.get("direct_ms") else "-"
        out.append(f"| {a['algorithm']} | {a['size']} | {_ms(a)} | {_ms(b)} | "
                   f"{ratio(b, a)} | {direct} |")
    flagged = [f"{name}, {p['algorithm']} {p['size']} B: {'; '.join(p['flags'] or [])}"
               f"{p.get('error') or ''}" for name, s in res["setups"].items()
               for p in s["points"] if not is_result(p)]
    if flagged:
        out += ["", "Not results:", "", *(f"- {f}" for f in flagged)]
    out += _experiment_markdown(res["experiment"])
    tcp = res["tcp"]
    out += ["", "## TCP through a tunnel", "",
            "iperf3 from h0 to h1 of a two-leaf tree with 1 Gbit/s host links: the leaves on "
            "one server, and on two (through the VXLAN tunnel over the rig's link).", "",
            "| set-up | Mbit/s | retransmits |", "|---|---|---|",
            *(f"| {k} | {v['mbit']:.0f} | {v['retransmits']} |" for k, v in tcp.items())]
    pl = res["plan"]
    out += ["", f"## Paper plan: servers for 64, 256 and 1024 hosts at {PLAN_MBIT:g} Mbit/s",
            "", f"From the figures above: 16 hosts keep up at {res['mbit']:g} Mbit/s on this "
            f"machine's {pl['cores_here']} cores, so one core keeps up with about "
            f"{pl['host_mbit_per_core']:.0f} host-Mbit/s. A {SERVER_CORES}-core server with "
            f"{OVS_CORES} cores kept for its switch and ssh then carries "
            f"{pl['hosts_per_server']} hosts at {PLAN_MBIT:g} Mbit/s. A fat tree placed in "
            "blocks cuts its bisection: about half of a server's host traffic crosses its "
            "NIC each way. Mininet builds one node after another from the launching server "
            f"({pl['per_host_start_s']:.2f} s per host on the rig), so start-up grows with "
            "the hosts, not the servers.", "",
            "| hosts | cores | servers | hosts per server | NIC each way (Gbit/s) | "
            "start-up (min) |", "|---|---|---|---|---|---|",
            *(f"| {r['hosts']} | {r['cores']} | {r['servers']} | {r['hosts_per_server']} | "
              f"{r['nic_gbit']:.1f} | {r['start_min']:.1f} |" for r in pl["rows"])]
    out += ["", "Measured with `sudo .venv/bin/mcastlab bench --suite cluster`."]
    return out


def _experiment_markdown(exp: dict[str, Any]) -> list[str]:
    one, two = exp["setups"]["one server"], exp["setups"]["two servers"]
    sweep = exp["spec"]["sweep"]
    out = ["", "## One experiment spec on one server and on two", "",
           f"`mcastlab experiment`'s runner on the same spec: {', '.join(sweep['algorithms'])} "
           f"at 64 KiB, {exp['spec']['repetitions']} broadcasts per point, one group of 8 "
           "hosts (the first pod) and two groups of 8 at once (one per pod, so on two "
           "servers one per server: each group's ranks share a clock, and both set-ups are "
           "timed directly). Median ms; ! = flagged (no ratio).", "",
           "| algorithm | groups | one server | two servers | two / one | timing (two) |",
           "|---|---|---|---|---|---|"]
    for a, b in zip(one["points"], two["points"], strict=True):
        out.append(f"| {a['algorithm']} | {a['groups']} | {_ms(a)} | {_ms(b)} | "
                   f"{ratio(b, a)} | {b['timing']} |")
    out += ["", f"Whole experiment, start-up and teardown included: {one['wall_s']:.0f} s on "
            f"one server, {two['wall_s']:.0f} s on two."]
    bad = [f"{name}, {p['algorithm']} x{p['groups']}: {'; '.join(p['flags']) or p['error']}"
           for name, s in exp["setups"].items() for p in s["points"] if not is_result(p)]
    return out + (["", "Not results:", "", *(f"- {f}" for f in bad)] if bad else [])


def _ms(p: dict[str, Any]) -> str:
    if p["ms"] is None:
        return "failed"
    return f"{p['ms']:.2f} ms{'' if is_result(p) else ' !'}"
