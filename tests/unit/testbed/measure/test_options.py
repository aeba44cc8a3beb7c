"""testbed.measure.options: one RunOptions bundle for every measuring function, each
collective's own defaults where the bundle leaves a field None (the ones they had as
keywords of their own), and at most four parameters a function besides a callback."""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from testbed.measure.allgather import ALLGATHER, run_allgather
from testbed.measure.barrier import BARRIER, run_barriers
from testbed.measure.bcast import BCAST, run_bcast
from testbed.measure.bcast_batch import run_bcasts
from testbed.measure.options import Defaults, RunOptions

MEASURING: list[Callable[..., Any]] = [run_bcast, run_bcasts, run_allgather, run_barriers]


def test_a_field_left_none_takes_the_collectives_own() -> None:
    d = Defaults(repetitions=20, warmup=5, timeout=300)
    assert d.of(RunOptions()) == (20, 5, 300)
    assert d.of(RunOptions(repetitions=3, warmup=0, timeout=9.5)) == (3, 0, 9.5)  # 0 is kept


def test_the_defaults_are_the_ones_each_function_had() -> None:
    """run_bcast: 20 repetitions, bcast_bench's own warmup, 900 s; run_allgather: 10, 2,
    600 s; run_barriers: 20, 5, 300 s (their keyword defaults until issue 54)."""
    assert BCAST.of(RunOptions()) == (20, None, 900)
    assert ALLGATHER.of(RunOptions()) == (10, 2, 600)
    assert BARRIER.of(RunOptions()) == (20, 5, 300)
    plain = RunOptions()
    assert (plain.hosts, plain.params, plain.loss, plain.loss_scope, plain.frames, plain.wait,
            plain.flow, plain.mpich_algorithm, plain.naive, plain.late) == (
        None, None, 0.0, "all", 0, None, True, None, 0, None)


def test_a_variation_is_a_replace_and_the_bundle_is_frozen() -> None:
    base = RunOptions(hosts=8, repetitions=5)
    lossy = dataclasses.replace(base, loss=0.05)
    assert (lossy.hosts, lossy.repetitions, lossy.loss, base.loss) == (8, 5, 0.05, 0.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        base.loss = 0.1  # type: ignore[misc]


@pytest.mark.parametrize("function", MEASURING, ids=lambda f: f.__name__)
def test_every_measuring_function_takes_the_bundle_and_few_parameters(
        function: Callable[..., Any]) -> None:
    params = inspect.signature(function).parameters
    assert "options" in params
    assert len([p for p in params if p != "each"]) <= 4, list(params)
