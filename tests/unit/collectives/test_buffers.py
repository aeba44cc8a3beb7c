"""collectives.buffers.vector: an Allgatherv's receive message read as mpi4py reads a
v-message (every form, counts and displacements given, integral or left out, a datatype or a
typecode or none), in place where the datatype has no holes, packed per slot by MPI where it
has, and unpacked into the caller's buffer at the end. (mpi4py's own Allgatherv tests judge
it on real ranks: tests/integration/test_mpi4py_suite.py.)"""

from __future__ import annotations

from array import array

import pytest
from mpi4py import MPI

from collectives.buffers import vector


def test_a_bare_buffer_is_split_as_evenly_as_it_goes_first_ranks_first():
    v = vector(bytearray(12), 3)
    assert v.slots == ((0, 4), (4, 4), (8, 4)) and v.pending == []
    ints = array("i", range(7))  # 7 entries on 3 ranks: 3, 2, 2 of 4 bytes
    assert vector(ints, 3).slots == ((0, 12), (12, 8), (20, 8))


@pytest.mark.parametrize(("spec", "slots"), [
    (lambda b: [b, 2], ((0, 8), (8, 8), (16, 8))),  # an integer count: each
    (lambda b: [b, MPI.INT], ((0, 12), (12, 12), (24, 8))),  # a datatype alone: 3, 3, 2
    (lambda b: [b, ([1, 0, 2], [4, 0, 1])], ((16, 4), (0, 0), (4, 8))),
    (lambda b: [b, [1, 2, 3], MPI.INT], ((0, 4), (4, 8), (12, 12))),  # a list is counts
    (lambda b: [b, (2, 3), "i"], ((0, 8), (12, 8), (24, 8))),  # an integer stride
    (lambda b: [b, [1, 1, 1], [6, 3, 0], MPI.INT], ((24, 4), (12, 4), (0, 4))),
])
def test_every_form_mpi4py_takes(spec, slots):
    assert vector(spec(array("i", range(8))), 3).slots == slots


def test_the_empty_message_and_refusals():
    assert vector([None, (0, None), MPI.INT], 4).slots == ((0, 0),) * 4
    with pytest.raises(BufferError, match="not writable"):
        vector(b"abcd", 2)
    with pytest.raises(ValueError, match="expecting 2 to 4 items"):
        vector([bytearray(4), 1, 2, MPI.BYTE, 5], 2)
    with pytest.raises(ValueError, match="allgatherv: the slots of ranks 0 and 1 overlap"):
        vector([bytearray(8), ([4, 4], [0, 2]), MPI.BYTE], 2)


def test_a_datatype_with_holes_is_packed_per_slot_and_unpacked_at_the_end():
    every_third = MPI.INT.Create_vector(2, 1, 3).Commit()  # 2 ints, 2 holes between
    try:
        buf = array("i", [-1] * 12)
        v = vector([buf, ([1, 2], [0, 1]), every_third], 2)  # 2 ints, then 4
        assert v.slots == ((0, 8), (8, 16)) and len(v.pending) == 2
        v.view[:] = array("i", [10, 11, 20, 21, 22, 23]).tobytes()
        v.finish()
    finally:
        every_third.Free()
    assert buf.tolist() == [10, -1, -1, 11, 20, -1, -1, 21, 22, -1, -1, 23]
