"""Fidelity (``mcastlab bench --suite fidelity``, written to bench/fidelity.md): what a waiting
rank costs, what forwarding a frame costs, the keep-up envelope, and the Siebert2006 figure at
the rates around it.

- Idle ranks: a rank waits 1 s for a message on two emulated hosts (collectives.programs.idle_bench)
  in MPI's own calls and in the project's loops, under each way of waiting tried: its CPU
  share, and how much later than a spinning rank it notices the message.
  Beside them, other MPIs under the same mpi4py (Open MPI, Intel MPI; bench.other_mpis).
- Forwarding: frames the software switch forwards per CPU-second of ovs-vswitchd (all its
  threads, /proc/<pid>/stat), default (AF_PACKET) against AF_XDP ports: UDP at fixed rates
  between two hosts, and multicast bursts to seven members.
- Envelope: mcastlab calibrate for stars of 2 to 64 hosts, as the testbed was before issue
  16 (ranks spinning in MPI, AF_PACKET ports, the switch at its own priority) and now.
- Scaling: nack 64 KiB on 2 and 16 hosts, MPI_Bcast and binomial on 16, at several rates
  on one 16-host star, each point with its fidelity flags.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from collectives.call import BcastCall
from collectives.programs import idle_bench
from topologies import parse_spec

from ..emulation import priority
from ..emulation.environment import Capabilities
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation, Progress
from ..emulation.ports import PORTS_ENV
from ..errors import RunFailed
from ..experiments import calibration
from ..fidelity.flags import Monitor
from ..measure.bcast import run_bcast
from ..measure.options import RunOptions
from . import other_mpis
from .points import ratio

# label, MCASTLAB_WAIT, extra environment, ops, more programs.idle_bench options, host CPU cap
IDLE: tuple[tuple[str, str, dict[str, str], str, dict[str, Any], float | None], ...] = (
    ("MPICH's own waits (spin)", "spin", {}, "recv,barrier,bcast", {}, None),
    ("MPICH, MPIR_CVAR_ENABLE_HEAVY_YIELD=1 + 1 ms timer slack", "spin",
     {"MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}, "recv,barrier,bcast", {"timer_slack_us": 1000},
     None),
    ("MPICH spinning in Mininet's CPULimitedHost, 10 % of a core per host", "spin", {},
     "recv,barrier,bcast", {}, 0.10),
    ("MPICH spinning in Mininet's CPULimitedHost, 2 % of a core per host", "spin", {},
     "recv,barrier,bcast", {}, 0.02),
    ("project loops: sched_yield between tests (yield)", "yield", {},
     "irecv,ibarrier,ibcast,nack", {}, None),
    ("project loops: naps up to 0.2 ms (sleep; the executor's best before)", "sleep", {},
     "irecv,ibarrier,ibcast,nack", {}, None),
    ("project loops: epoll on MPI's own sockets (block; the default now)", "block", {},
     "irecv,ibarrier,ibcast,nack", {}, None),
)
SPIN_OF = {"irecv": "recv", "ibarrier": "barrier", "ibcast": "bcast"}
BEFORE = {"MCASTLAB_WAIT": "spin", PORTS_ENV: "af_packet", priority.NICE_ENV: "0"}
SCALING_RATES = (10, 20, 30, 50, 100)


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


# ---- idle ranks ---------------------------------------------------------------------------
def idle(caps: Capabilities, progress: Progress, iters: int) -> list[dict[str, Any]]:
    """One network per CPU cap (None: hosts unlimited); the cap is a share of one core, as
    the goal is stated, given to Mininet as its fraction of the whole machine."""
    rows = []
    cores = os.cpu_count() or 1
    for cap in dict.fromkeys(row[5] for row in IDLE):
        frac = None if cap is None else cap / cores
        with Emulation(parse_spec("star:hosts=2,bw=100"), caps=caps, host_cpu=frac) as emu:
            for label, mode, env, ops, extra, row_cap in IDLE:
                if row_cap != cap:
                    continue
                progress(f"bench fidelity: idle rank, {label}")
                res = run_mpi(emu, idle_bench.argv(ops=ops, iters=iters, **extra),
                              env={"MCASTLAB_WAIT": mode, **env}, timeout=120 + 30 * iters)
                line = [ln for ln in res.rank_output[0].splitlines() if ln.startswith("{")][-1]
                rows.append({"label": label, "mode": mode, "env": env, "args": extra,
                             "host_cpu_of_core": cap, "results": json.loads(line)["results"]})
    return rows


# ---- forwarding ---------------------------------------------------------------------------
def _ovs_ticks() -> int:
    pid = priority.switch_pid()
    if pid is None:
        return 0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def _tx_packets(intfs: list[str]) -> int:
    return sum(int(Path(f"/sys/class/net/{i}/statistics/tx_packets").read_text())
               for i in intfs)


def forwarding(caps: Capabilities, progress: Progress, ports: str,
               seconds: float) -> dict[str, Any]:
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, Any] = {"ports": ports, "unicast": [], "multicast": None}
    with Emulation(parse_spec("star:hosts=8,bw=1000"), caps=caps, ports=ports) as emu:
        h0, h1 = emu.host(0), emu.host(1)
        for mbit in (100, 400):
            progress(f"bench fidelity: forwarding {mbit} Mbit/s UDP on {ports} ports")
            server = h1.popen(["iperf3", "-s", "-1", "-p", "29481"])
            time.sleep(0.5)
            c0, f0, t0 = _ovs_ticks(), _tx_packets(["s1-eth2"]), time.time()
            h0.cmd(f"iperf3 -u -b {mbit}M -l 1400 -c {h1.IP()} -p 29481 -t {seconds:g}")
            c1, f1, t1 = _ovs_ticks(), _tx_packets(["s1-eth2"]), time.time()
            server.wait(timeout=10)
            cpu_s = (c1 - c0) / tick
            out["unicast"].append({"offered_mbit": mbit, "frames": f1 - f0,
                                   "switch_cpu_s": cpu_s, "seconds": t1 - t0,
                                   "frames_per_cpu_s": (f1 - f0) / cpu_s if cpu_s else None})
        progress(f"bench fidelity: multicast bursts to 7 members on {ports} ports")
        members = [f"s1-eth{p}" for p in range(2, 9)]
        c0, f0 = _ovs_ticks(), _tx_packets(members)
        burst = calibration.multicast_bursts(emu, 1 << 20, bursts=6)
        c1, f1 = _ovs_ticks(), _tx_packets(members)
        cpu_s = (c1 - c0) / tick
        out["multicast"] = {"frames": f1 - f0, "switch_cpu_s": cpu_s,
                            "frames_per_cpu_s": (f1 - f0) / cpu_s if cpu_s else None,
                            "burst": burst}
    return out


# ---- envelope -----------------------------------------------------------------------------
def envelope(progress: Progress, hosts: tuple[int, ...], cap: float,
             env: dict[str, str]) -> list[dict[str, Any]]:
    """Calibrate each star size afresh (a throw-away cache: the `before` settings must not
    answer a later run's `auto`)."""
    rows = []
    with tempfile.TemporaryDirectory() as cache, \
            _environment({**env, calibration.CACHE_ENV: cache}):
        for n in hosts:
            topo = parse_spec(f"star:hosts={n},bw=100")
            try:
                entry = calibration.calibrate(topo, cap, progress)
                rows.append({"hosts": n, "mbit": entry["mbit"], "tried": entry["tried"],
                             "seconds": entry["seconds"]})
            except RunFailed as exc:  # not even the lowest rate kept up: a result too
                rows.append({"hosts": n, "mbit": None, "error": str(exc)})
    return rows


# ---- scaling ------------------------------------------------------------------------------
def scaling(caps: Capabilities, progress: Progress, rates: tuple[int, ...],
            iters: int) -> list[dict[str, Any]]:
    rows = []
    with Emulation(parse_spec("star:hosts=16,bw=100"), caps=caps) as emu:
        for mbit in rates:
            now = emu.topo.host_rate()
            assert now is not None  # bw=100 at first, then each of `rates`
            emu.retune(emu.topo.scaled(mbit / now))
            row: dict[str, Any] = {"mbit": mbit}
            for name, alg, hosts in (("nack2", "nack", 2), ("nack16", "nack", 16),
                                     ("mpich16", "mpich", 16), ("binomial16", "binomial", 16)):
                progress(f"bench fidelity: {alg} 64 KiB on {hosts} hosts at {mbit} Mbit/s")
                with Monitor(emu.topo) as mon:
                    r = run_bcast(emu, BcastCall(alg, 65536),
                                  RunOptions(hosts=hosts, repetitions=iters,
                                             flow=False))
                fid = mon.window(*r.window, host_wait_s=r.wait_per_turn_s)
                row[name] = {"ms": r.median_s * 1e3, "flags": fid["flags"],
                             "switch_waited": fid["switch_waited"],
                             "host_wait_frames": fid["host_wait_frames"],
                             "cpu_busy": fid["cpu_busy"]}
            rows.append(row)
    return rows


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    hosts = (2, 4, 8, 16) if quick else (2, 4, 8, 16, 32, 64)
    return {
        "idle": idle(caps, progress, 3 if quick else 5),
        "other_mpis": other_mpis.measure(progress, 3 if quick else 5),
        "forwarding": [forwarding(caps, progress, p, 2 if quick else 4)
                       for p in ("af_packet", "afxdp")],
        # before: up to 16 hosts (with every rank spinning, 32 and 64 take hours and fail)
        "envelope_before": envelope(progress, hosts[:4], 100.0, BEFORE),
        "envelope_after": envelope(progress, hosts, 100.0 if quick else 1000.0, {}),
        "scaling": scaling(caps, progress, SCALING_RATES, 5 if quick else 10),
    }


# ---- markdown -----------------------------------------------------------------------------
def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x * 100:.1f} %"


def _idle_md(rows: list[dict[str, Any]]) -> list[str]:
    spin = next(r for r in rows if r["mode"] == "spin" and not r["env"]
                and r.get("host_cpu_of_core") is None)["results"]
    out = ["", "## A waiting rank (goal: at most 2 % of a core)", "",
           "Rank 1 waits 1 s for rank 0 on two emulated hosts (100 Mbit/s star); medians. "
           "Extra wake-up: its latency less that of MPICH's spinning call of the same kind.", "",
           "| how the rank waits | call | CPU share | wake-up ms | extra ms |",
           "|---|---|---|---|---|"]
    for r in rows:
        for op, v in r["results"].items():
            base = spin.get(SPIN_OF.get(op, op))
            extra = (f"{(v['latency_s'] - base['latency_s']) * 1e3:+.2f}"
                     if base and op != "nack" else "-")
            out.append(f"| {r['label']} | {op} | {_pct(v['cpu_share'])} | "
                       f"{v['latency_s'] * 1e3:.2f} | {extra} |")
    return out


def _forwarding_md(rows: list[dict[str, Any]]) -> list[str]:
    out = ["", "## Forwarding cost", "",
           "Frames the switch delivered per CPU-second of ovs-vswitchd (8-host star, 1 Gbit/s "
           "links; UDP 1400-byte datagrams from h0 to h1; multicast: 1 MiB bursts from h0 to "
           "7 members).", "", "| ports | load | frames | switch CPU s | frames per CPU-s |",
           "|---|---|---|---|---|"]
    for r in rows:
        for u in r["unicast"]:
            out.append(f"| {r['ports']} | UDP {u['offered_mbit']} Mbit/s | {u['frames']} | "
                       f"{u['switch_cpu_s']:.2f} | {u['frames_per_cpu_s'] or 0:.0f} |")
        m = r["multicast"]
        out.append(f"| {r['ports']} | multicast bursts | {m['frames']} | "
                   f"{m['switch_cpu_s']:.2f} | {m['frames_per_cpu_s'] or 0:.0f} |")
    return out


def _envelope_md(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[str]:
    def cell(r: dict[str, Any]) -> str:
        if r.get("mbit") is None:
            return "below 5"
        tried = " ".join(f"{v['mbit']:g}{'+' if v['ok'] else '-'}"
                         for v in sorted(r["tried"], key=lambda v: v["mbit"]))
        return f"**{r['mbit']:g}** ({tried})"

    out = ["", "## Keep-up envelope (stars; highest rate that passes mcastlab calibrate)", "",
           "Before: ranks spinning in MPI, AF_PACKET switch ports, the switch at its own "
           "priority (searched up to 100 Mbit/s). After: this issue's defaults (up to 1000). "
           "+ passed, - failed.", "", "| hosts | before, Mbit/s | after, Mbit/s |",
           "|---|---|---|"]
    by_before = {r["hosts"]: r for r in before}
    by_after = {r["hosts"]: r for r in after}
    for n in sorted(by_before.keys() | by_after.keys()):
        b, a = by_before.get(n), by_after.get(n)
        out.append(f"| {n} | {cell(b) if b else 'not tried'} | {cell(a) if a else '-'} |")
    why = [f"- {r['hosts']} hosts: " + "; ".join(v["failed"])
           for r in after if r.get("tried")
           for v in sorted(r["tried"], key=lambda v: v["mbit"]) if not v["ok"]
           and v["mbit"] > (r["mbit"] or 0)][:8]
    if why:
        out += ["", "Why the rates above failed (after; each rate tried and failed):", *why]
    return out


def _scaling_md(rows: list[dict[str, Any]]) -> list[str]:
    out = ["", "## nack 64 KiB on 2 and 16 hosts, against MPI_Bcast and binomial on 16", "",
           "One 16-host star retuned rate by rate; ! = flagged by the fidelity monitor (no "
           "ratio from it: -).", "",
           "| Mbit/s | nack 2 ms | nack 16 ms | T(16)/T(2) | MPI_Bcast 16 ms | binomial 16 ms "
           "| nack / MPI_Bcast | hosts' wait, frame times |", "|---|---|---|---|---|---|---|---|"]

    def v(x: dict[str, Any]) -> str:
        return f"{x['ms']:.1f}{'!' if x['flags'] else ''}"

    for r in rows:
        worst = max((r[k].get("host_wait_frames") or 0.0) for k in
                    ("nack2", "nack16", "mpich16", "binomial16"))
        out.append(f"| {r['mbit']} | {v(r['nack2'])} | {v(r['nack16'])} | "
                   f"{ratio(r['nack16'], r['nack2'])} | {v(r['mpich16'])} | "
                   f"{v(r['binomial16'])} | {ratio(r['nack16'], r['mpich16'])} | "
                   f"{worst:.2f} |")
    clean = [r for r in rows if not any(r[k]["flags"] for k in ("nack2", "nack16",
                                                                  "mpich16"))]
    if clean:
        best = max(clean, key=lambda r: r["mbit"])
        out += ["", f"Highest rate with none of these flagged: {best['mbit']} Mbit/s: nack "
                f"T(16)/T(2) = {best['nack16']['ms'] / best['nack2']['ms']:.2f}, nack / "
                f"MPI_Bcast = {best['nack16']['ms'] / best['mpich16']['ms']:.2f}."]
    return out


def markdown(res: dict[str, Any]) -> list[str]:
    return [*_idle_md(res["idle"]), *other_mpis.markdown(res.get("other_mpis", [])),
            *_forwarding_md(res["forwarding"]),
            *_envelope_md(res["envelope_before"], res["envelope_after"]),
            *_scaling_md(res["scaling"]),
            "", "Measured with `sudo .venv/bin/mcastlab bench --suite fidelity`."]

