"""Any message mpi4py's ``Bcast`` accepts, as the bytes a byte-level broadcast moves.

A contiguous buffer (the buffer protocol, DLPack or the CUDA array interface, C or Fortran
order, as ``MPI.buffer`` takes it) is broadcast in place. Every other message specification
(``[buf, count, datatype]``, ``[buf, (count, displ), datatype]``, derived datatypes with holes,
``[None, MPI.INT]``, ``MPI.BOTTOM`` with absolute addresses) is packed by MPI itself: the
rank sends the message to itself and receives it as ``MPI.PACKED`` (MPI-3.1 section 4.2: any
message may be received as packed data, and packed data received with a matching type),
so mpi4py parses every form it accepts and MPI walks every datatype, holes left untouched.
An Allgatherv's receive message (`vector`) is read as mpi4py reads a v-message and taken in
place where its datatype has no holes; each rank's slot is packed apart where it has.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

from .slots import Slots, of_counts

_SELF: list[Any] = []  # a private duplicate of COMM_SELF for the self-messages
TAG_PACK, TAG_UNPACK = 0x4D50, 0x4D55


def _self_comm() -> Any:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if not _SELF:
        _SELF.append(MPI.Intracomm(MPI.COMM_SELF).Dup())
    return _SELF[0]


@dataclass
class Message:
    """The bytes to broadcast (`view`) and, for a receiver of a packed message, its posted
    receive of them back into the caller's message (`pending`)."""

    view: memoryview
    pending: Any = None

    def finish(self) -> None:
        """A receiver of a packed message unpacks what arrived into its own message."""
        if self.pending is not None:
            # importing mpi4py.MPI starts MPI: only inside the ranks
            from mpi4py import MPI

            _self_comm().Send([self.view, MPI.PACKED], 0, TAG_UNPACK)
            self.pending.Wait()
            self.pending = None

    def abandon(self) -> None:
        """The broadcast failed: withdraw the posted receive."""
        if self.pending is not None:
            self.pending.Cancel()
            self.pending.Wait()
            self.pending = None


def message(spec: Any, sending: bool) -> Message:
    """The bytes of `spec` for the root (`sending`: may be read-only; the bytes are copied when
    so, since some algorithms receive into the root's buffer) or a receiver (must be writable:
    BufferError as mpi4py raises it)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if not isinstance(spec, (list, tuple)) and spec is not None and spec is not MPI.BOTTOM:
        buf = MPI.buffer(spec)
        if buf.readonly and not sending:
            raise BufferError("Object is not writable.")
        # mpi4py's stub gives its buffer __buffer__ only from Python 3.12 on
        view = memoryview(buf).cast("B")  # type: ignore[arg-type]
        return Message(memoryview(bytearray(view)) if view.readonly else view)
    return _packed(spec, sending)


def _packed(spec: Any, sending: bool) -> Message:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm = _self_comm()
    pending = None if sending else comm.Irecv(spec, 0, TAG_UNPACK)  # writable, or raises
    req = comm.Isend(spec, 0, TAG_PACK)
    status = MPI.Status()
    comm.Probe(0, TAG_PACK, status)
    packed = bytearray(status.Get_count(MPI.PACKED))
    comm.Recv([packed, MPI.PACKED], 0, TAG_PACK)
    req.Wait()
    return Message(memoryview(packed), pending)


@dataclass
class Vector:
    """An allgatherv's receive message as bytes: `view` holds rank i's block at `slots[i]`.
    Where the datatype has holes, the slots are the ranks' packed blocks end to end and
    `pending` their messages, into which `finish` unpacks them."""

    view: memoryview
    slots: Slots
    pending: list[Message] = field(default_factory=list)

    def finish(self) -> None:
        """Packed slots (a datatype with holes) unpack into the caller's message."""
        for (offset, length), msg in zip(self.slots, self.pending, strict=False):
            msg.view[:] = self.view[offset:offset + length]
            msg.finish()

    def abandon(self) -> None:
        for msg in self.pending:
            msg.abandon()


def vector(spec: Any, size: int) -> Vector:
    """The receive message of an Allgatherv (any form mpi4py's ``Allgatherv`` takes:
    ``buf``, ``[buf, counts]``, ``[buf, datatype]``, ``[buf, (counts, displs)]``,
    ``[buf, counts, datatype]``, ``[buf, (counts, displs), datatype]``, ``[buf, counts,
    displs, datatype]``; counts None: the buffer split as evenly as it goes, the first
    ranks one entry more; an integer: that many each; displacements None: end to end, an
    integer: that stride) as bytes, one slot per rank of `size`. Read as mpi4py reads it
    (its msgbuffer.pxi, message_vector), so that a form is taken here exactly when mpi4py
    would take it; a layout MPI forbids is refused (collectives.slots.of_counts)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    buf, counts, displs, kind = _vector_parts(spec)
    whole = memoryview(bytearray()) if buf is None else \
        memoryview(MPI.buffer(buf)).cast("B")  # type: ignore[arg-type]
    if whole.readonly:
        raise BufferError("Object is not writable.")
    if kind is None:  # a predefined type, from the buffer: only its size matters here
        lb, extent, holes = 0, 1 if buf is None or not len(whole) else _element_size(buf), False
    else:
        kind = kind if isinstance(kind, MPI.Datatype) else MPI.Datatype.fromcode(kind)
        lb, extent = kind.Get_extent()
        holes = not (lb == 0 and extent == kind.Get_size()
                     and kind.Get_true_extent() == (0, extent))
    entries = len(whole) // extent if extent > 0 else 0
    counts = _per_rank(counts, size, [entries // size + (entries % size > i)
                                      for i in range(size)])
    if displs is None:
        displs = [sum(counts[:i]) for i in range(size)]
    else:
        displs = _per_rank(displs, size, None, stride=True)
    if not holes:
        return Vector(whole, of_counts([c * extent for c in counts],
                                       [d * extent for d in displs], size, len(whole)))
    pending = [message([buf, (c, d), kind], sending=False)
               for c, d in zip(counts, displs, strict=True)]
    lengths = [len(m.view) for m in pending]
    slots = of_counts(lengths, None, size, sum(lengths))  # end to end
    view = memoryview(bytearray(sum(lengths)))
    for (offset, length), msg in zip(slots, pending, strict=True):
        view[offset:offset + length] = msg.view
    return Vector(view, slots, pending)


def _element_size(buf: Any) -> int:
    """The size of one element of a non-empty buffer given without a datatype, as mpi4py
    infers its type (the buffer protocol's format, a DLPack tensor's or a CUDA array's
    dtype): a message of one element of it, sent to this rank, is that many bytes."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    comm, status = _self_comm(), MPI.Status()
    req = comm.Isend([buf, 1], 0, TAG_PACK)
    comm.Probe(0, TAG_PACK, status)
    size = status.Get_count(MPI.BYTE)
    comm.Recv([bytearray(size), MPI.BYTE], 0, TAG_PACK)
    req.Wait()
    return size


def _vector_parts(spec: Any) -> tuple[Any, Any, Any, Any]:
    """(buffer, counts, displacements, datatype) of a v-message, None where not given."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    if not isinstance(spec, (list, tuple)):
        return spec, None, None, None
    counts = displs = kind = None
    if len(spec) == 2:
        buf, counts = spec
        if isinstance(counts, (MPI.Datatype, str)):
            counts, kind = None, counts
        elif isinstance(counts, tuple):
            counts, displs = counts
    elif len(spec) == 3:
        buf, counts, kind = spec
        if isinstance(counts, tuple):
            counts, displs = counts
    elif len(spec) == 4:
        buf, counts, displs, kind = spec
    else:
        raise ValueError("message: expecting 2 to 4 items")
    return buf, counts, displs, kind


def _per_rank(value: Any, size: int, default: list[int] | None,
              stride: bool = False) -> list[int]:
    """Counts or displacements, one per rank: `default` for None, an integer as mpi4py
    takes it (the same count for every rank; for displacements, a stride), else each."""
    if value is None and default is not None:
        return default
    try:
        one = operator.index(value)
    except TypeError:
        return [operator.index(v) for v in value]
    return [one * i for i in range(size)] if stride else [one] * size
