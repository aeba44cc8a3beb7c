"""testbed.reproduce.siebert_libraries: Open MPI r11682's and MPICH2 1.0's choice of broadcast
by size and ranks, as their sources decide (the branches of ompi_coll_tuned_bcast_intra_dec_fixed
and MPIR_Bcast, each hit), and Open MPI's binary tree (ompi_coll_tuned_topo_build_tree(2),
transcribed below) against the `binary` schedule that stands in for it."""

from __future__ import annotations

import pytest

from collectives.trees.schedules import binary_tree, build
from testbed.reproduce.siebert_libraries import (
    LIBRARIES,
    OVERLAPPED,
    mpich2_1_0,
    open_mpi_r11682,
)

KIB = 1024


@pytest.mark.parametrize(("m", "p", "algorithm", "options"), [
    (64 * KIB, 2, "sequential", {}),  # p < 4: basic_linear
    (1 << 20, 3, "sequential", {}),
    (64 * KIB, 4, "binary", {}),  # p == 4: bintree whole at every size (its typo)
    (1 << 20, 4, "binary", {}),
    (2048, 8, "sequential", {}),  # 4 < p <= 8 and m < 4096: basic_linear
    (64 * KIB, 8, "binary", {}),  # otherwise: bintree whole
    (4096, 16, "binary", {}),
    (32 * KIB, 16, "binary", {"fragment": 16384}),  # p > 8, 32 KiB <= m < 512 KiB
    (64 * KIB, 16, "binary", {"fragment": 16384}),
    (64 * KIB, 9, "binary", {"fragment": 16384}),
    (1 << 20, 8, "fragmented-chain", {"fragment": 16384}),  # p > 4, m >= 512 KiB: pipeline
    (512 * KIB, 16, "fragmented-chain", {"fragment": 16384}),
])
def test_open_mpi_r11682_chooses_as_its_fixed_decision(m, p, algorithm, options):
    s = open_mpi_r11682(m, p)
    assert (s.algorithm, s.options, s.send_order) == (algorithm, options, OVERLAPPED)
    assert s.kwargs() == {"send_order": OVERLAPPED, **({"options": options} if options else {})}


@pytest.mark.parametrize(("m", "p", "algorithm", "allgather"), [
    (64 * KIB, 4, "binomial", None),  # p < MPIR_BCAST_MIN_PROCS (8)
    (1 << 20, 7, "binomial", None),
    (12287, 16, "binomial", None),  # m < MPIR_BCAST_SHORT_MSG (12288)
    (12288, 8, "scatter-allgather", "recursive-doubling"),  # medium, a power of two
    (64 * KIB, 16, "scatter-allgather", "recursive-doubling"),
    (64 * KIB, 9, "scatter-allgather", "ring"),  # medium, not a power of two
    (512 * KIB, 8, "scatter-allgather", "ring"),  # m >= MPIR_BCAST_LONG_MSG (524288)
    (1 << 20, 8, "scatter-allgather", "ring"),
])
def test_mpich2_chooses_as_mpir_bcast(m, p, algorithm, allgather):
    s = mpich2_1_0(m, p)
    assert s.algorithm == algorithm and s.send_order == OVERLAPPED
    assert s.options == ({"allgather": allgather} if allgather else {})


def test_every_choice_builds_at_the_claims_sizes():
    """Each library's choice is a schedule the testbed runs, at every size and count."""
    for lib in LIBRARIES:
        assert lib.name and lib.source
        for m in (4096, 64 * KIB, 1 << 20):
            for p in range(2, 17):
                s = lib.choose(m, p)
                assert build(s.algorithm, p, 0, m, **s.options).nbytes == m


def ompi_build_tree(fanout: int, size: int) -> dict[int, list[int]]:
    """ompi_coll_tuned_topo_build_tree(fanout, comm, root = 0) of coll_tuned_topo.c at r11682,
    for every rank: its children (tree_next, in order)."""
    def level(rank: int) -> int:  # calculate_level
        lvl, num = 0, 0
        while num <= rank:
            num += fanout ** lvl
            lvl += 1
        return lvl - 1

    kids: dict[int, list[int]] = {}
    for rank in range(size):
        delta = fanout ** level(rank)
        # the C loop stops at the first child beyond the communicator: they only grow
        found = [c for i in range(fanout) if (c := rank + delta * (i + 1)) < size]
        if found:
            kids[rank] = found
    return kids


def shape(kids: dict[int, list[int]], node: int = 0) -> tuple:
    """A tree as nested tuples of its children's shapes, in sending order."""
    return tuple(shape(kids, c) for c in kids.get(node, []))


@pytest.mark.parametrize("p", [2, 3, 4, 6, 7, 8, 15, 16])
def test_open_mpis_binary_tree_is_binary_trees_but_for_the_names(p):
    """On 4, 8 and 16 ranks (where beats-libraries runs Open MPI's bintree) Open MPI's tree,
    which numbers the ranks level by level in its own way (rank 1's children are 3 and 5),
    has the same shape, children in the same order, as `binary`'s (2i+1, 2i+2)."""
    assert shape(ompi_build_tree(2, p)) == shape(binary_tree(p))
    if p == 8:
        assert ompi_build_tree(2, 8)[1] == [3, 5] and binary_tree(8)[1] == [3, 4]


def test_open_mpis_binary_tree_differs_on_some_other_counts():
    """Where the last level is partly filled Open MPI deals it out to the parents in turn,
    first children first: on 12 ranks 3 gets 7 and 11, 4, 5 and 6 one each, where `binary`
    gives 3 and 4 two each and 5 one: a count no claim runs Open MPI's tree on."""
    assert ompi_build_tree(2, 12)[3] == [7, 11] and binary_tree(12)[3] == [7, 8]
    assert shape(ompi_build_tree(2, 12)) != shape(binary_tree(12))
    assert shape(ompi_build_tree(2, 5)) != shape(binary_tree(5))  # 1 -> 3, 2 -> 4
