"""DYN-Tree's, DYN-Mesh's and DYN-Min's executor: the ranks are chained (DYN-Tree: in rank
order from the root; DYN-Mesh, DYN-Min: in the mesh's or BMIN's routing order, as OPT-Mesh and
OPT-Min chain them), the root owns the whole chain, and each rank that receives the message
also receives the far end of the part of the chain it now owns (it is at the other end),
splits that part under its own current
estimates (`trees.dyntree.chain_sends`, from what its own sends have cost) and forwards the
message and a sub-part to each child. So the tree adapts at every forwarding node, from
local information only, as in Nupairoj1998 section 6.4.5.

t_as is what this rank can see of a send: with send_order fifo (the default) the time from
its send of the message (the part's far end in front of the data) until the message has left
the host (collectives.outqueue), as the paper defines it; overlapped, the time the send took
to complete, which for an eager send is a copy into the socket buffer. Either way less the
time the rank waited for a core meanwhile (collectives.timing.core_wait_s): the paper's
node has a processor of its own, so its t_as holds the network's waits, not the emulation's."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from .. import held, outqueue, sent, waiting
from ..algorithms import DEFAULT_SEND_ORDER, Named, resolve
from ..contention.schedules import geometry, rank_nodes
from ..contention.trees import bmin_chain, mesh_chain
from ..timing import core_wait_s
from .dyntree import SendCost, StaticParams, chain_sends, estimates, from_measured

TAG_BASE = 0x4400  # + broadcast number mod TAG_SPAN: a header never matches a later one
TAG_SPAN = 4096
HEADER = 4
_COST: dict[tuple[Any, str], SendCost] = {}  # by communicator and algorithm
_SEQ: dict[Any, int] = {}
_PARENT: dict[Any, int | None] = {}


def last_parent(comm: Any) -> int | None:
    """The rank this rank got the message from in its last DYN-Tree broadcast on `comm`
    (None at the root, or before any)."""
    return _PARENT.get(comm.py2f())


def static_params(params: Mapping[str, Any], algorithm: str = "dyn-tree") -> StaticParams:
    """StaticParams from t_hs..t_rd (the testbed derives them from measured figures:
    collectives.trees.dyntree.from_measured), or from t_hold and t_end of the broadcast's size
    with t_software, how long a send's call held the sender (the same split at that size),
    or without it: holding is then all of t_hold, the network's share inside it (a fifo
    send's t_as runs until the message has left, the link's serialization included, as
    t_hold is measured), and receiving the rest of t_end (negative where t_end < t_hold)."""
    names = ("t_hs", "t_hd", "t_ns", "t_nd", "t_rs", "t_rd")
    if all(n in params for n in names):
        return StaticParams(*(float(params[n]) for n in names))
    if "t_hold" in params and "t_end" in params:
        hold, end = float(params["t_hold"]), float(params["t_end"])
        software = float(params.get("t_software", hold))
        return from_measured([0], [min(software, hold)], [hold], [end], 0)
    raise ValueError(f"{algorithm} needs t_hs, t_hd, t_ns, t_nd, t_rs, t_rd (or t_hold and "
                     "t_end)")


def chain(algorithm: Named, size: int, root: int, params: Mapping[str, Any]
          ) -> tuple[int, ...]:
    """The ranks in the order `algorithm` splits them: dyn-tree's from the root in rank
    order; dyn-mesh's in the mesh's routing order (mesh=(rows, cols) and nodes=, the node of
    every rank, as for opt-mesh; without mesh= a 1 x N line), dyn-min's in the BMIN's
    (bmin=(k, n) and nodes=, as for opt-min; without bmin= the smallest 2-ary BMIN holding
    the nodes: collectives.contention.schedules.geometry). ValueError for a layout that does
    not fit."""
    if not 0 <= root < size:
        raise ValueError(f"root must be a rank in 0..{size - 1}, got {root!r}")
    record = resolve("bcast", algorithm)  # a call's record: no look-up
    if not record.geometry:
        return tuple((root + i) % size for i in range(size))
    nodes = rank_nodes(size, params.get("nodes"))
    a, b = geometry(record, nodes, params)
    ordered = (bmin_chain if record.geometry == "bmin" else mesh_chain)(nodes, a, b)
    rank = {node: r for r, node in enumerate(nodes)}
    return tuple(rank[node] for node in ordered)


def forwards(order: Sequence[int], me: int, lo: int, hi: int, hold: float,
             end: float) -> list[tuple[int, int]]:
    """What the rank at chain position `me`, owning positions lo..hi, sends, in order:
    (the child's rank, the far end of the child's part: the child is at its other end)."""
    return [(order[to], phi if to == plo else plo)
            for to, plo, phi in chain_sends(me, lo, hi, hold, end)]


def bcast(buf: Any, root: int, comm: Any, params: StaticParams,
          send_order: str = DEFAULT_SEND_ORDER, order: Sequence[int] | None = None,
          algorithm: str = "dyn-tree") -> None:
    """`order`: the ranks' chain (`chain`; default dyn-tree's); `algorithm` keeps what
    sends cost apart per algorithm on one communicator. With send_order fifo a send to the
    next child starts once the previous message has left the host (collectives.outqueue),
    as in collectives.trees.run.execute, and t_as is measured until then (Nupairoj1998:
    "until the whole message leaves the sender"); overlapped: t_as is how long the send
    call took."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    k, rank = comm.Get_size(), comm.Get_rank()
    order = tuple(order) if order is not None else chain("dyn-tree", k, root, {})
    me = order.index(rank)
    key = comm.py2f()
    seq = _SEQ.get(key, 0)
    _SEQ[key] = seq + 1
    tag = TAG_BASE + seq % TAG_SPAN
    view = memoryview(buf).cast("B")
    n = len(view)
    # one message a child: the far end of the part of the chain it now owns (HEADER bytes), then
    # the message (a header sent apart cost a second message a hop: 1 KiB on 8 hosts took
    # 1.65 ms against OPT-Tree's 0.69, 2026-11-25)
    framed = bytearray(HEADER + n)
    if rank != root:
        # the parent is not known in advance: probe for a message from any source, then
        # receive it from its sender. A receive posted from any source lost messages here
        # (MPICH 5, ch4:ucx over TCP): on 5 ranks with plain mpi4py (MPIR_CVAR_NOLOCAL=1, a
        # root's MPI_Send to each of the others, each of them testing its MPI_Irecv from
        # MPI_ANY_SOURCE in a loop) 1 or 2 of the 4 messages never arrived in 4 runs of 6,
        # and connecting every pair first (waiting.connect_all) did not help; cancelled, the
        # receives were unmatched and no probe saw the messages, where probing for them
        # found every one (2026-12-06; first seen 2026-11-21 as a blocking MPI_Recv from
        # any source that missed a new peer's message). So a hop costs a relay a probe and
        # then a receive from the sender the probe found.
        # Asleep between probes (collectives.waiting.probe): with more ranks than cores a
        # bare polling loop kept the sender off the CPU (1 KiB on 8 hosts of 2 cores: 24 ms
        # against OPT-Tree's 1.2 ms), and a fixed nap between probes missed the message that
        # MPI had read off the socket but not yet matched, a whole nap per level (1 KiB on 8
        # hosts of a 4x4 mesh: 70 ms against OPT-Tree's 2.0, 2026-11-25)
        status = MPI.Status()
        waiting.probe(comm, MPI.ANY_SOURCE, tag, status)
        waiting.recv(comm, [framed, MPI.BYTE], status.Get_source(), tag)
        far = int.from_bytes(framed[:HEADER], "little")
        lo, hi = min(me, far), max(me, far)
        view[:] = framed[HEADER:]
        held.mark()
        _PARENT[key] = status.Get_source()
    else:
        lo, hi = 0, k - 1
        framed[HEADER:] = view
        _PARENT[key] = None
    cost = _COST.setdefault((key, algorithm), SendCost())
    fifo = send_order == "fifo"
    hold, end = estimates(params, n, cost.t_as, cost.n, pipelined=not fifo)
    for child, child_far in forwards(order, me, lo, hi, hold, end):
        t0, waited = time.perf_counter(), core_wait_s()
        framed[:HEADER] = child_far.to_bytes(HEADER, "little")
        sent.started()
        waiting.send(comm, [framed, MPI.BYTE], child, tag)
        if fifo:  # t_as until the message has left the host, and only then the next send
            outqueue.wait_sent()
            sent.left()
        # less the time this rank waited for a core: each of the paper's nodes has its own
        # processor, where the emulated hosts share the machine's 2 with the switches. A
        # send measured 1.3-14 ms, 1.2-13.9 of it waiting for a core, moved the root's
        # estimate across OPT-Tree's split on 8 ranks at zero load (1 KiB, 2026-12-06)
        cost.record(max(0.0, time.perf_counter() - t0 - (core_wait_s() - waited)), n)
    cost.close()
