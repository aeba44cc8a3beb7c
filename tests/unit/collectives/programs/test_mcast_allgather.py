"""collectives.programs.mcast_allgather: its command line (argv round-trips through the
parser), the blocks it sends (each rank's differs, the same on every rank that computes
them) and their sizes; running it needs mpiexec and a network."""

from __future__ import annotations

from collectives.programs import mcast_allgather as prog


def test_argv_is_read_back_by_the_parser() -> None:
    words = prog.argv(sizes="0,1000", algorithms="mcast-sequential", repeat=3, ready="/r",
                      go="/g")
    args = prog.parser().parse_args(words[2:])
    assert (args.sizes, args.algorithms, args.repeat, args.ready, args.go) == \
        ("0,1000", "mcast-sequential", 3, "/r", "/g")


def test_blocks_differ_per_rank_and_case_and_are_reproducible() -> None:
    assert prog.block(100, 0, 0) != prog.block(100, 1, 0)
    assert prog.block(100, 0, 0) != prog.block(100, 0, 1)
    assert prog.block(100, 2, 5) == prog.block(100, 2, 5)
    assert len(prog.block(1000, 3, 0)) == 1000 and prog.block(0, 1, 1) == b""


def test_a_v_size_is_an_allgatherv_from_an_empty_block_to_n() -> None:
    assert prog.counts_of("1000", 4) == [1000] * 4
    assert prog.counts_of("v65536", 4) == [0, 21845, 43690, 65536]
    assert prog.counts_of("v9", 1) == [0]
