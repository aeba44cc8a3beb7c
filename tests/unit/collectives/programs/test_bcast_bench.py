"""collectives.programs.bcast_bench.rank_completion: each rank's median completion from the
root's start, the return time where a receiver does not say, and nothing without measured
broadcasts."""

import pytest

from collectives.programs.bcast_bench import rank_completion


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
