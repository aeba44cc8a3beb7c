"""DYN-Tree's executor: the root owns every rank, and each rank that receives the message
also receives the end of the range of ranks it now owns, splits that range with OPT-Tree
under its own current estimates (`trees.dyntree.estimates`, from what its own sends have cost)
and forwards the message and a sub-range to each child. So the tree adapts at every
forwarding node, from local information only, as in Nupairoj1998 section 6.4.5.

t_as is what this rank can see of a send: with send_order fifo (the default) the time from
its send of the message (the range's end in front of the data) until the message has left
the host (collectives.outqueue), as the paper defines it; overlapped, the time the send took
to complete, which for an eager send is a copy into the socket buffer."""

from __future__ import annotations

import time
from typing import Any

from .. import held, outqueue, waiting
from ..algorithms import DEFAULT_SEND_ORDER
from .dyntree import SendCost, StaticParams, estimates, split

TAG_BASE = 0x4400  # + broadcast number mod TAG_SPAN: a header never matches a later one
TAG_SPAN = 4096
HEADER = 4
_COST: dict[Any, SendCost] = {}
_SEQ: dict[Any, int] = {}
_PARENT: dict[Any, int | None] = {}


def last_parent(comm: Any) -> int | None:
    """The rank this rank got the message from in its last DYN-Tree broadcast on `comm`
    (None at the root, or before any)."""
    return _PARENT.get(comm.py2f())


def static_params(params: dict[str, Any]) -> StaticParams:
    """StaticParams from t_hs..t_rd, or from t_hold and t_end of the broadcast's size: holding
    is t_hold, the network's share is inside it (a fifo send's t_as runs until the message
    has left, the link's serialization included, as t_hold is measured), and receiving is
    the rest of t_end, so the split adds up to t_end (negative where t_end < t_hold)."""
    names = ("t_hs", "t_hd", "t_ns", "t_nd", "t_rs", "t_rd")
    if all(n in params for n in names):
        return StaticParams(*(float(params[n]) for n in names))
    if "t_hold" in params and "t_end" in params:
        hold, end = float(params["t_hold"]), float(params["t_end"])
        return StaticParams(hold, 0.0, 0.0, 0.0, end - hold, 0.0)
    raise ValueError("dyn-tree needs t_hs, t_hd, t_ns, t_nd, t_rs, t_rd (or t_hold and t_end)")


def bcast(buf: Any, root: int, comm: Any, params: StaticParams,
          send_order: str = DEFAULT_SEND_ORDER) -> None:
    """With send_order fifo a send to the next child starts once the previous message has
    left the host (collectives.outqueue), as in collectives.trees.run.execute, and t_as is
    measured until then (Nupairoj1998: "until the whole message leaves the sender");
    overlapped: t_as is how long the send call took."""
    from mpi4py import MPI

    k, rank = comm.Get_size(), comm.Get_rank()
    key = comm.py2f()
    seq = _SEQ.get(key, 0)
    _SEQ[key] = seq + 1
    tag = TAG_BASE + seq % TAG_SPAN
    view = memoryview(buf).cast("B")
    n = len(view)
    vr = (rank - root) % k
    # one message a child: the end of the range of ranks it now owns (HEADER bytes), then
    # the message (a header sent apart cost a second message a hop: 1 KiB on 8 hosts took
    # 1.65 ms against OPT-Tree's 0.69, 2026-11-25)
    framed = bytearray(HEADER + n)
    if vr:
        # the parent is not known in advance. A blocking Recv from ANY_SOURCE never saw a
        # message from a rank this one had not talked to before (MPICH 5, ch4:ucx, TCP):
        # probing does. Asleep between probes (collectives.waiting.probe): with more ranks
        # than cores a bare polling loop kept the sender off the CPU (1 KiB on 8 hosts of 2
        # cores: 24 ms against OPT-Tree's 1.2 ms), and a fixed nap between probes missed
        # the message that MPI had read off the socket but not yet matched, a whole nap per
        # level (1 KiB on 8 hosts of a 4x4 mesh: 70 ms against OPT-Tree's 2.0, 2026-11-25)
        status = MPI.Status()
        waiting.probe(comm, MPI.ANY_SOURCE, tag, status)
        waiting.recv(comm, [framed, MPI.BYTE], status.Get_source(), tag)
        hi = int.from_bytes(framed[:HEADER], "little")
        view[:] = framed[HEADER:]
        held.mark()
        _PARENT[key] = status.Get_source()
    else:
        hi = k
        framed[HEADER:] = view
        _PARENT[key] = None
    cost = _COST.setdefault(key, SendCost())
    hold, end = estimates(params, n, cost.t_as, cost.n)
    fifo = send_order == "fifo"
    for child, child_hi in split(vr, hi, hold, end):
        t0 = time.perf_counter()
        framed[:HEADER] = child_hi.to_bytes(HEADER, "little")
        waiting.send(comm, [framed, MPI.BYTE], (child + root) % k, tag)
        if fifo:  # t_as until the message has left the host, and only then the next send
            outqueue.wait_sent()
        cost.record(time.perf_counter() - t0, n)
    cost.close()
