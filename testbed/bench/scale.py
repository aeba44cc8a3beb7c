"""What limits the host count on one machine (``mcastlab bench --suite scale``, written to
bench/scale.md), issue 52: for stars of 16, 32 and 64 hosts, measured on each:

- cores per rank (the machine's cores over the ranks: every rank of a collective is busy at
  once in a multicast broadcast's repair and in MPI_Bcast);
- memory: each rank's peak resident memory (Python, mpi4py, MPICH), and what the network
  itself costs Open vSwitch (its resident memory before the network and with it up: each
  AF_XDP port holds a packet buffer area of its own);
- start-up: the network's start and stop, and an MPI job of N ranks from mpiexec's start to
  every rank past its first barrier (collectives.programs.startup_probe: per rank, process
  start to MPI_Init's return and to the barrier, and the CPU that cost), and the bytes the
  first host's data link carried meanwhile: mpiexec runs there, and MPICH's address
  exchange (its PMI allgather, N cards of ~4 KB to each of N proxies) goes over the run's
  control network (testbed.emulation.ctlnet); before it had one, that exchange crossed the
  shaped link (64 hosts at 2 Mbit/s: 12.9 MiB, every rank past its barrier at 65.7 s;
  with it 0.3 MiB, 12.0 s, 2026-12-07);
- the keep-up envelope: the rate `mcastlab calibrate` found for that star, where this machine
  has calibrated it (the bench does not calibrate: hours at 64 hosts; it says so).
The links run at LINK_MBIT: start-up and memory do not depend on the rate."""

from __future__ import annotations

import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from topologies import parse_spec

from ..emulation.environment import Capabilities
from ..emulation.mpi import run_mpi
from ..emulation.network import Emulation, Progress
from ..emulation.ports import host_port_type
from ..experiments.calibration import cached, machine, topology_key
from ..fidelity.link_rate import NOMINAL_MBIT, nominal_topology

COUNTS = (16, 32, 64)
LINK_MBIT = 2
OVS_PID = Path("/var/run/openvswitch/ovs-vswitchd.pid")


def ovs_rss_mib() -> float | None:
    """ovs-vswitchd's resident memory now (MiB), None if it cannot be read."""
    try:
        pid = int(OVS_PID.read_text())
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, ValueError):
        return None
    kib = next((int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("VmRSS:")),
               None)
    return None if kib is None else kib / 1024


def _median_max(values: list[float]) -> dict[str, float]:
    return {"median": statistics.median(values), "max": max(values)}


def _startup(emu: Emulation, n: int) -> dict[str, Any]:
    """An MPI job of `n` ranks that only starts, meets at a barrier and ends."""
    first = emu.topo.hosts[0].name
    switch = next(iter(emu.topo.ports(first).values()))
    link = Path(f"/sys/class/net/{switch}-eth{emu.topo.port_to(switch, first)}/statistics")
    t0 = time.time()
    sent = int((link / "rx_bytes").read_text())  # the switch's side: what the host sent
    res = run_mpi(emu, ["-m", "collectives.programs.startup_probe"], np=n, timeout=600)
    wall = time.time() - t0
    sent = int((link / "rx_bytes").read_text()) - sent
    out = next(json.loads(ln) for text in res.rank_output.values()
               for ln in text.splitlines() if ln.startswith("{"))
    ranks = out["per_rank"]
    return {"job_s": wall, "first_host_sent_mib": sent / 2**20,
            "all_past_barrier_s": max(r["barrier_done"] for r in ranks) - t0,
            "start_to_init_s": _median_max([r["init_done"] - r["start"] for r in ranks]),
            "init_to_barrier_s": _median_max([r["barrier_done"] - r["init_done"]
                                              for r in ranks]),
            "rank_cpu_s": _median_max([r["cpu_s"] for r in ranks]),
            "rank_rss_mib": _median_max([r["maxrss_kib"] / 1024 for r in ranks])}


def _envelope(n: int, caps: Capabilities) -> float | None:
    """The calibrated rate of a star of `n` hosts on this machine, if calibrated."""
    topo = nominal_topology("star", hosts=n)
    entry = cached(topology_key(topo), machine(host_port_type(caps, None)), NOMINAL_MBIT)
    return None if entry is None else float(entry["mbit"])


def run(caps: Capabilities, progress: Progress, quick: bool = False) -> dict[str, Any]:
    rows = []
    for n in COUNTS[:2] if quick else COUNTS:
        progress(f"scale: a star of {n} hosts")
        before = ovs_rss_mib()
        with Emulation(parse_spec(f"star:hosts={n},bw={LINK_MBIT}"), caps=caps,
                       progress=progress) as emu:
            up_s = emu.timings["ready_s"]  # from when it had the machine (not the run lock's wait)
            with_net = ovs_rss_mib()
            start = _startup(emu, n)
            t1 = time.perf_counter()
        rows.append({"hosts": n, "cores": os.cpu_count(),
                     "cores_per_rank": (os.cpu_count() or 1) / n,
                     "network_start_s": up_s, "network_stop_s": time.perf_counter() - t1,
                     "ovs_rss_mib": {"before": before, "with_network": with_net},
                     "envelope_mbit": _envelope(n, caps)} | start)
    return {"link_mbit": LINK_MBIT, "rows": rows}


def _f(v: float | None, fmt: str = ".1f") -> str:
    return "-" if v is None else format(v, fmt)


def markdown(res: dict[str, Any]) -> list[str]:
    out = ["", f"Stars at {res['link_mbit']} Mbit/s (start-up and memory do not depend on the "
           "rate). Per rank: median (max) over the job's ranks.", "",
           "| hosts | cores per rank | network start s | stop s | MPI job s | all past "
           "barrier s | first host sent MiB | rank start to MPI_Init s | rank CPU s | rank "
           "memory MiB | Open vSwitch MiB (before / up) | calibrated Mbit/s |",
           "|---" * 12 + "|"]
    for r in res["rows"]:
        ovs = r["ovs_rss_mib"]
        out.append(
            f"| {r['hosts']} | {r['cores_per_rank']:.3f} | {r['network_start_s']:.1f} | "
            f"{r['network_stop_s']:.1f} | {r['job_s']:.1f} | {r['all_past_barrier_s']:.1f} | "
            f"{r['first_host_sent_mib']:.1f} | "
            f"{r['start_to_init_s']['median']:.2f} ({r['start_to_init_s']['max']:.2f}) | "
            f"{r['rank_cpu_s']['median']:.2f} ({r['rank_cpu_s']['max']:.2f}) | "
            f"{r['rank_rss_mib']['median']:.0f} ({r['rank_rss_mib']['max']:.0f}) | "
            f"{_f(ovs['before'], '.0f')} / {_f(ovs['with_network'], '.0f')} | "
            f"{_f(r['envelope_mbit'], 'g') if r['envelope_mbit'] else 'not calibrated'} |")
    return out
