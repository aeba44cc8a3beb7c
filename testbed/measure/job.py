"""The MPI job around a measured collective: the hosts of its ranks, the servers they span,
their environment (how they wait, MPI_Bcast's algorithm), the late side of a broadcast,
the result line rank 0 prints, and what TCP did when a job failed."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from collectives.algorithms import NATIVE
from collectives.executor import WAIT_MODES

from ..emulation.network import Emulation
from ..errors import RunFailed
from .mpich import MPICH_ALGORITHMS, mpich_env


def last_json(res: Any) -> dict[str, Any]:
    for line in reversed(res.rank_output.get(0, "").splitlines()):
        if line.startswith("{"):
            return json.loads(line)
    raise RunFailed("the MPI program printed no result")


def job_env(algorithm: str, wait: str | None, mpich_algorithm: str | None) -> dict[str, str]:
    """The ranks' environment: how they wait (MCASTLAB_WAIT), MPI_Bcast's algorithm."""
    env: dict[str, str] = {}
    if wait is not None:
        if wait not in WAIT_MODES:
            raise RunFailed(f"unknown wait mode '{wait}' (one of {', '.join(WAIT_MODES)})")
        env["MCASTLAB_WAIT"] = wait
    if mpich_algorithm is not None:
        if algorithm != NATIVE or mpich_algorithm not in MPICH_ALGORITHMS:
            raise RunFailed(f"an MPICH algorithm ({', '.join(MPICH_ALGORITHMS)}) applies to "
                            f"--algo {NATIVE} only")
        env |= mpich_env(mpich_algorithm)
    return env


def rank_hosts(emu: Emulation, hosts: int | Sequence[str] | None) -> list[str]:
    """The host of every rank: the first `hosts` hosts, these names, or all."""
    if hosts is None or isinstance(hosts, int):
        return [h.name for h in emu.topo.hosts][: hosts or len(emu.topo.hosts)]
    return list(hosts)


def check_late(late: tuple[str, float] | None) -> None:
    if late is not None:
        side, ms = late
        if side not in ("root", "receivers") or not 0 <= ms <= 10_000:
            raise RunFailed(f"late is (root|receivers, 0-10000 ms), got {late!r}")


def job_servers(emu: Emulation, names: list[str], flow: bool) -> list[str]:
    """The servers the ranks run on; RunFailed where they span several without the
    flow-latency benchmark (the direct t_mcast reads one clock on every rank)."""
    servers = emu.spread.servers_of(names)
    if not flow and len(servers) > 1:
        raise RunFailed(f"ranks on {len(servers)} servers share no clock: the flow-latency "
                        "benchmark is the measure there (flow=True)")
    return servers


def tcp_note(tcp: dict[str, int]) -> str:
    """What TCP did meanwhile, for the message of a job that failed (its MPI messages go
    over TCP: under loss a stall may be TCP's backoff, not the algorithm)."""
    return (f"; meanwhile TCP on its hosts retransmitted {tcp['retrans_segs']} segment(s), "
            f"{tcp['timeouts']} of them after a retransmission timeout")
