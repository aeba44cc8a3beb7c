"""An mpi4py program that knows nothing of collectives (test_dropin.py runs it under
``python -m collectives.use``): broadcasts and barriers on COMM_WORLD and a Dup of it, and
one object allgather."""

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
data = np.arange(1000, dtype="i4") if comm.rank == 0 else np.empty(1000, "i4")
comm.Bcast(data, root=0)
obj = comm.bcast({"from": comm.rank} if comm.rank == 1 else None, root=1)
dup = comm.Dup()
dup.Barrier()
total = dup.bcast(int(data.sum()), root=2)
comm.barrier()
ranks = comm.allgather(comm.rank)
print(f"rank {comm.rank}: sum {total} from {obj['from']}, gathered {sum(ranks)} via "
      f"{type(comm).__module__}", flush=True)
