"""testbed.labs.lab: every lab's handout states its duration, prerequisites and objectives,
has a lab's sections and its check command, the expected output of every step, and an
answer template that is valid TOML naming exactly the lab's questions (and the student), and
how a student opens their variant."""

from __future__ import annotations

import re
import tomllib

import pytest

from testbed.labs import labs
from testbed.labs.answers import STUDENT, answers_of
from topologies import parse_spec


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
    data = tomllib.loads(block.group(1))
    assert data["lab"] == number and STUDENT in data
    assert set(answers_of(data)) == {q.key for q in lab.questions}


@pytest.mark.parametrize("number", sorted(labs()))
def test_every_handout_says_how_long_what_first_what_for_and_what_each_step_prints(
        number: int) -> None:
    text = labs()[number].path.read_text()
    head = text.split("## Goal")[0]
    for field in ("**Duration:**", "**Prerequisites:**", "**Objectives:**"):
        assert field in head, f"{labs()[number].handout} lacks {field} before its goal"
    steps = text.split("## Steps\n")[1].split("\n## ")[0]
    numbered = re.split(r"^\d+\. ", steps, flags=re.M)[1:]
    assert numbered, "no numbered steps"
    for i, step in enumerate(numbered, 1):
        assert "*Expected output*" in step, f"{labs()[number].handout}: step {i} says not " \
                                            "what it prints"


@pytest.mark.parametrize("number", sorted(n for n, lab in labs().items() if lab.variants))
def test_a_lab_with_variants_tells_the_student_how_to_open_theirs(number: int) -> None:
    """docs/labs.md, "Variants per student": the handout says how to open one's variant,
    and its answer template has the variant line to fill in."""
    text = labs()[number].path.read_text()
    setup = text.split("## Set-up\n")[1].split("\n## ")[0]
    assert "**Your variant.**" in setup
    flat = " ".join(setup.split())
    assert f"sudo .venv/bin/mcastlab lab {number} --variant lab{number}-YOU.toml" in flat
    assert f"--variant lab{number}-YOU.toml --check answers.toml" in flat
    block = re.search(r"## Questions\n.*?```toml\n(.*?)```", text, re.S)
    assert block and tomllib.loads(block.group(1))["variant"] == ""
    if labs()[number].spec is not None:  # lab 5: the student's experiment spec
        assert f"--variant lab{number}-YOU.toml --spec my-lab{number}.toml" in flat
