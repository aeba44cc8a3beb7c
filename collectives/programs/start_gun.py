"""A start every rank of a job takes at one instant, given outside the emulated network.

Timing a collective that every rank starts (an Allgather) needs every rank idle and then
going at once, the same way every repetition. A barrier over MPI does not give that under
emulated loss of every packet: a barrier message lost on its way to one rank keeps it
asleep a TCP retransmission timeout (200 ms at least) while the others go, and whatever
the start is taken to be, that wait or the others' head start is in the sample. The ranks'
hosts are emulated on one machine: they share its clock and its file system. So rank 0
holds a Unix socket in a fresh directory (a file, reachable from every host's network
namespace, untouched by the emulated links) and every other rank keeps a connection to it.
`start`: each rank says it is ready, asleep until rank 0 has heard all, which answers with
an instant LEAD_S ahead on the shared clock (time.perf_counter); each rank sleeps until it.
`join`: asleep until every rank has come back (a barrier the same way).

`open` returns None where a rank cannot reach the socket (ranks on several machines): the
caller then falls back to a barrier over MPI."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import struct
import tempfile
import time
from typing import Any

# the start this long after rank 0 heard the last rank ready: its answer to 7 ranks and
# their wake-ups take about 0.1-0.5 ms on 2 cores
LEAD_S = 0.002
INSTANT = struct.Struct("d")


class StartGun:
    """Rank 0 holds a connection to every other rank (`peers`), the others one to rank 0."""

    def __init__(self, rank: int, peers: list[socket.socket]) -> None:
        self.rank, self.peers = rank, peers

    @classmethod
    def open(cls, comm: Any) -> StartGun | None:
        """Every rank's connection (collective; MPI carries the socket's path once)."""
        rank, size = comm.Get_rank(), comm.Get_size()
        where = listener = None
        if rank == 0:
            where = tempfile.mkdtemp(prefix="mcastlab-gun-")
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(os.path.join(where, "gun"))
            listener.listen(size)
        path = comm.bcast(where and os.path.join(where, "gun"), root=0)
        mine: list[socket.socket] = []
        if rank != 0:
            with contextlib.suppress(OSError):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(path)
                mine = [s]
        reached = comm.allreduce(int(rank == 0 or bool(mine)), op=_min())
        if rank == 0 and listener is not None:
            if reached:
                mine = [listener.accept()[0] for _ in range(size - 1)]
            listener.close()
            shutil.rmtree(str(where), ignore_errors=True)
        if not reached:
            for s in mine:
                s.close()
            return None
        return cls(rank, mine)

    def start(self) -> float:
        """Asleep until every rank is ready; the instant they all go (perf_counter's)."""
        if self.rank == 0:
            for s in self.peers:
                _take(s, 1)
            at = time.perf_counter() + LEAD_S
            for s in self.peers:
                s.sendall(INSTANT.pack(at))
            return at
        self.peers[0].sendall(b"r")
        return float(INSTANT.unpack(_take(self.peers[0], INSTANT.size))[0])

    def join(self) -> None:
        """Asleep until every rank has come back."""
        if self.rank == 0:
            for s in self.peers:
                _take(s, 1)
            for s in self.peers:
                s.sendall(b"k")
            return
        self.peers[0].sendall(b"d")
        _take(self.peers[0], 1)

    def close(self) -> None:
        for s in self.peers:
            s.close()


def sleep_until(at: float) -> None:
    """Asleep until perf_counter() reads `at` (at once where it is past)."""
    left = at - time.perf_counter()
    if left > 0:
        time.sleep(left)


def _take(s: socket.socket, n: int) -> bytes:
    got = b""
    while len(got) < n:
        part = s.recv(n - len(got))
        if not part:
            raise ConnectionError("start gun: a rank went away")
        got += part
    return got


def _min() -> Any:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    return MPI.MIN
