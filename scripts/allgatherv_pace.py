"""mcast-concurrent Allgatherv with one large block and p-1 of 1 KiB: senders paced at
B/(p-1) (as before 22f659a) against paced in proportion to their blocks
(collectives.ipmc.concurrent.pace), alternating in one job; every block checked.

    sudo mcastlab mpirun --topo star:hosts=4,bw=10 -- $PWD/scripts/allgatherv_pace.py 5 262144
"""
import json
import statistics
import sys
from collections.abc import Sequence

from mpi4py import MPI

import collectives.ipmc.concurrent as cc
from collectives import allgatherv

N = int(sys.argv[1]) if len(sys.argv) > 1 else 6
BIG = int(sys.argv[2]) if len(sys.argv) > 2 else 262144
comm = MPI.COMM_WORLD
p, me = comm.Get_size(), comm.Get_rank()
counts = [BIG] + [1024] * (p - 1)
proportional = cc.pace


def equal(rate: float, sizes: Sequence[int], rank: int) -> float:
    return rate / (len(sizes) - 1)


send = bytes([me + 1]) * counts[me]
times: dict[str, list[float]] = {"B/(p-1)": [], "proportional": []}
for i in range(2 * N + 2):
    name = "proportional" if i % 2 else "B/(p-1)"
    cc.pace = proportional if i % 2 else equal
    recv = bytearray(sum(counts))
    comm.Barrier()
    t0 = MPI.Wtime()
    allgatherv(send, recv, counts, None, comm, "mcast-concurrent")
    t = comm.allreduce(MPI.Wtime() - t0, op=MPI.MAX)
    off = 0
    for r, c in enumerate(counts):
        assert recv[off:off + c] == bytes([r + 1]) * c, (r, i)
        off += c
    if i >= 2:
        times[name].append(t)
if me == 0:
    print(json.dumps({k: {"median_s": statistics.median(v), "samples_s": v}
                      for k, v in times.items()} | {"counts": counts}))
