"""collectives.slots: an Allgather's equal blocks and an Allgatherv's counts at their
displacements as one layout, MPI_Allgatherv's rules kept (no negative count or
displacement, no slot past the end, no two slots over the same bytes), and a message's
blocks as the byte runs it moves."""

from __future__ import annotations

import pytest

from collectives.slots import equal, extents, of_counts, total, uniform


def test_an_allgathers_slots_are_equal_blocks_end_to_end():
    assert equal(3, 4) == ((0, 4), (4, 4), (8, 4))
    assert uniform(equal(5, 7)) == 7 and uniform(equal(2, 0)) == 0 and uniform(()) == 0
    assert uniform(((0, 4), (4, 3))) is None  # unequal
    assert uniform(((4, 4), (0, 4))) is None  # equal but not in rank order


def test_counts_without_displacements_lie_end_to_end():
    assert of_counts([3, 0, 5], None, 3, 8) == ((0, 3), (3, 0), (3, 5))
    assert of_counts([2, 2], [6, 0], 2, 8) == ((6, 2), (0, 2))  # any order, gaps allowed


@pytest.mark.parametrize(("counts", "displs", "size", "nbytes", "message"), [
    ([1, 2], None, 3, 9, "2 counts for 3 ranks"),
    ([1, 2, 3], [0, 1], 3, 9, "2 displacements for 3 ranks"),
    ([1, -2], None, 2, 9, "rank 1's count is negative"),
    ([1, 2], [0, -1], 2, 9, "rank 1's displacement is negative"),
    ([4, 4], [0, 6], 2, 9, "rank 1's 4 bytes at 6 end past the receive buffer's 9"),
    ([4, 4], [0, 3], 2, 9, r"the slots of ranks 0 and 1 overlap \(bytes 3..3\)"),
    ([2, 6, 1], [5, 0, 8], 3, 9, r"the slots of ranks 1 and 0 overlap \(bytes 5..5\)"),
])
def test_a_layout_mpi_forbids_is_refused_naming_the_fault(counts, displs, size, nbytes,
                                                          message):
    with pytest.raises(ValueError, match="allgatherv: " + message):
        of_counts(counts, displs, size, nbytes)


def test_empty_slots_may_share_an_offset():
    assert of_counts([0, 3, 0], [3, 0, 1], 3, 3) == ((3, 0), (0, 3), (1, 0))


def test_a_messages_blocks_are_the_byte_runs_they_occupy():
    slots = ((0, 4), (4, 2), (10, 3), (6, 0))
    assert extents(slots, (0, 1)) == ((0, 6),)  # touching: one run
    assert extents(slots, (1, 2)) == ((4, 2), (10, 3))  # a gap: two
    assert extents(slots, (2, 0)) == ((10, 3), (0, 4))  # in the order sent
    assert extents(slots, (3,)) == () and extents(slots, ()) == ()
    assert extents(equal(5, 8), (4, 0)) == ((32, 8), (0, 8))  # Bruck's wrapped step
    assert total(slots, (0, 2, 3)) == 7
