"""collectives.held: the root holds the message from the start, a receiver at its last mark
(and never, for MPICH's MPI_Bcast, which marks none)."""

from collectives import held


def test_the_root_holds_the_message_from_the_start() -> None:
    held.start(is_root=True)
    t = held.at()
    assert t is not None
    held.mark()  # a root that also receives (an allgather step) keeps its start
    assert held.at() == t


def test_a_receiver_holds_it_at_its_last_mark() -> None:
    held.start(is_root=False)
    assert held.at() is None  # MPICH's MPI_Bcast never marks: None
    held.mark()
    first = held.at()
    held.mark()
    assert first is not None and held.at() >= first
