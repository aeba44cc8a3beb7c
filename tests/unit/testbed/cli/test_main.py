"""testbed.cli.main without a network: argument errors exit 2 in one line (a bad completion
among them), help lists every command, the parser's defaults and choices, and `run` only on
errors raised before any network starts."""

from __future__ import annotations

import argparse

import pytest

from testbed.cli.main import build_parser, main
from topologies import parse_spec

from .error_lines import _one_error_line


def _one_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    return _one_error_line(err)


def test_the_command_line_refuses_bad_completions(capsys: pytest.CaptureFixture[str]) -> None:
    assert "nack has no completion (a scout broadcast's)" in _one_error(
        ["bcast", "--algo", "nack", "--size", "1", "--completion", "none"], capsys)
    with pytest.raises(SystemExit) as exc:  # argparse's choices: usage, then the error
        main(["bcast", "--algo", "scout-linear", "--size", "1", "--completion", "silent"])
    assert exc.value.code == 2 and "invalid choice: 'silent'" in capsys.readouterr().err
    assert "completion must be one of report, none, got 'silent'" in _one_error(
        ["mpirun", "--bcast", "scout-linear", "-o", "completion=silent", "--", "-m", "x"],
        capsys)


# ---- argument errors (argparse) ---------------------------------------------------------
@pytest.mark.parametrize("argv", [[], ["topo", "--topo"], ["nosuchcommand"],
                                  ["mpirun", "--np", "many"], ["topo", "star", "--bogus"]])
def test_argument_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "mcastlab" in err and "error:" in err
    assert "Traceback" not in err


def test_topo_takes_the_topology_as_every_command_does(capsys) -> None:
    assert main(["topo", "--topo", "star:hosts=3"]) == 0
    assert main(["topo", "star:hosts=3"]) == 0
    assert capsys.readouterr().out.count("3 hosts") == 2
    assert main(["topo"]) == 2
    assert main(["topo", "star", "--topo", "mesh:rows=2,cols=2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mcastlab: error: give the topology: mcastlab topo --topo SPEC (or topo SPEC)",
                   "mcastlab: error: two topologies: star and --topo mesh:rows=2,cols=2"]


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for command in ("doctor", "topo", "up", "mpirun", "experiment", "testbed", "pingpong",
                    "cleanup", "bench"):
        assert command in out


def test_parser_defaults() -> None:
    args = build_parser().parse_args(["mpirun", "--", "-m", "collectives.programs.pingpong"])
    assert (args.topo, args.np, args.ppn, args.hosts, args.timeout) == ("star", None, 1, None,
                                                                         300.0)
    assert args.program[-2:] == ["-m", "collectives.programs.pingpong"]
    args = build_parser().parse_args(["testbed"])
    assert (args.out, args.spec) == ("results", None)  # experiments/default.toml
    args = build_parser().parse_args(["pingpong"])
    assert (args.out, args.repetitions) == ("results", 50)
    parse_spec(args.topo)  # the ping-pong's topology is a valid spec


def test_run_with_a_spec_is_an_experiment(capsys) -> None:
    from testbed.cli.main import _is_experiment

    # the old spelling, `mcastlab run`, told the two commands apart by their arguments
    assert _is_experiment(["run", "experiments/default.toml"])
    assert _is_experiment(["run", "--resume", "results/x"])
    assert not _is_experiment(["run", "--topo", "star", "--", "-m", "x.pingpong"])
    assert not _is_experiment(["run", "--", "x.toml"])  # a program's argument stays one
    assert main(["run", "experiments/default.toml", "--list"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("mcastlab: note: 'mcastlab run' is now 'mcastlab experiment'")
    assert out.startswith("default: 32 points on star-16 (16 hosts)")
    assert main(["experiment", "experiments/default.toml", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("default: 32 points on star-16 (16 hosts)")
    assert "nack               256 KiB  16 hosts" in out
    assert "mpich               64 KiB  2 hosts" in out
    assert main(["experiment", "experiments/study.toml", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("study: 96 points on star")
    assert "dyn-tree" in out and "1 MiB" in out and "traffic=background" in out


def test_the_listing_says_which_packets_each_points_loss_drops(
        tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "scopes.toml"
    sweep = ('algorithms = ["binomial"]\nsizes = [1024]\nloss = [0.0, 0.05]\n'
             'loss_scope = ["multicast", "all"]\n')
    spec.write_text(f'name = "s"\n[network]\ntopology = "star:hosts=4"\n[sweep]\n{sweep}')
    assert main(["experiment", str(spec), "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("s: 3 points on star-4")
    assert lines[1].rstrip().endswith("4 hosts") and "loss" not in lines[1]  # no scope
    assert lines[2].endswith("loss=0.05 (multicast datagrams)")
    assert lines[3].endswith("loss=0.05 (every packet)")
    allgather = tmp_path / "ag.toml"
    allgather.write_text(f'name = "a"\ncollective = "allgather"\n[network]\n'
                         f'topology = "star:hosts=4"\n[sweep]\n{sweep.replace("binomial", "ring")}')
    assert main(["experiment", str(allgather), "--list"]) == 0
    assert capsys.readouterr().out.splitlines()[3].endswith("loss=0.05 (every packet)")


# ---- run: only errors raised before any network starts ----------------------------------
# The topology is deliberately invalid as well: should the program check ever move after
# parse_spec, these tests fail on the message instead of bringing a network up.
@pytest.mark.parametrize("argv", [["mpirun", "--topo", "nosuchshape"],
                                  ["mpirun", "--topo", "nosuchshape", "--"],
                                  ["mpirun", "--topo", "nosuchshape", "--np", "2", "--"]])
def test_run_without_a_program_is_a_usage_error(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "give the program after '--'" in _one_error_line(err)


def test_run_with_a_bad_topology_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mpirun", "--topo", "nosuchshape", "--", "-m", "collectives.programs.pingpong"]) \
        == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "unknown topology shape 'nosuchshape'" in _one_error_line(err)


def test_bcast_flow_benchmark_is_automatic_unless_asked():
    parse = build_parser().parse_args
    base = ["bcast", "--algo", "nack", "--size", "1024"]
    assert parse(base).flow is None  # on without loss, skipped (with a message) under it
    assert parse([*base, "--no-flow"]).flow is False
    assert parse([*base, "--flow", "--loss", "0.1"]).flow is True


def test_bcast_late_and_loss_scope_choices(capsys: pytest.CaptureFixture[str]) -> None:
    parse = build_parser().parse_args
    base = ["bcast", "--algo", "two-stage", "--size", "65536"]
    assert parse(base).late is None
    assert parse([*base, "--late", "receivers:157"]).late == ("receivers", 157.0)
    assert parse([*base, "--loss-scope", "multicast-in"]).loss_scope == "multicast-in"
    for bad in ("sideways:5", "root:", "root:-1", "root:20000"):
        with pytest.raises(SystemExit) as exc:
            parse([*base, "--late", bad])
        assert exc.value.code == 2
        assert "expected root:MS or receivers:MS" in capsys.readouterr().err


def test_every_option_with_a_default_shows_it_in_its_help() -> None:
    """A default a user cannot see is a surprise: every option that has one (not off, not
    empty, not a switch) says it in its --help line, as '(default ...)'."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    silent = [f"{name} {a.option_strings[-1]} (default {a.default!r})"
              for name, p in sub.choices.items() for a in p._actions
              if a.option_strings and a.help != argparse.SUPPRESS and a.nargs != 0
              and a.default not in (None, "", (), [], argparse.SUPPRESS)
              and "default" not in (a.help or "")]
    assert silent == []
