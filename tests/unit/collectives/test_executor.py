"""collectives.executor.check: a barrier's release and a scout broadcast's completion are
refused before any message where they are not one of the choices or the algorithm takes
none, and taken where it does. The allgather's checks: an unknown name or any option, and
blocks of different sizes, each one clear message (the call itself runs on real ranks in
tests/integration/test_allgather.py)."""

from __future__ import annotations

import pytest
from mpi4py import MPI

from collectives.algorithms import (
    COMPLETIONS,
    RELEASES,
)
from collectives.executor import allgatherv, block_size, check, check_allgather, check_barrier


@pytest.mark.parametrize(("bcast", "barrier", "options", "needle"), [
    ("nack", "mcast", {"release": "unicast"},
     "release must be one of both, multicast, got 'unicast'"),
    ("binomial", "mcast", {"release": None}, "release must be one of"),
    ("nack", "tree", {"release": "multicast"},
     "tree: release is an option of the multicast barrier (mcast) only"),
    ("nack", "pairwise", {"release": "both"}, "pairwise: release is an option"),
])
def test_bad_releases_are_refused_before_any_message(bcast: str, barrier: str,
                                                     options: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        check(bcast, barrier, 4, options)
    with pytest.raises(ValueError, match="release"):
        check_barrier(barrier, options)


def test_good_releases_pass_with_any_broadcast() -> None:
    for release in RELEASES:
        check("nack", "mcast", 4, {"release": release, "timeout": 3.0})
        check("binomial", "mcast", 4, {"release": release})  # a tree takes no release


@pytest.mark.parametrize(("algorithm", "options", "needle"), [
    ("scout-linear", {"completion": "silent"}, "completion must be one of report, none"),
    ("scout-binary", {"completion": 0}, "completion must be one of"),
    ("nack", {"completion": "none"}, "nack: completion is an option of the scout"),
    ("two-stage", {"completion": "report"}, "two-stage: completion is an option"),
])
def test_the_executor_refuses_bad_completions_before_any_message(
        algorithm: str, options: dict, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        check(algorithm, "mpich", 4, options)


def test_the_executor_takes_both_completions_with_the_multicast_options() -> None:
    for c in COMPLETIONS:
        check("scout-binary", "mpich", 4, {"completion": c, "timeout": 5.0})


def test_the_allgathers_are_checked_by_name_and_options() -> None:
    check_allgather("bruck", {})
    check_allgather("mcast-concurrent", {"timeout": 5.0, "fragment": 1400})
    with pytest.raises(ValueError, match="unknown allgather 'fast'; choose from mpich, ring"):
        check_allgather("fast", {})
    with pytest.raises(ValueError, match="ring takes no options, got timeout"):
        check_allgather("ring", {"timeout": 1.0})
    with pytest.raises(ValueError, match="mcast-sequential takes only fragment, rate, timeout, "
                                         "rcvbuf, got release"):
        check_allgather("mcast-sequential", {"release": "both"})
    with pytest.raises(ValueError, match="unknown allgather 'x'"):
        check("binomial", "mpich", 4, {}, allgather="x")


def test_the_block_is_the_receive_buffer_split_evenly_or_a_clear_error() -> None:
    assert block_size(20, 4, 5) == 5 and block_size(0, 4, 0) == 0
    assert block_size(20, 4, None) == 5  # in place: the receive buffer says
    with pytest.raises(ValueError, match="allgather: the receive buffer holds 20 bytes, not 4 "
                                         r"blocks of the 6 sent \(every rank's block must"):
        block_size(20, 4, 6)
    with pytest.raises(ValueError, match="receive buffer's 21 bytes are not 4 equal blocks"):
        block_size(21, 4, None)


def test_an_allgatherv_on_one_rank_places_its_block_and_refuses_a_wrong_count() -> None:
    """On COMM_SELF every algorithm's schedule is empty: the block lands in its slot; a send
    buffer that is not this rank's count and a layout MPI forbids never reach a message."""
    buf = bytearray(b"......")
    allgatherv(b"abc", buf, [3], [2], MPI.COMM_SELF, "bruck")
    assert buf == bytearray(b"..abc.")
    with pytest.raises(ValueError, match="allgatherv: this rank sends 2 bytes, its count is 3"):
        allgatherv(b"ab", buf, [3], None, MPI.COMM_SELF, "ring")
    with pytest.raises(ValueError, match="rank 0's 3 bytes at 5 end past"):
        allgatherv(b"abc", buf, [3], [5], MPI.COMM_SELF, "ring")
    with pytest.raises(ValueError, match="receive buffer must be writable"):
        allgatherv(b"abc", b"......", [3], None, MPI.COMM_SELF, "ring")
