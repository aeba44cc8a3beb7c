"""docs/tutorial.md's commands exist as written: every `mcastlab ...` command line in it (the
`$ ` lines of its examples and the commands quoted in its text) parses with the real
parser (testbed.cli.main.build_parser, nothing is run), with no old spelling of an option
(those still work, with a note on stderr, but a newcomer should learn the new ones); every
command typed at its `mcastlab>` prompt is one the prompt has (testbed/cli/interactive.py,
read from the source)."""

from __future__ import annotations

import ast
import contextlib
import io
import re
import shlex
import tomllib
from pathlib import Path

import pytest

from testbed.cli.main import build_parser
from testbed.experiments.kinds import from_dict

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "docs" / "tutorial.md"
COMMAND = re.compile(r"^(?:sudo )?(?:\S*/)?mcastlab (.+)$")


def _commands(text: str) -> list[str]:
    """The mcastlab command lines of `text`: `$ ` lines in code blocks, and code spans of
    the prose that hold a whole command (a span with `...` in it is a pattern, not one)."""
    found: list[str] = []
    blocks = re.findall(r"^```[a-z]*\n(.*?)^```", text, flags=re.S | re.M)
    for block in blocks:
        found += [line[2:] for line in block.splitlines() if line.startswith("$ ")]
    prose = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for span in re.findall(r"`([^`]+)`", prose):
        span = " ".join(span.split())
        if "..." not in span:
            found.append(span)
    return [c for c in found if COMMAND.match(c)]


COMMANDS = _commands(TUTORIAL.read_text())


def test_the_tutorial_takes_the_newcomer_through_every_step() -> None:
    """doctor, topo, net, bcast, an experiment of their own, calibrate."""
    verbs = {shlex.split(COMMAND.match(c)[1])[0] for c in COMMANDS}  # type: ignore[index]
    assert {"doctor", "topo", "net", "bcast", "experiment", "calibrate"} <= verbs


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_parses_with_no_old_spelling(command: str) -> None:
    argv = shlex.split(COMMAND.match(command)[1])  # type: ignore[index]
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            build_parser().parse_args(argv)
        except SystemExit as e:
            if e.code != 0 or "--help" not in argv:
                pytest.fail(f"{command!r} does not parse: {err.getvalue().strip()} ({e.code})")
    assert "note:" not in err.getvalue(), err.getvalue()


def _prompt_commands() -> set[str]:
    tree = ast.parse((ROOT / "testbed" / "cli" / "interactive.py").read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "McastCLI")
    return {f.name[3:] for f in cls.body
            if isinstance(f, ast.FunctionDef) and f.name.startswith("do_")} | {"exit", "help"}


def test_every_prompt_command_exists() -> None:
    typed = [line.split()[1] for line in TUTORIAL.read_text().splitlines()
             if line.startswith("mcastlab> ")]
    assert len(typed) >= 5
    assert sorted(set(typed) - _prompt_commands()) == []


def test_the_spec_in_the_tutorial_is_valid() -> None:
    """The ten-line spec, checked as `mcastlab experiment my.toml --list` checks it."""
    text = TUTORIAL.read_text()
    spec = re.search(r"^```toml\n(.*?)^```", text, flags=re.S | re.M)
    assert spec is not None
    assert len(spec[1].strip().splitlines()) <= 12
    assert len(from_dict(tomllib.loads(spec[1])).points()) == 6
