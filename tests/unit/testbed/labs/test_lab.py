"""testbed.labs.lab: every lab's handout has a lab's sections and its check command, and an
answer template that is valid TOML naming exactly the lab's questions."""

from __future__ import annotations

import re
import tomllib

import pytest

from testbed.labs import labs
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
    template = load_answers_text(block.group(1))
    assert set(template) == {q.key for q in lab.questions}


def load_answers_text(text: str) -> dict:
    from testbed.labs.answers import flatten

    data = tomllib.loads(text)
    data.pop("lab", None)
    return flatten(data)
