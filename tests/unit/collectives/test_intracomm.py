"""collectives.intracomm's parts that need no MPI job: the broadcast, barrier and options a
drop-in communicator is given are checked (collectives.executor) before any message, a
barrier takes only its own options, and the vendored mpi4py tests are the pinned version,
unmodified. (The communicator itself runs in tests/integration/test_mpi4py_suite.py and
test_dropin.py.)"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from collectives.executor import allgather_options, barrier_options, check

ROOT = Path(__file__).resolve().parents[3]
SUITE = ROOT / "third_party" / "mpi4py-tests"


@pytest.mark.parametrize("bcast, barrier, options, words", [
    ("fastest", "mcast", {}, "unknown broadcast 'fastest'; choose from mpich,"),
    ("nack", "never", {}, "unknown barrier 'never'; choose from mpich, tree"),
    ("opt-tree", "tree", {}, "opt-tree needs t_hold and t_end"),
    ("dyn-tree", "tree", {"t_hold": 1e-5}, "dyn-tree needs t_hs"),
    ("nack", "mcast", {"t_hold": 1e-5}, "nack: "),
    ("range-tree", "range-tree", {"mesh": [2, 2]}, "range-tree: "),
    ("fragmented-chain", "tree", {"fragment": 0}, "fragment size must be at least 1"),
    ("binomial", "tree", {"send_order": "lifo"}, "send_order must be one of fifo, overlapped"),
    ("u-mesh", "tree", {"mesh": [2, 2], "send_order": 1}, "send_order must be one of"),
    ("dyn-tree", "tree", {"t_hold": 1e-5, "t_end": 3e-5, "send_order": "x"},
     "send_order must be one of"),
    ("nack", "mcast", {"send_order": "fifo"}, "nack: "),  # a multicast has no send order
    # MPI_Bcast takes none: an option no chosen algorithm takes is refused, not dropped
    ("mpich", "mpich", {"t_hold": 1.0}, "t_hold: an option of none of mpich, mpich and mpich"),
    ("mpich", "mcast", {"fragment": 1400}, "fragment: an option of none of mpich, mcast and"),
])
def test_bad_choices_are_refused_before_any_message(bcast, barrier, options, words):
    with pytest.raises(ValueError, match=re.escape(words)):
        check(bcast, barrier, 4, options)


@pytest.mark.parametrize("bcast, options", [
    ("binomial", {}), ("mpich", {}), ("opt-tree", {"t_hold": 1e-5, "t_end": 3e-5}),
    ("u-mesh", {"mesh": [2, 2]}), ("opt-min", {"bmin": [2, 2], "t_hold": 1e-5, "t_end": 3e-5}),
    ("nack", {"timeout": 5.0}), ("range-tree", {"nodes": [0, 1, 2, 3], "fattree": [4, 8]}),
    ("binomial", {"send_order": "overlapped"}), ("u-torus", {"send_order": "fifo"}),
    ("dyn-tree", {"t_hold": 1e-5, "t_end": 3e-5, "send_order": "overlapped"}),
])
def test_good_choices_pass(bcast, options):
    check(bcast, "mpich", 4, options)


def test_a_barrier_takes_only_its_own_options():
    opts = {"t_hold": 1e-5, "timeout": 3.0, "nodes": [0, 1], "fattree": [4, 8]}
    assert barrier_options("mpich", opts) == {}
    assert barrier_options("tree", opts) == {}
    assert barrier_options("mcast", opts) == {"timeout": 3.0}
    assert barrier_options("range-tree", opts) == {"timeout": 3.0, "nodes": [0, 1],
                                                   "fattree": [4, 8]}


def test_the_vendored_suite_is_the_pinned_mpi4py_unmodified():
    pinned = re.search(r"^mpi4py==(\S+)$", (ROOT / "requirements.txt").read_text(), re.M)
    assert pinned, "requirements.txt pins no mpi4py"
    assert f"mpi4py **{pinned.group(1)}**" in (SUITE / "README.md").read_text()
    sums = dict(reversed(ln.split()) for ln in (SUITE / "SHA256SUMS").read_text().splitlines())
    assert {"runtests.py", "test_cco_buf.py", "test_cco_obj.py", "test_cco_vec.py",
            "test_msgzero.py", "LICENSE.rst"} <= set(sums)
    for name, digest in sums.items():
        assert hashlib.sha256((SUITE / name).read_bytes()).hexdigest() == digest, name


def test_each_collective_of_the_drop_in_is_given_the_options_it_takes() -> None:
    """One set of options (Intracomm(**options), -o NAME=VALUE) serves the three: the
    multicast allgathers are given theirs (once they were given none), MPI_Bcast none."""
    opts = {"timeout": 3.0, "fragment": 1400, "release": "both", "acks": "tree"}
    assert allgather_options("mcast-concurrent", opts) == {"timeout": 3.0, "fragment": 1400}
    assert allgather_options("ring", opts) == {}
    assert check("mpich", "mcast", 4, {"timeout": 2.0, "release": "multicast"},
                 allgather="mcast-sequential")[2].name == "mcast-sequential"
