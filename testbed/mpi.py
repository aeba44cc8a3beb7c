"""Run an mpi4py program across emulated hosts with MPICH's hydra.

``mpiexec`` runs inside the first chosen host, so its control connections cross the emulated
network; hydra starts its proxies in the other hosts through `hydra_launcher.sh`, which
enters each host's namespaces. Rank i runs on the i-th chosen host (default: host i of the
topology order). A job that exceeds its timeout, or a rank that dies, ends the whole job with
a clear error; every process of the job is killed either way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import registry
from .errors import RunFailed, UsageError

LAUNCHER = Path(__file__).with_name("hydra_launcher.sh")
VENV_BIN = Path(sys.executable).parent


@dataclass
class MpiResult:
    returncode: int
    elapsed_s: float
    stdout: str
    stderr: str
    rank_output: dict[int, str] = field(default_factory=dict)
    job_dir: Path | None = None


def _tail(text: str, n: int = 8) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[-n:])


def run_mpi(emu: Any, argv: list[str], *, hosts: list[str] | None = None, np: int | None = None,
            ppn: int = 1, timeout: float = 120.0, env: dict[str, str] | None = None,
            check: bool = True) -> MpiResult:
    """Run `argv` (e.g. ``["-m", "collectives.pingpong"]``, given to the venv's python) on
    `np` ranks, `ppn` per host, over `hosts` (names or node ids; default all)."""
    names = [emu.topo.host(h).name for h in hosts] if hosts else [h.name for h in emu.topo.hosts]
    np = np or len(names) * ppn
    if np < 1 or np > len(names) * ppn:
        raise UsageError(f"{np} ranks do not fit on {len(names)} host(s) at {ppn} per host")
    names = names[: -(-np // ppn)]
    job_id = uuid.uuid4().hex[:12]
    job_dir = emu.run_dir / f"mpi-{job_id}"
    job_dir.mkdir(parents=True)
    hostmap = job_dir / "hostmap"
    hostmap.write_text("".join(f"{n} {emu.net.get(n).pid}\n" for n in names))
    first = emu.net.get(names[0])
    cmd = [str(VENV_BIN / "mpiexec"), "-launcher", "ssh", "-launcher-exec", str(LAUNCHER),
           "-localhost", first.IP(), "-hosts", ",".join(f"{n}:{ppn}" for n in names),
           "-n", str(np), "-genv", "UCX_TLS", "tcp,self",
           "-outfile-pattern", str(job_dir / "rank-%r.out"),
           "-errfile-pattern", str(job_dir / "rank-%r.err"),
           sys.executable, *argv]
    job_env = dict(os.environ, MCASTLAB_HOSTMAP=str(hostmap), **{registry.ENV_JOB: job_id},
                   PYTHONUNBUFFERED="1", **(env or {}))
    t0 = time.perf_counter()
    proc = first.popen(cmd, env=job_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       start_new_session=True, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        registry.kill_processes(registry.marked_processes(job_id=job_id))
        proc.kill()
        proc.communicate()
        raise RunFailed(f"MPI job '{' '.join(argv)}' on {np} ranks exceeded its "
                        f"{timeout:g} s timeout; all its processes were killed") from None
    finally:
        registry.kill_processes(registry.marked_processes(job_id=job_id))
    res = MpiResult(proc.returncode, time.perf_counter() - t0, out, err, job_dir=job_dir)
    for r in range(np):
        parts = [p.read_text(errors="replace") for p in
                 (job_dir / f"rank-{r}.out", job_dir / f"rank-{r}.err") if p.exists()]
        res.rank_output[r] = "".join(parts)
    if check and res.returncode != 0:
        failed = [r for r, o in res.rank_output.items() if "Traceback" in o or "Error" in o]
        detail = _tail(res.rank_output[failed[0]]) if failed else _tail(err or out)
        who = f"rank {failed[0]} failed" if failed else f"mpiexec exited {res.returncode}"
        raise RunFailed(f"MPI job '{' '.join(argv)}' on {np} ranks: {who}:\n{detail}")
    return res
