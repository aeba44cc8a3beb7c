"""collectives.programs.allgather_check's parts that need no MPI job: every rank's block
differs from every other's (a block delivered to the wrong place is caught), the check
names exactly the ranks whose block is wrong, and the argument list is read back."""

from __future__ import annotations

from collectives.algorithms import ALLGATHERS
from collectives.programs import allgather_check as ac


def test_blocks_are_each_ranks_own():
    blocks = {ac.block("ring", 16, r, f) for r in range(5) for f in ac.FORMS}
    assert len(blocks) == 10 and all(len(b) == 16 for b in blocks)
    assert ac.block("ring", 16, 2, "sent") == ac.block("ring", 16, 2, "sent")
    assert ac.block("ring", 0, 2, "sent") == b""


def test_the_check_names_the_wrong_blocks():
    right = b"".join(ac.block("bruck", 8, r, "in place") for r in range(4))
    assert ac.wrong_blocks(right, "bruck", 8, 4, "in place") == []
    swapped = right[8:16] + right[:8] + right[16:]
    assert ac.wrong_blocks(swapped, "bruck", 8, 4, "in place") == [0, 1]
    assert ac.wrong_blocks(right[:-1], "bruck", 8, 4, "in place") == [3]
    assert ac.wrong_blocks(b"", "ring", 0, 4, "sent") == []


def test_its_arguments_are_read_back():
    argv = ac.argv(sizes=[0, 1 << 20], algorithms=["ring", "bruck"])
    assert argv[:2] == ["-m", "collectives.programs.allgather_check"]
    args = ac.parser().parse_args(argv[2:])
    assert (args.sizes, args.algorithms) == ("0,1048576", "ring,bruck")
    assert ac.parser().parse_args([]).algorithms == ",".join(ALLGATHERS)
