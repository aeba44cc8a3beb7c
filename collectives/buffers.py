"""Any message mpi4py's ``Bcast`` accepts, as the bytes a byte-level broadcast moves.

A contiguous buffer (the buffer protocol, DLPack or the CUDA array interface, C or Fortran
order, as ``MPI.buffer`` takes it) is broadcast in place. Every other message specification
(``[buf, count, datatype]``, ``[buf, (count, displ), datatype]``, derived datatypes with holes,
``[None, MPI.INT]``, ``MPI.BOTTOM`` with absolute addresses) is packed by MPI itself: the
rank sends the message to itself and receives it as ``MPI.PACKED`` (MPI-3.1 section 4.2: any
message may be received as packed data, and packed data received with a matching type),
so mpi4py parses every form it accepts and MPI walks every datatype, holes left untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
