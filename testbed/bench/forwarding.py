"""Multicast forwarding (``mcastlab bench --suite forwarding``): join-to-delivery latency
through the controller on a star and a 4x4 mesh, side by side with Open vSwitch's own IGMP
snooping on the same star, and the IGMP load the controller absorbs before that latency
doubles."""

from __future__ import annotations

import json
import statistics
import subprocess
from typing import Any

from controller.config import ControllerConfig
from topologies import parse_spec

from ..emulation.environment import Capabilities
from ..emulation.group_probe import sniffed, wait_ready
from ..emulation.network import Emulation, Progress
from ..hostprogs import command

GAP = 0.0005  # the stream's datagram interval: the resolution of a latency sample


def _probe(emu: Emulation, n: int, first: int, load: float = 0.0,
           load_hosts: list[str] | None = None) -> dict[str, Any]:
    """Stream from the first host, probe joins from the second; optional IGMP load."""
    control = emu.run_dir / f"probe-{first}.group"
    sender, prober = emu.hosts[0], emu.hosts[1]
    duration = n * 0.45 + 5
    stream = sender.popen(command("mcast_stream", control, sender.IP(), GAP, duration))
    loaders = []
    loading = load_hosts or []
    for i, name in enumerate(loading):
        h = emu.host(name)
        loaders.append(h.popen(command("igmp_load", f"{h.name}-eth0", h.IP(), h.MAC(),
                                     load / len(loading), duration, i), text=True))
    # Two hosts that never join watch their wire: a correct network delivers them nothing.
    watchers = {h.name: h.popen(command("mcast_sniff", f"{h.name}-eth0", "239.78.0.0/16",
                                        duration, "-", "--until-stop"),
                                stdin=subprocess.PIPE, text=True) for h in emu.hosts[2:4]}
    for name, w in watchers.items():
        wait_ready(w, f"the sniffer on {name}")
    probe = prober.popen(command("join_leave_probe", control, f"{prober.name}-eth0",
                                 prober.IP(), n, 0.3, first, 0, 0), text=True)
    out, err = probe.communicate(timeout=duration + 60)
    stream.kill()
    stream.wait()
    leaked = sum(c["count"] for c in sniffed(watchers, timeout=30).values() if c)
    sent = 0
    for p in loaders:
        lo, _ = p.communicate(timeout=duration + 30)
        sent += json.loads(lo)["sent"] if lo.strip() else 0
    if probe.returncode != 0:
        raise RuntimeError(f"join probe failed: {err}")
    lat = json.loads(out)["join_s"]
    got = [x * 1000 for x in lat if x is not None]
    return {"n": n, "delivered": len(got), "median_ms": statistics.median(got) if got else None,
            "p90_ms": sorted(got)[int(0.9 * (len(got) - 1))] if got else None,
            "samples_ms": [round(x, 3) for x in got], "load_offered_per_s": load,
            "leaked_to_non_members": leaked,
            "load_sent": sent}


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    n = 10 if quick else 30
    out: dict[str, Any] = {"stream_gap_ms": GAP * 1000}
    fast = ControllerConfig(igmp_rate=1e6)  # the load test measures processing, not limits
    for spec in ["star:hosts=8"] + ([] if quick else ["mesh:rows=4,cols=4"]):
        progress(f"bench: join-to-delivery latency through the controller on {spec}")
        with Emulation(parse_spec(spec), caps=caps, controller_config=fast) as emu:
            out[f"controller {spec}"] = _probe(emu, n, first=0)
    progress("bench: the same with Open vSwitch's own IGMP snooping (no controller)")
    with Emulation(parse_spec("star:hosts=8"), caps=caps, switch="ovs-snooping") as emu:
        out["ovs-snooping star:hosts=8"] = _probe(emu, n, first=0)

    progress("bench: IGMP load the controller absorbs before join latency doubles")
    loads: list[dict[str, Any]] = []
    with Emulation(parse_spec("star:hosts=8"), caps=caps, controller_config=fast) as emu:
        base = None
        for i, rate in enumerate([0, 100, 200, 400, 800, 1600, 3200, 6400, 12800]):
            r = _probe(emu, max(8, n // 3), first=100 + 20 * i, load=rate,
                       load_hosts=[f"h{k}" for k in range(2, 8)] if rate else None)
            loads.append(r)
            progress(f"bench:   {rate}/s offered: median {r['median_ms']} ms")
            base = base or r["median_ms"]
            if r["median_ms"] is None or (base and r["median_ms"] > 2 * base):
                break
    out["igmp_load"] = loads
    ok = [r["load_offered_per_s"] for r in loads
          if r["median_ms"] is not None and base and r["median_ms"] <= 2 * base]
    out["igmp_load_absorbed_per_s"] = max(ok) if ok else 0
    return out


def markdown(res: dict[str, Any]) -> list[str]:
    lines = ["", "Join-to-delivery latency (join to first datagram of a stream sent every "
             f"{res['stream_gap_ms']:g} ms):", "",
             "| network | joins served | median ms | p90 ms | datagrams at 2 non-members |",
             "|---|---|---|---|---|"]
    for k, r in res.items():
        if isinstance(r, dict) and "median_ms" in r:
            lat = (f"{r['median_ms']:.2f} | {r['p90_ms']:.2f}" if r["median_ms"] is not None
                   else "- | -")
            lines.append(f"| {k} | {r['delivered']}/{r['n']} | {lat} | "
                         f"{r['leaked_to_non_members']} |")
    lines += ["", "IGMP load (reports+leaves per second, offered by 6 hosts) against join "
              "latency on star:hosts=8:", "", "| offered /s | sent | median ms |",
              "|---|---|---|"]
    for r in res["igmp_load"]:
        med = f"{r['median_ms']:.2f}" if r["median_ms"] is not None else "no delivery"
        lines.append(f"| {r['load_offered_per_s']:g} | {r['load_sent']} | {med} |")
    lines.append(f"\nAbsorbed before the latency doubles: {res['igmp_load_absorbed_per_s']:g} "
                 "IGMP messages/s.")
    return lines
