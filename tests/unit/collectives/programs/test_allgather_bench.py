"""collectives.programs.allgather_bench without MPI: every rank's block is its own (a block
landing at another rank's offset fails the check), and argv() is what its parser reads
back."""

from __future__ import annotations

from collectives.programs.allgather_bench import argv, parser, pattern


def test_blocks_differ_from_rank_to_rank():
    blocks = [pattern(r, 64) for r in range(32)]
    assert all(len(b) == 64 for b in blocks) and pattern(3, 0) == b""
    assert len(set(blocks)) == 32


def test_argv_reads_back():
    args = argv(algorithm="bruck", sizes=[0, 1024], iters=3, mark_dir="/tmp/m", frame_iters=2)
    ns = parser().parse_args(args[2:])
    assert (ns.algorithm, ns.sizes, ns.iters, ns.mark_dir, ns.frame_iters) == \
        ("bruck", "0,1024", 3, "/tmp/m", 2)
