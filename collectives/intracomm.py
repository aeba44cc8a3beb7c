"""A drop-in communicator: ``collectives.Intracomm(comm, bcast="nack", barrier="mcast",
allgather="mcast-concurrent", **options)`` is an ``mpi4py.MPI.Intracomm`` (the same handle as
`comm`, no copy) whose ``Bcast``, ``bcast``, ``Barrier``, ``barrier``, ``Allgather``,
``Allgatherv`` and ``allgather`` run algorithms of the registry (collectives.algorithms) with
`options`: each algorithm is given those it takes (as ``collectives.bcast``, ``barrier`` and
``allgather`` take them: executor.bcast_options, barrier_options, allgather_options).
Unnamed, a collective is MPICH's own, as everywhere (collectives.algorithms.DEFAULTS); the
names are looked up once, when the communicator is made. Everything else is mpi4py's.
``Dup``, ``Clone``, ``Idup``, ``Split``, ``Split_type``, ``Create`` and ``Create_group``
results keep the choice (``nodes=`` follows the ranks into the new group).

Why it is built as it is:

- mpi4py's ``__cinit__`` takes the communicator alone, so ``__new__`` drops the rest.
- The choice belongs to the Python object, so two wrappers of one communicator keep their
  own (side by side in one program). ``Dup`` and its kin build the subclass without calling
  ``__init__``: they are wrapped to hand the choice on; ``Split`` and ``Create`` return plain
  communicators, wrapped here. The handle also carries the latest choice as an MPI attribute
  (copied on duplication), for objects mpi4py makes from a handle (``fromhandle``).
- The algorithms run on a private duplicate: their tags never match the caller's receives,
  and their own set-up (the multicast channel calls ``comm.bcast``) does not come back here.
- Messages become bytes in collectives.buffers; a pickled object is its length, then its bytes.
- The allgather is MPICH's own unless one is chosen (``allgather="mpich"``, the default, calls
  mpi4py's Allgather, Allgatherv and allgather on the caller's communicator as before the
  drop-in). A chosen one gathers the blocks as bytes (collectives.buffers: the receive
  buffer's bytes split in p equal blocks, or an Allgatherv's counts at its displacements,
  as mpi4py reads them); an object allgather gathers every rank's pickle length first, then
  the pickles as an allgatherv, both through the chosen algorithm (mpi4py's own object
  allgather would call MPI_Allgatherv in C, past this class).
- An algorithm that takes the model's t_hold and t_end, given none, measures them on first
  use (collectives.measured: a few hold rounds and ping-pongs at grid sizes around the
  message, on the private duplicate, rank 0's figures broadcast so that every rank builds
  the same tree). They are kept per communicator (an MPI attribute that a Dup copies: the
  same ranks) and listed by ``measured`` and in ``MEASURED``.
"""

from __future__ import annotations

import operator
from collections import Counter
from typing import Any, cast

from mpi4py import MPI

from . import executor
from .algorithms import (
    DEFAULT_ALLGATHER,
    DEFAULT_BARRIER,
    DEFAULT_BCAST,
    NATIVE,
    Algorithm,
    Named,
)
from .buffers import message, vector
from .measured import Cache, measure, needs, send_order
from .slots import of_counts

# (bcast, barrier, options, allgather), the algorithms as their records (looked up once, when
# the communicator is made): the latest. copy_fn=True: a Dup copies the value as
# it is, which mpi4py takes though its stub lists only a function or None.
_CHOICE = MPI.Comm.Create_keyval(copy_fn=True)  # type: ignore[arg-type]
Choice = tuple[Algorithm, Algorithm, dict[str, Any], Algorithm]


def _free_private(_comm: Any, _key: int, private: Any) -> None:
    if not MPI.Is_finalized():
        private.Free()


_PRIVATE = MPI.Comm.Create_keyval(delete_fn=_free_private)  # not copied: a Dup makes its own


def _copy_cache(_comm: Any, _key: int, cache: Cache) -> Cache:
    return cache.copy()


# t_hold and t_end measured on first use (collectives.measured.Cache): a Dup, the same ranks
# on the same hosts, starts with a copy of what its original had measured
_MEASURED = MPI.Comm.Create_keyval(copy_fn=_copy_cache)

# what this process ran through the algorithms: (collective, algorithm) -> calls, and bytes
CALLS: Counter[tuple[str, str]] = Counter()
BYTES: Counter[str] = Counter()
# what it measured on first use, in order (collectives.measured.Measured.record)
MEASURED: list[dict[str, Any]] = []


def _handing_on(dup: Any) -> Any:
    """mpi4py's `dup` (Dup, Clone, Idup, ...), its new communicator given this one's choice."""
    def method(self: Intracomm, *args: Any, **kwargs: Any) -> Any:
        out = dup(self, *args, **kwargs)
        (out[0] if isinstance(out, tuple) else out)._choice = self._chosen()
        return out

    method.__name__, method.__doc__ = dup.__name__, dup.__doc__
    return method


class Intracomm(MPI.Intracomm):
    """`comm` with its broadcasts, barriers and allgathers run by the registry's
    algorithms."""

    def __new__(cls, comm: Any = None, *_args: Any, **_options: Any) -> Intracomm:
        return super().__new__(cls, comm)

    def __init__(self, comm: Any = None, bcast: Named = DEFAULT_BCAST,
                 barrier: Named = DEFAULT_BARRIER,
                 allgather: Named = DEFAULT_ALLGATHER, **options: Any) -> None:
        if self == MPI.COMM_NULL:  # Intracomm(), as mpi4py's: a null to be filled in
            return
        bcast_, barrier_, allgather_ = executor.check(bcast, barrier, self.Get_size(), options,
                                                      measure=True, allgather=allgather)
        self._choice: Choice = (bcast_, barrier_, dict(options), allgather_)
        self.Set_attr(_CHOICE, self._choice)

    def _chosen(self) -> Choice:
        # the attribute holds what Set_attr was given: a Choice
        return cast(Choice, self.__dict__.get("_choice") or self.Get_attr(_CHOICE))

    @property
    def algorithms(self) -> tuple[str, str, dict[str, Any], str]:
        """(broadcast, barrier, options, allgather) this communicator runs, by name."""
        bcast, barrier, options, allgather = self._chosen()
        return bcast.name, barrier.name, dict(options), allgather.name

    @property
    def measured(self) -> list[dict[str, Any]]:
        """What this communicator measured on first use of an algorithm that takes t_hold
        and t_end given none (collectives.measured): per message size of the grid and send
        order, t_hold_s, t_end_s, the ranks, and how long measuring took (took_s); the same
        on every rank. Empty before any such broadcast."""
        cache = self._cache()
        return cache.records() if cache is not None else []

    Dup = _handing_on(MPI.Intracomm.Dup)
    Clone = _handing_on(MPI.Intracomm.Clone)
    Dup_with_info = _handing_on(MPI.Intracomm.Dup_with_info)
    Idup = _handing_on(MPI.Intracomm.Idup)
    Idup_with_info = _handing_on(MPI.Intracomm.Idup_with_info)

    # ---- the collectives --------------------------------------------------------------------
    def Bcast(self, buf: Any, root: int = 0) -> None:  # noqa: N802 (mpi4py's name)
        root = self._root(root)
        msg = message(buf, sending=self.Get_rank() == root)
        try:
            self._bytes(msg.view, root)
        except BaseException:
            msg.abandon()
            raise
        msg.finish()

    def bcast(self, obj: Any, root: int = 0) -> Any:
        root = self._root(root)
        mine = self.Get_rank() == root
        data = bytearray(MPI.pickle.dumps(obj)) if mine else bytearray()
        length = bytearray(len(data).to_bytes(8, "little"))
        self._bytes(memoryview(length), root)
        if not mine:
            data = bytearray(int.from_bytes(length, "little"))
        self._bytes(memoryview(data), root)
        return MPI.pickle.loads(data)

    def Barrier(self) -> None:  # noqa: N802
        if self.Get_size() > 1:
            _bcast, barrier, options, _allgather = self._chosen()
            CALLS["barrier", barrier.name] += 1
            executor.barrier(self._private(), barrier,
                             **executor.barrier_options(barrier, options))

    def barrier(self) -> None:
        self.Barrier()

    def Allgather(self, sendbuf: Any, recvbuf: Any) -> None:  # noqa: N802
        allgather = self._chosen()[3]
        if allgather.name == NATIVE:  # MPICH's, on this communicator: as without the drop-in
            CALLS["allgather", NATIVE] += 1
            MPI.Intracomm.Allgather(self, sendbuf, recvbuf)
            return
        into = message(recvbuf, sending=False)
        try:
            # None or IN_PLACE: this rank's block is in place (mpi4py takes None so)
            own = None if sendbuf is None or sendbuf is MPI.IN_PLACE else \
                message(sendbuf, sending=True).view
            self._gather(own, into.view)
        except BaseException:
            into.abandon()
            raise
        into.finish()

    def Allgatherv(self, sendbuf: Any, recvbuf: Any) -> None:  # noqa: N802
        _bcast, _barrier, options, allgather = self._chosen()
        if allgather.name == NATIVE:
            CALLS["allgatherv", NATIVE] += 1
            MPI.Intracomm.Allgatherv(self, sendbuf, recvbuf)
            return
        into = vector(recvbuf, self.Get_size())
        try:
            own = None if sendbuf is None or sendbuf is MPI.IN_PLACE else \
                message(sendbuf, sending=True).view
            CALLS["allgatherv", allgather.name] += 1
            executor.allgatherv(own, into.view, [n for _o, n in into.slots],
                                [o for o, _n in into.slots], self._private(), allgather,
                                **executor.allgather_options(allgather, options))
        except BaseException:
            into.abandon()
            raise
        into.finish()

    def allgather(self, sendobj: Any) -> list[Any]:
        _bcast, _barrier, options, allgather = self._chosen()
        if allgather.name == NATIVE:
            CALLS["allgather", NATIVE] += 1
            return MPI.Intracomm.allgather(self, sendobj)
        size = self.Get_size()
        data = MPI.pickle.dumps(sendobj)
        lengths = bytearray(8 * size)
        self._gather(memoryview(len(data).to_bytes(8, "little")), memoryview(lengths))
        sizes = [int.from_bytes(lengths[8 * i:8 * i + 8], "little") for i in range(size)]
        pickles = bytearray(sum(sizes))
        CALLS["allgatherv", allgather.name] += 1
        executor.allgatherv(data, pickles, sizes, None, self._private(), allgather,
                            **executor.allgather_options(allgather, options))
        return [MPI.pickle.loads(pickles[at:at + n])
                for at, n in of_counts(sizes, None, size, len(pickles))]

    def _gather(self, own: memoryview | None, into: memoryview) -> None:
        """The chosen allgather of bytes, on the private duplicate."""
        _bcast, _barrier, options, allgather = self._chosen()
        CALLS["allgather", allgather.name] += 1
        executor.allgather(own, into, self._private(), allgather,
                           **executor.allgather_options(allgather, options))

    def _root(self, root: Any) -> int:
        """`root` as an int (any integer, numpy's too); one outside the communicator is
        refused on every rank before any message (as MPI_Bcast's MPI_ERR_ROOT), so no rank
        waits for one that raised."""
        try:
            rank = operator.index(root)
        except TypeError:
            raise MPI.Exception(MPI.ERR_ROOT) from None
        if not 0 <= rank < self.Get_size():
            raise MPI.Exception(MPI.ERR_ROOT)
        return rank

    def _bytes(self, view: memoryview, root: int) -> None:
        if self.Get_size() > 1:
            bcast, _barrier, options, _allgather = self._chosen()
            CALLS["bcast", bcast.name] += 1
            BYTES[bcast.name] += len(view)
            given = executor.bcast_options(bcast, options)
            if needs(bcast, given):
                given = {**given, **self._timing(len(view), send_order(given), bcast.name)}
            executor.bcast(view, root, self._private(), bcast, **given)

    def _timing(self, nbytes: int, order: str, bcast: str) -> dict[str, float]:
        """What `bcast` is given for an `nbytes` broadcast (t_hold, t_end; t_hold at the
        count of sends its tree settles at on this communicator), measured first where they
        are not yet (collective: every rank sees the same cache, so all measure alike)."""
        cache = self._cache()
        if cache is None:
            cache = Cache()
            self.Set_attr(_MEASURED, cache)
        for size in cache.missing(nbytes, order):
            got = measure(self._private(), size, order)
            cache.add(got)
            MEASURED.append(got.record())
        return cache.params(nbytes, order, bcast, self.Get_size())

    def _cache(self) -> Cache | None:
        # the attribute holds what Set_attr was given: a Cache
        return cast("Cache | None", self.Get_attr(_MEASURED))

    def _private(self) -> Any:
        private = self.Get_attr(_PRIVATE)
        if private is None:  # collective: every rank is in the same first collective
            private = MPI.Intracomm(self).Dup()  # plain: its collectives are MPI's
            self.Set_attr(_PRIVATE, private)
        return private

    # ---- new communicators keep the choice ------------------------------------------------
    def Split(self, color: int = 0, key: int = 0) -> Any:  # noqa: N802
        return self._keep(MPI.Intracomm.Split(self, color, key))

    def Split_type(self, split_type: int, key: int = 0, info: Any = MPI.INFO_NULL) -> Any:  # noqa: N802
        return self._keep(MPI.Intracomm.Split_type(self, split_type, key, info))

    def Create(self, group: Any) -> Any:  # noqa: N802
        return self._keep(MPI.Intracomm.Create(self, group))

    def Create_group(self, group: Any, tag: int = 0) -> Any:  # noqa: N802
        return self._keep(MPI.Intracomm.Create_group(self, group, tag))

    def _keep(self, new: Any) -> Any:
        if new == MPI.COMM_NULL:
            return new
        bcast, barrier, options, allgather = self._chosen()
        if options.get("nodes") is not None:
            old = new.Get_group().Translate_ranks(list(range(new.Get_size())),
                                                  self.Get_group())
            options = {**options, "nodes": [options["nodes"][r] for r in old]}
        return Intracomm(new, bcast, barrier, allgather, **options)

    # ---- standing in for MPI.COMM_WORLD and MPI.COMM_SELF (collectives.use) ---------------
    def free(self) -> None:
        """mpi4py's safe free, but the wrappers that stand in for MPI.COMM_WORLD and
        MPI.COMM_SELF stay, as mpi4py's constants do."""
        if all(self is not comm for comm in _INSTALLED.values()):  # `in` would compare handles
            MPI.Intracomm.free(self)

    def __reduce__(self) -> Any:
        """The stand-ins pickle by name, as the constants do; others as mpi4py says (it
        refuses communicators that are not predefined)."""
        for name, comm in _INSTALLED.items():
            if comm is self:
                return _installed, (name,)
        return MPI.Intracomm.__reduce__(self)

    @classmethod
    def fromhandle(cls, handle: int) -> Intracomm:
        """The communicator of a handle, of this class, with the choice the handle last got."""
        return cls.__new__(cls, MPI.Intracomm.fromhandle(handle))


_INSTALLED: dict[str, Intracomm] = {}  # "COMM_WORLD" -> its stand-in (collectives.use)


def install(name: str, bcast: str, barrier: str, allgather: str = DEFAULT_ALLGATHER,
            **options: Any) -> Intracomm:
    """Replace MPI.<name> (COMM_WORLD or COMM_SELF) by a stand-in with this choice."""
    comm = Intracomm(getattr(MPI, name), bcast, barrier, allgather, **options)
    _INSTALLED[name] = comm
    setattr(MPI, name, comm)
    return comm


def _installed(name: str) -> Intracomm:
    return _INSTALLED[name]
