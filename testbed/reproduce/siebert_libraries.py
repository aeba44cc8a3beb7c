"""The MPI libraries Siebert2006 (section 4.2.3, figure 20) measured its multicast broadcast
against, as their MPI_Bcast chose an algorithm by message size and ranks, and the schedules
that stand in for those choices here (collectives.trees.schedules). Pure.

The thesis names the versions: "MPICH2 ... version 1.0.4p1" and "Open MPI ... SVN r11682".

Open MPI SVN r11682 (open-mpi/ompi at git 8a291afda65c, "This commit was SVN r11682",
2006-09-16): coll/tuned's fixed decision, ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
ompi_coll_tuned_bcast_intra_dec_fixed ("this is based on gige measurements"), m the message's
bytes, p the ranks:

    p < 4                          basic_linear
    p == 4                         bintree, segsize 0 (m >= 524288 sets `msgsize = 16384`,
                                   not segsize: whole at every size)
    4 < p <= 8 and m < 4096        basic_linear
    p > 8 and 32768 <= m < 524288  bintree, segsize 16384
    p > 4 and m >= 524288          pipeline (a chain of fanout 1), segsize 16384
    otherwise                      bintree, segsize 0

ompi/mca/coll/tuned/coll_tuned_bcast.c at the same commit: basic_linear starts an isend to
every rank and waits for all; bintree (ompi_coll_tuned_topo_build_tree(2, ...), a complete
binary tree filled level by level) sends each segment to both children with isend and waits
for both before the next; the chain receives a segment (the next one's irecv posted) and
sends it on with a blocking send. The tree numbers its ranks level by level otherwise than
`binary` (children 2i+1, 2i+2) does; for 4, 8 and 16 ranks the two trees are the same but
for the names (tests/unit/testbed/reproduce/test_siebert_libraries.py), and on a star the
names do not matter.

MPICH2: MPIR_Bcast in src/mpi/coll/bcast.c, its thresholds in src/include/mpiimpl.h
(MPIR_BCAST_SHORT_MSG 12288, MPIR_BCAST_LONG_MSG 524288, MPIR_BCAST_MIN_PROCS 8), read in
MPICH2 1.0.6 (pmodels/mpich at git 6a1cbdcfc4, "[svn-r100]", maint/Version 1.0.6: the oldest
tree in its history; 1.0.4p1's own is not there, and 1.0.5's CHANGES list "performance-related
fixes ... to collective communication" without naming them). The same three defaults are
today's MPIR_CVAR_BCAST_SHORT_MSG_SIZE, _LONG_MSG_SIZE and _MIN_PROCS (src/mpi/coll/cvars.txt):

    m < 12288 or p < 8             binomial tree (blocking MPIC_Send to each child)
    m < 524288 and p a power of 2  binomial scatter of ceil(m / p)-byte chunks, then a
                                   recursive-doubling allgather
    otherwise                      the same scatter, then a ring allgather

The send order: every one of these starts its next send as soon as MPI has taken the previous
one (a blocking send, or isends waited for together), which is send_order "overlapped"
(collectives.algorithms.SEND_ORDERS), not the model's "fifo". What the stand-ins do not
copy: Open MPI's intermediate nodes post the next segment's receive before forwarding the
current one (here a node receives a piece when it has sent the previous one on), and MPICH2
cuts chunks by ceiling division (here n * i // p: the same wherever p divides m, as at every
size and host count a claim runs)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

OVERLAPPED = "overlapped"


@dataclass(frozen=True)
class Stand:
    """A library's choice for one broadcast as the testbed runs it: the schedule's
    `algorithm` and `options` (collectives.trees.schedules), the send order, and what the
    library calls it (`what`)."""

    algorithm: str
    what: str
    options: dict[str, Any] = field(default_factory=dict)
    send_order: str = OVERLAPPED

    def kwargs(self) -> dict[str, Any]:
        """Network.point's keyword arguments for it (the call's send order and options)."""
        return {"send_order": self.send_order,
                **({"options": dict(self.options)} if self.options else {})}


@dataclass(frozen=True)
class Library:
    """An MPI library's MPI_Bcast: `name` as reports write it, where its rule was read,
    and `choose(bytes, ranks)`, the Stand for that broadcast."""

    key: str
    name: str
    source: str
    choose: Callable[[int, int], Stand]


SEGMENT = 16384  # Open MPI r11682's segsize for the segmented bintree and the pipeline
OMPI_LARGE, OMPI_MEDIUM, OMPI_SMALL = 524288, 32768, 4096
MPICH2_SHORT, MPICH2_LONG, MPICH2_MIN_PROCS = 12288, 524288, 8


def open_mpi_r11682(m: int, p: int) -> Stand:
    """ompi_coll_tuned_bcast_intra_dec_fixed at r11682 (see the module's docstring)."""
    linear = Stand("sequential", "basic_linear")
    whole = Stand("binary", "bintree whole")
    if p < 4:
        return linear
    if p == 4:
        return whole
    if p <= 8 and m < OMPI_SMALL:
        return linear
    if p > 8 and OMPI_MEDIUM <= m < OMPI_LARGE:
        return Stand("binary", f"bintree in {SEGMENT} B segments", {"fragment": SEGMENT})
    if m >= OMPI_LARGE:
        return Stand("fragmented-chain", f"pipeline in {SEGMENT} B segments",
                     {"fragment": SEGMENT})
    return whole


def mpich2_1_0(m: int, p: int) -> Stand:
    """MPIR_Bcast of MPICH2 1.0.x (see the module's docstring)."""
    if m < MPICH2_SHORT or p < MPICH2_MIN_PROCS:
        return Stand("binomial", "binomial")
    if m < MPICH2_LONG and p & (p - 1) == 0:
        return Stand("scatter-allgather", "scatter + recursive-doubling allgather",
                     {"allgather": "recursive-doubling"})
    return Stand("scatter-allgather", "scatter + ring allgather", {"allgather": "ring"})


OPEN_MPI = Library("openmpi", "Open MPI r11682",
                   "ompi/mca/coll/tuned/coll_tuned_decision_fixed.c at SVN r11682 (git "
                   "8a291afda65c)", open_mpi_r11682)
MPICH2 = Library("mpich2", "MPICH2 1.0",
                 "src/mpi/coll/bcast.c and src/include/mpiimpl.h of MPICH2 1.0.6 (git "
                 "6a1cbdcfc4; the thesis ran 1.0.4p1)", mpich2_1_0)
LIBRARIES = (OPEN_MPI, MPICH2)
