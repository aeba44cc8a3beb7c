"""testbed.errors: the Python API's old keyword spellings keep working with a
DeprecationWarning, and every experiment function says `repetitions`."""

import inspect

import pytest

from testbed.errors import renamed_keyword
from testbed.experiments import default, osu
from testbed.measure import barrier, bcast, params


def test_an_old_keyword_is_used_and_warned() -> None:
    assert renamed_keyword(None, "iters", 20, "repetitions") == 20
    with pytest.warns(DeprecationWarning, match="iters= is now repetitions="):
        assert renamed_keyword(5, "iters", 20, "repetitions") == 5


@pytest.mark.parametrize(("function", "old"), [
    (bcast.run_bcast, "iters"), (params.measure_params, "repeats"),
    (barrier.run_barriers, "iters"), (osu.run_osu, "iterations"), (default.run, "reps")])
def test_every_experiment_says_repetitions(function: object, old: str) -> None:
    params = inspect.signature(function).parameters  # type: ignore[arg-type]
    assert "repetitions" in params and params[old].default is None
