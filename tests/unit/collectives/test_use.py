"""collectives.use (`python -m collectives.use`): options as JSON values or text, the command
line naming the program and the choice, the environment deciding without flags, and a wrong
command line as one message."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from collectives import executor, use
from collectives.algorithms import DEFAULTS, NATIVE
from testbed.cli import measure

ROOT = Path(__file__).resolve().parents[3]


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


def test_every_entry_point_runs_the_same_defaults(monkeypatch):
    """Unnamed, a collective is MPICH's own in the functions, the drop-in communicator,
    python -m collectives.use and mcastlab mpirun alike (collectives.algorithms.DEFAULTS,
    docs/dropin.md "Defaults")."""
    assert DEFAULTS == {"bcast": NATIVE, "barrier": NATIVE, "allgather": NATIVE}
    functions = {"bcast": executor.bcast, "barrier": executor.barrier,
                 "allgather": executor.allgather, "allgatherv": executor.allgatherv}
    for name, function in functions.items():
        default = inspect.signature(function).parameters["algorithm"].default
        assert default == DEFAULTS[name.removesuffix("v")], name
    # Intracomm's (importing collectives.intracomm starts MPI: read from its source)
    tree = ast.parse((ROOT / "collectives" / "intracomm.py").read_text())
    init = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)
                and n.name == "__init__")
    given = dict(zip([a.arg for a in init.args.args][-3:],
                     [ast.unparse(d) for d in init.args.defaults][-3:], strict=True))
    assert given == {"bcast": "DEFAULT_BCAST", "barrier": "DEFAULT_BARRIER",
                     "allgather": "DEFAULT_ALLGATHER"}
    for var in (use.ENV_BCAST, use.ENV_BARRIER, use.ENV_ALLGATHER, use.ENV_OPTIONS):
        monkeypatch.delenv(var, raising=False)
    args, _ = use.parse(["--", "prog.py"])
    assert (args.bcast, args.barrier, args.allgather) == (
        DEFAULTS["bcast"], DEFAULTS["barrier"], DEFAULTS["allgather"])
    assert inspect.signature(use.install).parameters["allgather"].default == \
        DEFAULTS["allgather"]
    mpirun = measure.mpirun_program(["-m", "prog"], None, None, None, [])
    assert mpirun == ["-m", "prog"]  # nothing named: the program as it is, MPICH's own
    assert measure.mpirun_program(["p.py"], None, None, "bruck", []) == [
        "-m", "collectives.use", "--bcast", DEFAULTS["bcast"], "--barrier",
        DEFAULTS["barrier"], "--allgather", "bruck", "--", "p.py"]
