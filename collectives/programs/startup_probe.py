"""What starting N ranks costs each of them: the time from its process's start (the kernel's
record, /proc/self/stat) to MPI_Init's return (``python -m mpi4py`` initialises MPI before
this module runs) and on to the first barrier's, the CPU it spent doing so and its peak
resident memory. Under mpiexec:

    python -m collectives.programs.startup_probe
prints one JSON object from rank 0: {"ranks": N, "per_rank": [{...}, ...]}.
"""

from __future__ import annotations

import json
import os
import resource
import time


def started_at() -> float:
    """This process's start, in seconds since the epoch (the boot time plus the clock ticks
    /proc/self/stat field 22 counts)."""
    with open("/proc/self/stat") as f:
        ticks = int(f.read().rpartition(")")[2].split()[19])
    with open("/proc/stat") as f:
        boot = next(int(ln.split()[1]) for ln in f if ln.startswith("btime"))
    return boot + ticks / os.sysconf("SC_CLK_TCK")


def main() -> int:
    init_done = time.time()
    from mpi4py import MPI  # initialised already (python -m mpi4py): only its handle

    comm = MPI.COMM_WORLD
    comm.Barrier()
    barrier_done = time.time()
    use = resource.getrusage(resource.RUSAGE_SELF)
    mine = {"start": started_at(), "init_done": init_done, "barrier_done": barrier_done,
            "cpu_s": use.ru_utime + use.ru_stime, "maxrss_kib": use.ru_maxrss}
    every = comm.gather(mine, root=0)
    if comm.Get_rank() == 0:
        print(json.dumps({"ranks": comm.Get_size(), "per_rank": every}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
