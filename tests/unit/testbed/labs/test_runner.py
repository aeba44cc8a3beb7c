"""testbed.labs.runner: a lab's answers are judged only against a measurement the emulator
kept up with (kept_up; the measurement itself is taken on Mininet in the labs' integration
test; here the rule around it); a check shows the measured value of a wrong answer only with
the instructor secret, and with --marks-only never: pass/fail and why, nothing measured."""

from __future__ import annotations

from typing import Any

import pytest

from testbed.cli.main import main
from testbed.errors import NotKeptUp
from testbed.labs import runner, secret
from testbed.labs.answers import Question, check
from testbed.labs.runner import MEASURE_TRIES, get, kept_up, verdict_lines


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


def test_marks_only_lines_name_no_measured_value() -> None:
    qs = [Question("n", "a count", "int"), Question("t", "a time", factor=2.0),
          Question("c", "a choice", "choice", choices=("yes", "no")), Question("m", "?")]
    verdicts = check(qs, {"n": 7, "t": 123.456, "c": "yes", "m": 1.0},
                     {"n": 3, "t": 999.0, "c": "no", "x": 1})
    full = "\n".join(verdict_lines("f", verdicts))
    assert "measured 7" in full and "123.5" in full  # the instructor's view
    marks = verdict_lines("f", verdicts, marks_only=True)
    assert marks == ["f: 0 of 5 right", "  NO  n = 3   wrong (exact)",
                     "  NO  t = 999.0   wrong (within x2)", "  NO  c = no   wrong",
                     "  NO  m = -   missing", "  NO  x = 1   answers no question of this lab"]


LAB1 = get(1)
MEASURED: dict[str, Any] = {q.key: 5 if q.kind == "int" else 2.5 for q in LAB1.questions}


@pytest.mark.parametrize(("with_secret", "marks_only", "shows_values"), [
    (False, False, False), (False, True, False), (True, False, True), (True, True, False)])
def test_a_check_shows_measured_values_to_the_instructor_only(
        tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        with_secret: bool, marks_only: bool, shows_values: bool) -> None:
    monkeypatch.setattr(runner, "kept_up", lambda _lab, _p: dict(MEASURED, fidelity=[]))
    monkeypatch.delenv(secret.ENV_FILE, raising=False)
    if with_secret:
        monkeypatch.setenv(secret.ENV, "k" * 32)
    else:
        monkeypatch.delenv(secret.ENV, raising=False)
    answers = tmp_path / "a.toml"
    answers.write_text("member_frames = 4\nbuckets = 5\n")
    argv = ["lab", "1", "--check", str(answers)] + (["--marks-only"] if marks_only else [])
    assert main(argv) == 5
    out, err = capsys.readouterr()
    assert "NO  member_frames = 4" in out and "ok  buckets = 5" in out
    assert ("the testbed measured 5" in out) == shows_values
    if not shows_values:
        assert "NO  member_frames = 4   wrong (exact)" in out and "testbed measured" not in out
    assert ("marks only: the measured value" in err) == (not with_secret and not marks_only)
