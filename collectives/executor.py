"""Broadcast, barrier, allgather and allgatherv for mpi4py programs: every algorithm of the
registry (collectives.algorithms) by its family's runner.

    from collectives import allgather, allgatherv, bcast
    bcast(buf, root=0, comm=MPI.COMM_WORLD, algorithm="opt-tree", t_hold=20e-6, t_end=55e-6)
    allgather(mine, everyones, comm=MPI.COMM_WORLD, algorithm="bruck")
    allgatherv(mine, everyones, counts=[3, 0, 5], comm=MPI.COMM_WORLD, algorithm="ring")
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

from . import held, sent, waiting
from .algorithms import (
    ACK_OPTIONS,
    DEFAULT_ALLGATHER,
    DEFAULT_BARRIER,
    DEFAULT_BCAST,
    DEFAULT_COMPLETION,
    DEFAULT_RELEASE,
    DEFAULT_SEND_ORDER,
    Algorithm,
    Named,
    check_ack_options,
    check_completion,
    check_release,
    check_send_order,
    resolve,
)
from .slots import Slots, equal, of_counts, uniform

# The public names (collectives.PUBLIC): what other packages may import from here
__all__ = ["WAIT_MODES", "allgather", "allgather_options", "allgather_takes", "allgatherv",
           "barrier", "barrier_options", "bcast", "bcast_options", "block_size",
           "check", "check_allgather", "check_barrier", "check_bcast", "tree_barrier"]

# Each family's runner below imports its family's modules when first called, not here: a
# rank imports only what its algorithm needs. Every family imported here made each rank's
# start-up ~75 ms longer (bcast_bench: 117 against 41 ms, python -X importtime, no bytecode
# cache, as the ranks run here) and a 16-host job on 2 cores ~1.1 s longer (3.5 against
# 2.4 s; 2026-12-06). The checks (check_bcast, barrier_options) import what they check so.

WAIT_MODES = waiting.MODES  # how ranks wait for messages (MCASTLAB_WAIT; collectives.waiting)

# An algorithm is given by name (looked up here, once a call) or as its record (a typed call's,
# collectives.call: looked up where the call was made, never again): algorithms.resolve.


def bcast(buf: Any, root: int = 0, comm: Any = None, algorithm: Named = DEFAULT_BCAST,
          **params: Any) -> None:
    """Broadcast `buf` (any writable buffer) from `root` over `comm` with `algorithm`;
    parameters as in `collectives.trees.schedules.build` (opt-mesh, u-mesh, u-torus, opt-min: also
    where the ranks sit, e.g. mesh=(4, 4), nodes=(...)); for `dyn-tree` t_hs, t_hd, t_ns, t_nd,
    t_rs, t_rd (or t_hold and t_end; `collectives.trees.dyn_bcast`), for `dyn-mesh` also
    mesh= and nodes= as for opt-mesh; for the multicast algorithms
    (scout-linear, scout-binary, two-stage, nack) as in `collectives.ipmc.message.Options`,
    for the scouts also completion= (collectives.algorithms.COMPLETIONS);
    for `range-tree` (hardware range multicasts) nodes=(...) and fattree=(k, N) as in
    `collectives.range_trees.bcast.RangeOptions`.
    Without an algorithm, MPICH's own (collectives.algorithms.DEFAULTS).
    Collective: every rank calls it with the same algorithm, parameters and buffer size."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = comm if comm is not None else MPI.COMM_WORLD
    alg = resolve("bcast", algorithm)
    held.start(comm.Get_rank() == root)
    sent.start()
    RUNNERS[alg.family](buf, root, comm, alg, params)


def _mpi_bcast(buf: Any, root: int, comm: Any, _algorithm: Algorithm, _params: dict) -> None:
    """MPI_Bcast; waiting as every other algorithm's ranks wait."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if waiting.MODE == "spin":
        comm.Bcast([buf, MPI.BYTE], root=root)
    else:
        waiting.wait([comm.Ibcast([buf, MPI.BYTE], root=root)])


def _scheduled(buf: Any, root: int, comm: Any, algorithm: Algorithm, params: dict) -> None:
    # imported on first use (why: top of module)
    from .trees.run import execute, schedule_for

    nbytes = memoryview(buf).nbytes
    execute(schedule_for(algorithm, comm.Get_size(), root, nbytes, **params), buf, comm)


def _dynamic(buf: Any, root: int, comm: Any, algorithm: Algorithm, params: dict) -> None:
    # imported on first use (why: top of module)
    from .trees import dyn_bcast

    dyn_bcast.bcast(buf, root, comm, dyn_bcast.static_params(params, algorithm.name),
                    check_send_order(params.get("send_order", DEFAULT_SEND_ORDER)),
                    dyn_bcast.chain(algorithm, comm.Get_size(), root, params), algorithm.name)


def _multicast(buf: Any, root: int, comm: Any, algorithm: Algorithm, params: dict) -> None:
    # imported on first use (why: top of module)
    from .ipmc import bcast as mcast_bcast
    from .ipmc.channel import channel_for

    mcast_bcast.bcast(channel_for(comm, timeout=params.get("timeout")), buf, root,
                      algorithm.name, **params)


def _range(buf: Any, root: int, comm: Any, _algorithm: Algorithm, params: dict) -> None:
    # imported on first use (why: top of module)
    from .range_trees import bcast as range_bcast
    from .range_trees.channel import range_channel_for

    range_bcast.bcast(range_channel_for(comm), buf, root, **params)


# family (collectives.algorithms.FAMILIES) -> how its broadcasts run
RUNNERS: dict[str, Callable[[Any, int, Any, Algorithm, dict], None]] = {
    "mpi": _mpi_bcast, "tree": _scheduled, "contention": _scheduled, "dynamic": _dynamic,
    "multicast": _multicast, "range": _range,
}


def barrier(comm: Any = None, algorithm: Named = DEFAULT_BARRIER, **params: Any) -> None:
    """`mpich` (MPI_Barrier), `tree` (zero-byte messages up Chen2000's binary tree to rank 0
    and back down: the software tree), `pairwise` (MPICH 1's barrier, the one Chen2000
    counts against: collectives.pairwise), `mcast` (Chen2000's multicast barrier; release=
    "both", the default, also releases point to point, safe against a lost release;
    "multicast" is Chen2000's, collectives.algorithms.RELEASES) or `range-tree` (the same
    arrivals, released down a tree of hardware range multicasts:
    `collectives.range_trees.bcast`, with nodes= and fattree=); `timeout` (s) bounds the
    multicast barriers' waits."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = comm if comm is not None else MPI.COMM_WORLD
    alg = resolve("barrier", algorithm)
    check_barrier(alg, params)
    BARRIER_RUNNERS[alg.family](comm, alg.name, params)


def _mpi_barrier(comm: Any, _algorithm: str, _params: dict) -> None:
    if waiting.MODE == "spin":
        comm.Barrier()
    else:
        waiting.wait([comm.Ibarrier()])


def _mcast_barrier(comm: Any, _algorithm: str, params: dict) -> None:
    # imported on first use (why: top of module)
    from .ipmc.barrier import barrier as mcast_barrier
    from .ipmc.channel import channel_for

    mcast_barrier(channel_for(comm, timeout=params.get("timeout")), **params)


def _range_barrier(comm: Any, _algorithm: str, params: dict) -> None:
    # imported on first use (why: top of module)
    from .range_trees.bcast import barrier as range_barrier
    from .range_trees.channel import range_channel_for

    range_barrier(range_channel_for(comm), **params)


BARRIER_TAG = 0x4D44


def tree_barrier(comm: Any) -> None:
    """Zero-byte messages up the binary tree to rank 0, then back down (the software tree
    the range-tree barrier is compared with: the same arrivals, a point-to-point release)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    # imported on first use (why: top of module)
    from .ipmc.plans import parents, scout_binary_tree

    rank, tree = comm.Get_rank(), scout_binary_tree(comm.Get_size())
    kids, parent = tree.get(rank, []), parents(tree).get(rank)
    empty = bytearray(1)
    waiting.wait([comm.Irecv([empty, 0, MPI.BYTE], source=k, tag=BARRIER_TAG) for k in kids])
    if parent is not None:
        waiting.wait([comm.Isend([empty, 0, MPI.BYTE], dest=parent, tag=BARRIER_TAG)])
        waiting.wait([comm.Irecv([empty, 0, MPI.BYTE], source=parent, tag=BARRIER_TAG)])
    waiting.wait([comm.Isend([empty, 0, MPI.BYTE], dest=k, tag=BARRIER_TAG) for k in kids])


def _run_tree_barrier(comm: Any, _algorithm: str, _params: dict) -> None:
    """Chen2000's software tree barrier (the family "tree")."""
    tree_barrier(comm)


def _run_pairwise(comm: Any, _algorithm: str, _params: dict) -> None:
    """MPICH 1's pairwise barrier (the family "exchange": pairwise exchanges)."""
    # imported on first use (why: top of module)
    from .pairwise import barrier as pairwise_barrier

    pairwise_barrier(comm)


# family (collectives.algorithms.FAMILIES) -> how its barriers run
BARRIER_RUNNERS: dict[str, Callable[[Any, str, dict], None]] = {
    "mpi": _mpi_barrier, "tree": _run_tree_barrier, "exchange": _run_pairwise,
    "multicast": _mcast_barrier, "range": _range_barrier,
}


def allgather(sendbuf: Any, recvbuf: Any, comm: Any = None,
              algorithm: Named = DEFAULT_ALLGATHER, **params: Any) -> None:
    """Every rank's block into every rank's `recvbuf` over `comm` with `algorithm` (mpich:
    MPI_Allgather; ring, recursive-doubling, bruck: collectives.exchanges). `sendbuf` is
    this rank's block (any buffer, m bytes; None: it is already in place in `recvbuf`, as
    MPI_IN_PLACE), `recvbuf` is writable and holds p blocks of m bytes, rank i's at i x m.
    Every rank's block must be the same size: a rank whose receive buffer is not p times its
    block raises ValueError before any message; blocks that differ between ranks, a
    ValueError where an exchange receives one (collectives.exchanges.run), MPI's error for
    mpich. The multicast ones take fragment, rate, timeout and rcvbuf; the others no options.
    Without an algorithm, MPICH's own (collectives.algorithms.DEFAULTS).
    Collective: every rank calls it with the same algorithm and block size."""
    comm = _world(comm)
    alg = resolve("allgather", algorithm)
    check_allgather(alg, params)
    recv = memoryview(recvbuf).cast("B")
    send = None if sendbuf is None else memoryview(sendbuf).cast("B")
    block = block_size(len(recv), comm.Get_size(), None if send is None else len(send))
    _gather_slots(send, recv, equal(comm.Get_size(), block), comm, alg, params)


def allgatherv(sendbuf: Any, recvbuf: Any, counts: Sequence[int],
               displs: Sequence[int] | None = None, comm: Any = None,
               algorithm: Named = DEFAULT_ALLGATHER, **params: Any) -> None:
    """MPI_Allgatherv in bytes with `algorithm`: rank i's block, `counts[i]` bytes, into
    `recvbuf` at `displs[i]` (None: the blocks end to end in rank order) on every rank.
    `sendbuf` holds this rank's counts[rank] bytes (None: already in its slot). Every
    algorithm of the registry takes blocks of different sizes (collectives.slots). A
    layout MPI forbids (a count or displacement below zero, a slot past the buffer, two
    slots over the same bytes) or a send buffer that is not this rank's count raises
    ValueError before any message; counts that differ between ranks are caught where an
    exchange receives (MPI's error for mpich). Collective: every rank passes the same
    algorithm, counts and displacements."""
    comm = _world(comm)
    alg = resolve("allgather", algorithm)
    check_allgather(alg, params)
    recv = memoryview(recvbuf).cast("B")
    if recv.readonly:
        raise ValueError("allgatherv: the receive buffer must be writable")
    slots = of_counts(counts, displs, comm.Get_size(), len(recv))
    send = None if sendbuf is None else memoryview(sendbuf).cast("B")
    mine = slots[comm.Get_rank()][1]
    if send is not None and len(send) != mine:
        raise ValueError(f"allgatherv: this rank sends {len(send)} bytes, its count is {mine}")
    _gather_slots(send, recv, slots, comm, alg, params)


def _world(comm: Any) -> Any:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    return comm if comm is not None else MPI.COMM_WORLD


def _gather_slots(send: memoryview | None, recv: memoryview, slots: Slots, comm: Any,
                  alg: Algorithm, params: dict[str, Any]) -> None:
    """This rank's block into its slot, then the algorithm's family runs."""
    if send is not None:
        offset, length = slots[comm.Get_rank()]
        recv[offset:offset + length] = send
    ALLGATHER_RUNNERS[alg.family](recv, slots, comm, alg, params)


def block_size(recv_bytes: int, size: int, send_bytes: int | None) -> int:
    """The block every rank contributes, or ValueError: `recv_bytes` must be `size` equal
    blocks of `send_bytes` (None: in place, any `size` equal blocks)."""
    if send_bytes is None:
        if recv_bytes % size:
            raise ValueError(f"allgather: the receive buffer's {recv_bytes} bytes are not "
                             f"{size} equal blocks (every rank's block must be the same size)")
        return recv_bytes // size
    if recv_bytes != size * send_bytes:
        raise ValueError(f"allgather: the receive buffer holds {recv_bytes} bytes, not {size} "
                         f"blocks of the {send_bytes} sent (every rank's block must be the "
                         "same size)")
    return send_bytes


def _mpi_allgather(recv: memoryview, slots: Slots, comm: Any, _algorithm: Algorithm,
                   _params: dict) -> None:
    """MPI_Allgather (equal blocks) or MPI_Allgatherv in place (this rank's block is
    there); waiting as the others wait."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if uniform(slots) is not None:
        spin, start, spec = comm.Allgather, comm.Iallgather, [recv, MPI.BYTE]
    else:
        spin, start = comm.Allgatherv, comm.Iallgatherv
        spec = [recv, ([n for _o, n in slots], [o for o, _n in slots]), MPI.BYTE]
    if waiting.MODE == "spin":
        spin(MPI.IN_PLACE, spec)
    else:
        waiting.wait([start(MPI.IN_PLACE, spec)])


def _exchange(recv: memoryview, slots: Slots, comm: Any, algorithm: Algorithm,
              _params: dict) -> None:
    # imported on first use (why: top of module)
    from .exchanges import run as exchange_run
    from .exchanges.schedules import build as exchange_schedule

    exchange_run.execute(exchange_schedule(algorithm, comm.Get_size()), recv, comm, slots)


def _mcast_allgather(recv: memoryview, slots: Slots, comm: Any, algorithm: Algorithm,
                     params: dict) -> None:
    """The multicast allgathers (collectives.ipmc.allgather) over the communicator's channel;
    this rank's block is already in its slot."""
    # imported on first use (why: top of module)
    from .ipmc.allgather import allgather_slots as mcast_allgather_slots
    from .ipmc.channel import channel_for

    mcast_allgather_slots(channel_for(comm, timeout=params.get("timeout")),
                          [recv[o:o + n] for o, n in slots], algorithm, **params)


# family (collectives.algorithms.FAMILIES) -> how its allgathers run
ALLGATHER_RUNNERS: dict[str, Callable[[memoryview, Slots, Any, Algorithm, dict], None]] = {
    "mpi": _mpi_allgather, "exchange": _exchange, "multicast": _mcast_allgather,
}
# ipmc.message.Options' that apply
MCAST_ALLGATHER_OPTIONS = ("fragment", "rate", "timeout", "rcvbuf")


def allgather_takes(allgather: Algorithm) -> tuple[str, ...]:
    """The options an allgather takes: the multicast ones fragment, rate, timeout and rcvbuf
    (ipmc.message.Options'), the others none."""
    return MCAST_ALLGATHER_OPTIONS if allgather.family == "multicast" else ()


def check_allgather(allgather: Named, options: dict[str, Any]) -> None:
    """ValueError, before any message, for an option `allgather` does not take."""
    allgather = resolve("allgather", allgather)
    takes = allgather_takes(allgather)
    extra = sorted(set(options) - set(takes))
    if extra:
        what = "only " + ", ".join(takes) if takes else "no options"
        raise ValueError(f"{allgather.name} takes {what}, got {', '.join(extra)}")


def allgather_options(allgather: Named, options: dict[str, Any]) -> dict[str, Any]:
    """The options of `options` the allgather takes (where one set serves the broadcast,
    the barrier and the allgather: the drop-in communicator)."""
    takes = allgather_takes(resolve("allgather", allgather))
    return {k: v for k, v in options.items() if k in takes}


# ---- options: which a barrier takes, and a check before any message ---------------------


def barrier_options(barrier: Named, options: dict[str, Any]) -> dict[str, Any]:
    """The options a barrier takes: the multicast barrier its timeout and release, the
    range-tree barrier its layout (nodes=, fattree=, ...); the rest are the broadcast's."""
    family = resolve("barrier", barrier).family
    if family == "multicast":
        takes = {"timeout", "release"}
    elif family == "range":
        # imported on first use (why: top of module)
        from .range_trees.bcast import RangeOptions

        takes = {f.name for f in dataclasses.fields(RangeOptions)}
    else:
        takes = set()
    return {k: v for k, v in options.items() if k in takes}


@functools.cache
def bcast_takes(bcast: Algorithm) -> frozenset[str]:
    """The names of the options broadcast `bcast` takes, as its runner reads them and
    `mcastlab algorithms` lists them (collectives.catalog.taken: a unit test holds the two
    equal; the catalog describes, this stays light for a rank's start-up)."""
    names: set[str] = {"send_order"} if bcast.send_order else set()
    if bcast.scheduled:
        # imported on first use (why: top of module)
        from .trees.schedules import TREES

        if bcast.name in TREES or bcast.name == "fragmented-chain":
            names.add("fragment")
        names |= {"scatter-allgather": {"allgather"},
                  "block-binomial": {"blocksize"}}.get(bcast.name, set())
    if bcast.timing:
        names |= {"t_hold", "t_end"}
    if bcast.family == "dynamic":
        # imported on first use (why: top of module)
        from .trees.dyntree import StaticParams

        names |= {f.name for f in dataclasses.fields(StaticParams)}
    if bcast.geometry in ("mesh", "torus", "bmin"):
        names |= {bcast.geometry, "nodes"}
    if bcast.family == "multicast":
        # imported on first use (why: top of module)
        from .ipmc.message import Options

        names |= {f.name for f in dataclasses.fields(Options)} - (
            set() if bcast.name == "two-stage" else {"crossover_nodes", "crossover_size"}) - (
            set() if bcast.reports else set(ACK_OPTIONS))
        names |= {"completion"} if bcast.completion else set()
    if bcast.family == "range":
        # imported on first use (why: top of module)
        from .range_trees.bcast import RangeOptions

        names |= {f.name for f in dataclasses.fields(RangeOptions)}
    return frozenset(names)


def bcast_options(bcast: Named, options: dict[str, Any]) -> dict[str, Any]:
    """The options of `options` the broadcast takes (bcast_takes), where one set serves the
    broadcast, the barrier and the allgather (the drop-in communicator): a barrier's or an
    allgather's options never reach the broadcast."""
    takes = bcast_takes(resolve("bcast", bcast))
    return {k: v for k, v in options.items() if k in takes}


def check_barrier(barrier: Named, options: dict[str, Any]) -> None:
    """ValueError, before any message, for a release (RELEASES) that is not one or is given
    to a barrier other than the multicast one."""
    barrier = resolve("barrier", barrier)
    if barrier.release:
        check_release(options.get("release", DEFAULT_RELEASE))
    elif "release" in options:
        raise ValueError(f"{barrier.name}: release is an option of the multicast barrier "
                         "(mcast) only")


def check(bcast: Named, barrier: Named, size: int, options: dict[str, Any],
          measure: bool = False, allgather: Named = DEFAULT_ALLGATHER
          ) -> tuple[Algorithm, Algorithm, Algorithm]:
    """ValueError, on every rank alike and before any message, for an unknown algorithm
    (the allgather's too) or options the broadcast or the barrier cannot take (a missing
    t_hold, a layout that does not fit, a release that is not one). `measure`: t_hold and
    t_end, where none of the timing parameters is given, will be measured on first use (the
    drop-in communicator: collectives.measured), so only the rest is checked. The three
    records, (broadcast, barrier, allgather), each looked up once here."""
    records = (resolve("bcast", bcast), resolve("barrier", barrier),
               resolve("allgather", allgather))
    check_barrier(records[1], options)
    check_allgather(records[2], allgather_options(records[2], options))
    given = bcast_options(records[0], options)
    extra = set(options) - set(given) - set(barrier_options(records[1], options)) \
        - set(allgather_options(records[2], options))
    if measure:
        # imported on first use (why: top of module)
        from .measured import checkable

        given = checkable(records[0], given)
    # each option goes to the collectives that take it; one that none takes is refused in
    # the broadcast's own words where it has some, else as none's
    check_bcast(records[0], size, {**given, **{k: options[k] for k in extra}})
    if extra:
        raise ValueError(f"{', '.join(sorted(extra))}: an option of none of "
                         f"{', '.join(r.name for r in records[:2])} and {records[2].name} "
                         "(mcastlab algorithms NAME)")
    return records


def check_bcast(algorithm: Named, size: int, options: dict[str, Any]) -> None:
    """ValueError for options broadcast `algorithm` on `size` ranks cannot take."""
    alg = resolve("bcast", algorithm)
    bcast, family = alg.name, alg.family
    check_ack_options(alg, options.get("completion"), options)
    try:
        if alg.scheduled:
            # imported on first use (why: top of module)
            from .trees.run import schedule_for

            schedule_for(alg, size, 0, 0, **options)
        elif family == "dynamic":
            # imported on first use (why: top of module)
            from .trees.dyn_bcast import chain, static_params

            static_params(options, bcast)
            chain(alg, size, 0, options)
            check_send_order(options.get("send_order", DEFAULT_SEND_ORDER))
        elif family == "multicast":
            # imported on first use (why: top of module)
            from .ipmc.message import Options

            rest = dict(options)
            if alg.completion:
                check_completion(rest.pop("completion", DEFAULT_COMPLETION))
            elif "completion" in rest:
                raise ValueError(f"{bcast}: completion is an option of the scout broadcasts "
                                 "only")
            Options(**{"fragment": 1, **rest})
        elif family == "range":
            # imported on first use (why: top of module)
            from .range_trees.bcast import RangeOptions

            RangeOptions(**options)
    except TypeError as e:  # an option the algorithm does not take
        raise ValueError(f"{bcast}: {e}") from None
