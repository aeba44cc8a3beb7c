"""testbed.errors: the Python API's old keyword spellings keep working with a
DeprecationWarning, and every experiment function says `repetitions`."""

import inspect

import pytest

from testbed.errors import renamed_keyword
from testbed.experiments import default, osu
from testbed.measure import params
from testbed.measure.options import RunOptions


def test_an_old_keyword_is_used_and_warned() -> None:
    assert renamed_keyword(None, "iters", 20, "repetitions") == 20
    with pytest.warns(DeprecationWarning, match="iters= is now repetitions="):
        assert renamed_keyword(5, "iters", 20, "repetitions") == 5


@pytest.mark.parametrize(("function", "old"), [
    (params.measure_params, "repeats"), (osu.run_osu, "iterations"), (default.run, "reps")])
def test_every_experiment_says_repetitions(function: object, old: str) -> None:
    params = inspect.signature(function).parameters  # type: ignore[arg-type]
    assert "repetitions" in params and params[old].default is None


def test_the_measuring_bundle_says_repetitions() -> None:
    """run_bcast, run_bcasts, run_allgather and run_barriers take their repetitions in
    RunOptions (testbed.measure.options), which has no older spelling."""
    fields = RunOptions.__dataclass_fields__
    assert "repetitions" in fields and not {"iters", "iterations", "reps"} & set(fields)
