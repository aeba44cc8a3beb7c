"""collectives.use (`python -m collectives.use`): options as JSON values or text, the command
line naming the program and the choice, the environment deciding without flags, and a wrong
command line as one message."""

from __future__ import annotations

import pytest

from collectives import use


def test_options_are_json_values_or_text():
    assert use.option("t_hold=2e-5") == ("t_hold", 2e-5)
    assert use.option("mesh=[4, 4]") == ("mesh", [4, 4])
    assert use.option("tree=optimal") == ("tree", "optimal")
    assert use.option("rate=null") == ("rate", None)
    for bad in ("t_hold", "=3", "a b=1"):
        with pytest.raises(Exception, match="NAME=VALUE"):
            use.option(bad)


def test_the_command_line_names_the_program_and_the_choice(monkeypatch):
    for var in (use.ENV_BCAST, use.ENV_BARRIER, use.ENV_ALLGATHER, use.ENV_OPTIONS):
        monkeypatch.delenv(var, raising=False)
    args, prog = use.parse(["--bcast", "opt-tree", "-o", "t_hold=1e-5", "-o", "t_end=3e-5",
                            "--", "prog.py", "--bcast", "x"])
    assert (args.bcast, args.barrier) == ("opt-tree", use.DEFAULT_BARRIER)
    assert args.allgather == use.DEFAULT_ALLGATHER == "mpich"  # MPICH's own unless chosen
    assert args.options == {"t_hold": 1e-5, "t_end": 3e-5}
    assert prog == ["prog.py", "--bcast", "x"]  # the program's own arguments stay its own
    args, _ = use.parse(["--allgather", "bruck", "--", "prog.py"])
    assert args.allgather == "bruck"
    _, prog = use.parse(["--", "-m", "pkg.mod", "-v"])
    assert prog == ["-m", "pkg.mod", "-v"]


def test_the_environment_decides_without_flags(monkeypatch):
    monkeypatch.setenv(use.ENV_BCAST, "two-stage")
    monkeypatch.setenv(use.ENV_BARRIER, "tree")
    monkeypatch.setenv(use.ENV_OPTIONS, '{"fragment": 1024}')
    monkeypatch.setenv(use.ENV_ALLGATHER, "ring")
    args, _ = use.parse(["--", "prog.py"])
    assert (args.bcast, args.barrier, args.options) == ("two-stage", "tree", {"fragment": 1024})
    assert args.allgather == "ring"
    args, _ = use.parse(["--bcast", "nack", "-o", "timeout=2", "--", "prog.py"])
    assert (args.bcast, args.options) == ("nack", {"timeout": 2})  # flags win


@pytest.mark.parametrize("argv, env, words", [
    ([], None, "give the program after '--'"),
    (["--", "-m"], None, "give the program after '--'"),
    (["--", "p.py"], "[1, 2]", "must be a JSON object"),
])
def test_a_wrong_command_line_is_one_message(argv, env, words, monkeypatch, capsys):
    monkeypatch.delenv(use.ENV_OPTIONS, raising=False)
    if env:
        monkeypatch.setenv(use.ENV_OPTIONS, env)
    with pytest.raises(SystemExit) as e:
        use.parse(argv)
    assert e.value.code == 2 and words in capsys.readouterr().err
