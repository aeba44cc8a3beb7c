"""testbed.cli.interactive's pure helpers: number arguments refused, and t_hold/t_end
measured only for algorithms they matter to."""

import pytest

from testbed.cli.interactive import _count
from testbed.errors import UsageError


@pytest.mark.parametrize(("text", "message"), [("x", "whole number"), ("1.5", "whole number"),
                                               ("0", "1 to 4, got 0"), ("5", "1 to 4")])
def test_count_refuses(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        _count(text, "HOSTS", 1, 4)
    assert _count("4", "HOSTS", 1, 4) == 4


def test_bcast_measures_t_hold_t_end_only_where_they_change_something() -> None:
    """`bcast` at the prompt skips the measurement of t_hold/t_end for an algorithm
    uses_params says it does not matter to: there neither its schedule nor the model's
    prediction takes them."""
    from collectives.algorithms import BCASTS
    from testbed.measure.bcast_model import algorithm_params, prediction, uses_params

    params = {"sizes": [65536], "t_hold_s": [0.001], "t_end_s": [0.002]}
    placement = {"nodes": [0, 1, 2, 3], "fattree": [2, 8], "mesh": [2, 2]}
    skipped = [a for a in BCASTS if not uses_params(a)]
    assert set(skipped) == {"mpich", "two-stage", "nack", "scout-linear", "scout-binary",
                            "range-tree"}
    for a in skipped:
        assert algorithm_params(a, 65536, params) == {}
        assert prediction(a, 4, 65536, params, placement=placement) is None
    assert prediction("binomial", 4, 65536, params) is not None
    assert algorithm_params("opt-tree", 65536, params) != {}
