"""collectives.programs.params.own_core: a rank of the PingPong pair keeps a core of its own
(the `index`-th it may use) and gets back the mask it had; with one CPU it is left alone."""

from __future__ import annotations

import os

import pytest

from collectives.programs.params import own_core


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to pin to")
def test_each_rank_of_the_pair_gets_a_core_of_its_own() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    before = own_core(1)
    try:
        assert before == set(cpus) and os.sched_getaffinity(0) == {cpus[1]}
    finally:
        os.sched_setaffinity(0, set(cpus))
    before = own_core(0)
    try:
        assert os.sched_getaffinity(0) == {cpus[0]}
    finally:
        os.sched_setaffinity(0, set(cpus))


def test_a_single_cpu_is_not_pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0})
    monkeypatch.setattr(os, "sched_setaffinity", lambda *_a: pytest.fail("pinned"))
    assert own_core(1) is None


def test_the_dummy_loops_runs_go_round_the_fractions(monkeypatch: pytest.MonkeyPatch) -> None:
    from collectives.programs import params

    calls: list[float] = []
    slow = {4}  # the 5th run of all: a stretch when the machine was busy

    def pingpong(comm, view, k: int, dummy: float = 0.0) -> float:
        calls.append(dummy)
        run = (len(calls) - 1) // 3
        return 1.0 + dummy / 2 + (5.0 if run in slow else 0.0)

    monkeypatch.setattr(params, "pingpong", pingpong)
    out = params.dummy_sweep(None, b"x", 40, 1.0, (0.0, 2.0, 4.0), runs=5)
    assert calls == [0.0, 2.0, 4.0] * 5  # one run of each fraction a round
    assert out["points"] == [(0.0, 1.0), (2.0, 2.0), (4.0, 3.0)]  # the slow round dropped
    assert out["least"] == out["points"]  # every other round took as long
