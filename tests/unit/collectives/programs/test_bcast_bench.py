"""collectives.programs.bcast_bench: rank_completion, each rank's median completion from the
root's start, the return time where a receiver does not say, and nothing without measured
broadcasts; calls taking turns; and every rank asleep before the gathers that end a point
(COMM_SELF, real mpi4py)."""


import pytest

from collectives.programs import bcast_bench as bb
from collectives.programs.bcast_bench import rank_completion

from .recording import Recording


def _it(ret: float, held_at: float | None) -> tuple:
    return (ret, 0.0, 0.0, held_at)  # (return, cpu, wall, held) as direct() gathers them


def test_rank_completion_medians_per_rank_from_the_roots_start() -> None:
    starts = [10.0, 20.0, 30.0]
    every = [[_it(10.5, 10.0), _it(20.4, 20.0), _it(30.6, 30.0)],   # root: held at start
             [_it(10.3, 10.2), _it(20.3, 20.1), _it(30.9, 30.3)],
             [_it(11.0, 10.9), _it(21.0, 20.8), _it(31.0, 30.7)]]
    out = rank_completion(starts, every, root=0)
    assert out["rank_done_s"] == pytest.approx([0.0, 0.2, 0.8])
    assert out["rank_return_s"] == pytest.approx([0.5, 0.3, 1.0])
    assert out["rank_done_from"] == "held"


def test_rank_completion_takes_the_return_where_a_receiver_does_not_say() -> None:
    starts = [0.0, 1.0]
    every = [[_it(0.1, 0.0), _it(1.1, 1.0)], [_it(0.4, None), _it(1.2, None)]]
    out = rank_completion(starts, every, root=0)
    assert out["rank_done_s"] == pytest.approx([0.0, 0.3])
    assert out["rank_done_from"] == "return"  # the root's own mark does not count
    every[1][0] = _it(0.4, 0.35)
    assert rank_completion(starts, every, root=0)["rank_done_from"] == "mixed"


def test_rank_completion_without_measured_broadcasts() -> None:
    out = rank_completion([], [[], []], root=1)
    assert out == {"rank_done_s": [None, None], "rank_return_s": [None, None],
                   "rank_done_from": None}


# ---- calls taking turns (--rounds) ------------------------------------------------------
def test_a_calls_broadcasts_are_shared_evenly_over_the_rounds_warm_up_first() -> None:
    assert bb.shares(30, 10) == [3] * 10
    assert bb.shares(4, 10) == [1, 1, 1, 1] + [0] * 6
    assert bb.shares(7, 3) == [3, 2, 2]
    assert bb.steps(40, 1, 4) == [11, 10, 10, 10]
    assert sum(bb.steps(7, 3, 3)) == 10


def _calls(log: list[str], name: str, n: int, stop: int | None = None):
    """A stand-in for turns(): n steps, each logged; returns its name (after `stop` steps
    when given, as direct_steps does when a budget runs out)."""
    for i in range(n):
        if stop is not None and i == stop:
            return f"{name} stopped"
        log.append(name)
        yield
    log.append(f"{name} end")
    return name


def test_calls_take_turns_round_by_round_and_each_runs_to_its_end() -> None:
    """In each round every call takes its share, call after call; a slow spell then falls on
    every call alike. Each call's own end (its gathers) comes after every round, in call
    order, on every rank alike; a call stopped early (a budget) is over from then on."""
    log: list[str] = []
    gens = [_calls(log, "a", 4), _calls(log, "b", 2), _calls(log, "c", 4, stop=1)]
    got = bb.interleaved(gens, [[2, 2], [1, 1], [2, 2]])
    assert got == ["a", "b", "c stopped"]
    assert log == ["a", "a", "b", "c", "a", "a", "b", "a end", "b end"]
    with pytest.raises(ValueError, match="a count of steps for every round"):
        bb.interleaved([_calls([], "a", 1)], [[1], [1]])


def test_the_batch_program_takes_the_rounds_from_its_arguments() -> None:
    args = bb.parser().parse_args(bb.batch_argv([], rounds=10)[2:])
    assert args.rounds == 10 and bb.parser().parse_args(["--calls", "[]"]).rounds == 1


# ---- the end of a point's broadcasts ----------------------------------------------------------
# the collective calls the tests below log
LOGGED = ("gather", "allgather", "Ibarrier", "Ibcast", "Ireduce")


@pytest.mark.parametrize("budget", [None, 0.0])
def test_no_rank_spins_in_the_gathers_while_the_last_broadcast_ends(budget: float | None
                                                                    ) -> None:
    """After the last broadcast every rank waits asleep (an Ibarrier) before the gathers:
    a rank back from it early spun in them (MPICH polls) while the last ranks still
    worked, and the last sample was the point's largest. A budget that ran out has said
    so by the root's asleep `root_says` (an Ibcast) first."""
    from mpi4py import MPI

    log: list[str] = []
    samples, ok, _ = bb.direct(Recording(MPI.COMM_SELF, log, LOGGED), bytearray(b"ab"), b"ab", 0,
                               3, 1, budget_s=budget, algorithm="binomial")
    assert ok and len(samples) == (3 if budget is None else 1)
    first = log.index("gather")
    assert log[first - 1] == "Ibarrier" and "gather" not in log[:first]
    assert log[:first - 1] == ["Ibcast", "Ireduce"] * (len(samples) + 1) + (
        ["Ibcast"] if budget is not None else [])
