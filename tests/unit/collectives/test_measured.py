"""collectives.measured, its pure part: which choices the drop-in measures t_hold and t_end
for (and how they are checked before), the grid sizes a broadcast's parameters come from,
the cache of a communicator (by send order and size, copied for a duplicate), and that an
algorithm gets from it what the testbed's model gets from the same measurements
(testbed.measure.bcast_model.algorithm_params). Measuring itself needs MPI ranks:
tests/integration/test_mpi4py_suite.py."""

from __future__ import annotations

import struct

import pytest

from collectives import measured
from collectives.algorithms import BCASTS
from collectives.executor import check
from collectives.measured import GRID, Cache, Measured, checkable, needs, points
from collectives.programs import params
from collectives.trees.schedules import build
from testbed.measure.bcast_model import algorithm_params


def entry(size: int, hold: float, end: float, order: str = "fifo") -> Measured:
    return Measured(size, order, 4, hold, end, 0.1)


def test_the_algorithms_that_take_t_hold_and_t_end_measure_them_given_none():
    timing = {name for name, a in BCASTS.items() if a.timing}
    assert timing == {"opt-tree", "opt-mesh", "opt-min", "dyn-tree", "dyn-mesh", "dyn-min"}
    for name in BCASTS:
        assert needs(name, {}) == (name in timing), name
        assert needs(name, {"send_order": "overlapped", "mesh": [2, 2]}) == (name in timing)
    # given (even in part), nothing is measured: values given are used as given
    assert not needs("opt-tree", {"t_hold": 1e-5, "t_end": 3e-5})
    assert not needs("opt-tree", {"t_end": 3e-5})
    assert not needs("dyn-tree", dict.fromkeys(measured.DYNAMIC, 1e-5))
    with pytest.raises(ValueError, match="unknown broadcast 'fastest'"):
        needs("fastest", {})


def test_a_choice_to_be_measured_is_checked_for_everything_else_before_any_message():
    assert checkable("opt-tree", {}) == measured.STAND_IN
    assert checkable("opt-tree", {"t_hold": 2.0}) == {"t_hold": 2.0}
    assert checkable("binomial", {}) == {}
    for name in ("opt-tree", "dyn-tree", "opt-mesh", "opt-min", "dyn-mesh", "dyn-min"):
        check(name, "tree", 4, {}, measure=True)
    with pytest.raises(ValueError, match="opt-tree needs t_hold and t_end"):
        check("opt-tree", "tree", 4, {})  # collectives.bcast's own callers give them
    with pytest.raises(ValueError, match="opt-tree needs t_hold and t_end"):
        check("opt-tree", "tree", 4, {"t_hold": 1e-5}, measure=True)
    with pytest.raises(ValueError, match="not a node of the 2x2 grid"):
        check("opt-mesh", "tree", 8, {"mesh": [2, 2]}, measure=True)
    with pytest.raises(ValueError, match="send_order must be one of"):
        check("dyn-tree", "tree", 4, {"send_order": "lifo"}, measure=True)


@pytest.mark.parametrize(("nbytes", "want"), [
    (0, (1,)), (1, (1,)), (2, (1, 4)), (4, (4,)), (5, (4, 16)), (8, (4, 16)),
    (1023, (256, 1024)), (1024, (1024,)), (3000, (1024, 4096)), (1 << 20, (1 << 20,)),
    ((1 << 20) + 1, (1 << 20, 1 << 22)),
])
def test_a_broadcast_takes_the_grid_sizes_at_and_above_it(nbytes: int, want: tuple[int, ...]):
    assert points(nbytes) == want
    assert all(p & (p - 1) == 0 for p in want)  # powers of GRID (a power of two)
    assert want[0] <= max(nbytes, 1) <= want[-1] <= GRID * max(nbytes, 1)


def test_a_negative_size_is_refused():
    with pytest.raises(ValueError, match="non-negative"):
        points(-1)


def test_mpi4pys_sizes_cost_seven_measurements():
    """The suite broadcasts 8-byte lengths and messages of 0 to about 3 KiB."""
    assert sorted({p for m in range(0, 3073) for p in points(m)}) == [
        1, 4, 16, 64, 256, 1024, 4096]


def test_the_cache_measures_each_grid_size_once_per_send_order():
    cache = Cache()
    assert cache.missing(3000, "fifo") == [1024, 4096]
    cache.add(entry(1024, 1e-4, 2e-4))
    assert cache.missing(3000, "fifo") == [4096]
    assert cache.missing(1024, "fifo") == []
    assert cache.missing(1024, "overlapped") == [1024]  # another t_hold
    with pytest.raises(KeyError):
        cache.params(3000, "fifo")
    cache.add(entry(4096, 4e-4, 5e-4))
    assert cache.missing(3000, "fifo") == cache.missing(2000, "fifo") == []
    assert [r["size"] for r in cache.records()] == [1024, 4096]
    assert cache.records()[0] == {"size": 1024, "send_order": "fifo", "ranks": 4,
                                  "t_hold_s": 1e-4, "t_end_s": 2e-4, "took_s": 0.1,
                                  "t_hold_sends_s": (), "t_software_s": None}


def test_a_grid_size_is_taken_as_measured_and_others_interpolated():
    cache = Cache({("fifo", 1024): entry(1024, 1e-4, 2e-4),
                   ("fifo", 4096): entry(4096, 4e-4, 5e-4)})
    assert cache.params(1024, "fifo") == {"t_hold": 1e-4, "t_end": 2e-4}
    assert cache.params(4096, "fifo") == {"t_hold": 4e-4, "t_end": 5e-4}
    mid = cache.params(2560, "fifo")
    assert mid["t_hold"] == pytest.approx(2.5e-4) and mid["t_end"] == pytest.approx(3.5e-4)


def test_a_duplicate_starts_with_a_copy_and_measures_on_its_own():
    cache = Cache({("fifo", 1): entry(1, 1e-5, 3e-5)})
    dup = cache.copy()
    dup.add(entry(4, 1e-5, 3e-5))
    assert dup.missing(4, "fifo") == [] and cache.missing(4, "fifo") == [4]
    assert dup.params(1, "fifo") == cache.params(1, "fifo")


@pytest.mark.parametrize("nbytes", [0, 1, 8, 300, 1024, 3000])
def test_the_algorithm_gets_what_the_testbeds_model_gets_from_the_same_measurements(nbytes):
    """testbed.measure.bcast_model.algorithm_params interpolates between the sizes it
    measured; the drop-in between the grid sizes it measured: the same numbers when the
    sizes are the same, so the same tree."""
    grid = [1, 4, 16, 64, 256, 1024, 4096]
    holds = [2e-5 + 1e-8 * m for m in grid]
    ends = [5e-5 + 3e-8 * m + (1e-5 if m >= 1024 else 0.0) for m in grid]  # not one line
    cache = Cache({("fifo", m): entry(m, h, e) for m, h, e in zip(grid, holds, ends,
                                                                   strict=True)})
    model = algorithm_params("opt-tree", max(nbytes, 1),
                             {"sizes": grid, "t_hold_s": holds, "t_end_s": ends})
    got = cache.params(nbytes, "fifo")
    assert got == pytest.approx(model)
    assert build("opt-tree", 16, 0, nbytes, **got).programs == \
        build("opt-tree", 16, 0, nbytes, **model).programs


def test_every_rank_keeps_the_figures_of_rank_0_as_sent():
    """Rank 0's medians travel as doubles: exactly what it measured."""
    figures = (1.2345678901234567e-05, 6.5e-05, 3e-6, 4e-6)
    fmt = f"={len(figures)}d"  # t_end, the software share, t_hold by count: as measure packs
    assert struct.unpack(fmt, struct.pack(fmt, *figures)) == figures


def test_the_first_use_is_short_and_the_rounds_are_params():
    """The drop-in times fewer rounds than collectives.programs.params (which runs the same
    rounds: collectives.measured.hold and pingpong)."""
    assert params.hold is measured.hold and params.pingpong is measured.pingpong
    assert measured.rounds(1) == 10 and measured.rounds(1 << 20) == measured.REPEATS
    assert measured.reps(1, measured.BUDGET_BYTES, measured.MOST_ROUND_TRIPS) == 20
    assert measured.reps(1 << 22, measured.BUDGET_BYTES, measured.MOST_ROUND_TRIPS) == 3
    assert measured.hold_rounds(1, 3) == 30  # params' own, unchanged


class OneRank:
    """Rank `rank` of a communicator of `size`, for the hold round's own logic (its sends
    and receives recorded by the test, no MPI)."""

    def __init__(self, rank: int, size: int):
        self.rank, self.size = rank, size

    def Get_rank(self) -> int:  # noqa: N802
        return self.rank

    def Get_size(self) -> int:  # noqa: N802
        return self.size


@pytest.mark.parametrize(("size", "sends"), [(8, 7), (8, 3), (4, 7), (2, 1)])
def test_a_hold_round_sends_as_many_messages_as_asked_to_every_other_rank_in_turn(
        monkeypatch, size, sends):
    """t_hold over `sends` back-to-back sends from rank 0 (the broadcast's root), one to each
    other rank in turn; each receiver takes exactly the messages meant for it; one departure
    (call returned, message left) a send, in order, so t_hold at every count comes from the
    one round."""
    sent: list[int] = []
    received: dict[int, int] = {}
    monkeypatch.setattr(measured, "idle_barrier", lambda comm: None)
    monkeypatch.setattr(measured.outqueue, "wait_sent", lambda: None)
    monkeypatch.setattr(measured, "send", lambda comm, buf, peer, tag: sent.append(peer))

    def recv(comm, buf, peer, tag):
        assert peer == 0 and tag == measured.HOLD_TAG
        received[comm.rank] = received.get(comm.rank, 0) + 1

    monkeypatch.setattr(measured, "recv", recv)
    got = measured.departures(OneRank(0, size), b"x", sends, fifo=True)
    assert sent == [1 + j % (size - 1) for j in range(sends)]
    assert len(got) == sends
    assert all(r <= left for r, left in got)  # each call returned before its message left
    assert [left for _, left in got] == sorted(left for _, left in got)
    for rank in range(1, size):
        assert measured.departures(OneRank(rank, size), b"x", sends, fifo=True) == []
        assert received.get(rank, 0) == sent.count(rank)
    assert measured.hold(OneRank(0, size), b"x", sends, fifo=True) >= 0


def test_the_software_share_is_each_calls_time_from_the_last_departure():
    # sends left at 1, 2.5, 4 (s); their calls returned 0.2, 1.3, 2.6 after the round began
    got = [(0.2, 1.0), (1.3, 2.5), (2.6, 4.0)]
    assert measured.software(got) == pytest.approx((0.2 + 0.3 + 0.1) / 3)
