"""Lab questions, answer files and the check (no network)."""

from __future__ import annotations

import re
import tomllib

import pytest

from testbed.errors import UsageError
from testbed.labs import labs
from testbed.labs.answers import Question, check, load_answers, to_toml
from topologies import parse_spec


def test_number_within_factor_or_abs_tolerance() -> None:
    q = Question("t", "a time", factor=2.0, abs_tol=1.0)
    assert q.accepts(19.9, 10) and q.accepts(5.1, 10) and q.accepts(10, 10)
    assert not q.accepts(20.1, 10) and not q.accepts(4.9, 10)
    assert q.accepts(0.5, 0) and not q.accepts(1.5, 0)  # near zero: the absolute tolerance
    assert not q.accepts(-10, 10) and not q.accepts(float("nan"), 10)
    assert not q.accepts(True, 1) and not q.accepts("10", 10)


def test_int_exact_and_choice_case_insensitive() -> None:
    n = Question("n", "a count", "int")
    assert n.accepts(5, 5) and not n.accepts(6, 5) and not n.accepts(5.5, 5)
    c = Question("c", "a choice", "choice", choices=("yes", "no"))
    assert c.accepts(" Yes", "yes") and not c.accepts("no", "yes") and not c.accepts(1, "yes")


def test_tied_choices_all_count_and_the_key_names_the_first(tmp_path) -> None:
    c = Question("w", "the fastest", "choice", choices=("seq", "bin", "chain"))
    assert c.accepts("bin", ("seq", "bin")) and c.accepts("SEQ", ("seq", "bin"))
    assert not c.accepts("chain", ("seq", "bin"))
    path = tmp_path / "key.toml"
    path.write_text(to_toml(3, [c], {"w": ("seq", "bin")}))
    assert load_answers(path) == {"w": "seq"}
    (verdict,) = check([c], {"w": ("seq", "bin")}, {"w": "chain"})
    assert not verdict.ok and "seq or bin" in verdict.note


def test_bad_question_definitions() -> None:
    with pytest.raises(ValueError):
        Question("x", "?", "text")
    with pytest.raises(ValueError):
        Question("x", "?", "choice")
    with pytest.raises(ValueError):
        Question("x", "?", factor=0.5)


def test_check_reports_missing_wrong_and_unknown_keys() -> None:
    qs = [Question("a", "a", "int"), Question("b.c", "bc", factor=1.5),
          Question("d", "d", "choice", choices=("x", "y"))]
    measured = {"a": 3, "b.c": 10.0, "d": "x"}
    verdicts = {v.key: v for v in check(qs, measured, {"a": 3, "b.c": 20.0, "e": 1})}
    assert verdicts["a"].ok
    assert not verdicts["b.c"].ok and "10" in verdicts["b.c"].note
    assert not verdicts["d"].ok and verdicts["d"].note == "missing"
    assert not verdicts["e"].ok and "no question" in verdicts["e"].note
    wrong_choice = check(qs, measured, {"a": 3, "b.c": 10, "d": "z"})[2]
    assert not wrong_choice.ok and "not one of" in wrong_choice.note


def test_solved_answers_read_back_and_pass(tmp_path) -> None:
    qs = [Question("top", "top", "int"), Question("t_ms.none.binomial", "t", factor=1.5),
          Question("t_ms.hotspot.opt-tree", "t"), Question("ok", "ok", "choice",
                                                           choices=("yes", "no"))]
    measured = {"top": 4, "t_ms.none.binomial": 16.86, "t_ms.hotspot.opt-tree": 1.5e-05,
                "ok": "yes"}
    path = tmp_path / "key.toml"
    path.write_text(to_toml(3, qs, measured))
    given = load_answers(path)
    assert given == measured
    assert all(v.ok for v in check(qs, measured, given))


def test_bad_answer_files(tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("a = = 1\n")
    with pytest.raises(UsageError, match="not valid TOML"):
        load_answers(bad)
    with pytest.raises(UsageError, match="cannot read"):
        load_answers(tmp_path / "missing.toml")


@pytest.mark.parametrize("number", sorted(labs()))
def test_every_lab_has_a_handout_that_asks_its_questions(number: int) -> None:
    lab = labs()[number]
    parse_spec(lab.topology)
    text = lab.path.read_text()
    for head in ("## Goal", "## Background", "## Steps", "## Questions", "## Check"):
        assert head in text, f"{lab.handout} lacks {head}"
    assert f"mcastlab lab {number} --check" in text
    # the answer template in the handout is valid TOML and names exactly the lab's keys
    block = re.search(r"## Questions\n.*?```toml\n(.*?)```", text, re.S)
    assert block, f"{lab.handout}: no toml answer template under ## Questions"
    template = load_answers_text(block.group(1))
    assert set(template) == {q.key for q in lab.questions}


def load_answers_text(text: str) -> dict:
    from testbed.labs.answers import flatten

    data = tomllib.loads(text)
    data.pop("lab", None)
    return flatten(data)


def test_lab3_winner_is_judged_by_the_students_own_numbers() -> None:
    from testbed.labs.trees import LAB
    q = next(q for q in LAB.questions if q.key == "winner_small")
    # the model at 1 B on 4 ranks: sequential 2 h + e against binomial 2 e (h < e): h well
    # below e makes sequential fastest, h near e binomial; chain (3 e) never within the tie
    assert winner_small(q, {"t_hold_us": 13.0, "t_end_us": 100.0}) == ("sequential",)
    assert winner_small(q, {"t_hold_us": 60.0, "t_end_us": 70.0})[0] == "binomial"
    measured = {"winner_small": ("sequential",)}
    own = {"t_hold_us": 60.0, "t_end_us": 70.0, "winner_small": "binomial"}
    verdict = check([q], measured, own)[0]
    assert verdict.ok  # the check's run said sequential; the student's numbers say binomial
    verdict = check([q], measured, own | {"winner_small": "chain"})[0]
    assert not verdict.ok and "your own answers give binomial" in verdict.note
    verdict = check([q], measured, {"t_hold_us": "?", "winner_small": "binomial"})[0]
    assert not verdict.ok and "the testbed measured sequential" in verdict.note


def winner_small(q: Question, given: dict) -> tuple[str, ...]:
    assert q.judge is not None
    return q.judge(given)
