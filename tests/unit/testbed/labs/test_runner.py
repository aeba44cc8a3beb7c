"""testbed.labs.runner.kept_up: a lab's answers are judged only against a measurement the
emulator kept up with (the measurement itself is taken on Mininet in the labs' integration
test; here the rule around it)."""

from __future__ import annotations

from typing import Any

import pytest

from testbed.errors import NotKeptUp
from testbed.labs.runner import MEASURE_TRIES, get, kept_up


def _measurements(*flags: list[str]):
    taken: list[dict[str, Any]] = []

    def measure_once(_lab, _progress) -> dict[str, Any]:
        m = {"n": len(taken), "fidelity": flags[len(taken)]}
        taken.append(m)
        return m

    return measure_once, taken


def test_a_clean_measurement_is_taken_at_once() -> None:
    once, taken = _measurements([])
    assert kept_up(get(2), lambda _m: None, once) == {"n": 0, "fidelity": []}
    assert len(taken) == 1


def test_a_flagged_measurement_is_taken_again() -> None:
    lines: list[str] = []
    once, taken = _measurements(["switch waited for a core 80% of its time"], [])
    assert kept_up(get(2), lines.append, once)["n"] == 1
    assert len(taken) == 2
    assert "did not keep up (switch waited for a core 80% of its time): measuring again" \
        in lines[0]


def test_no_answer_is_judged_against_flagged_measurements() -> None:
    once, taken = _measurements(*[["switch waited"]] * MEASURE_TRIES)
    with pytest.raises(NotKeptUp, match="nothing to judge answers against") as exc:
        kept_up(get(2), lambda _m: None, once)
    assert exc.value.exit_code == 6 and len(taken) == MEASURE_TRIES
