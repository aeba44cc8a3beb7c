"""testbed.cli.parser and the options every command shares: a walk of every subcommand's
parser (sizes with suffixes and lists, --algo lists, --json and --out on the measuring
commands, --loss where a network is built and a reason where the loss comes from
elsewhere, Mininet's --topo spellings), parsed as typed, --version, no
prefix abbreviations, and an unknown option answered with the subcommand's usage and the
closest option."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from testbed.cli.arguments import Refused
from testbed.cli.main import build_parser, main

# the commands that measure and print a result, and the commands that build a network
MEASURING = ("bcast", "allgather", "osu", "params", "multinode", "pingpong", "calibrate",
             "experiment", "testbed", "bench", "reproduce", "lab")
NETWORK = ("net", "up", "mpirun", "bcast", "allgather", "osu", "params", "multinode",
           "pingpong")
# networks of a spec's, a suite's, a claim's or a lab's making: --loss refused, saying where
# from
LOSS_ELSEWHERE = ("experiment", "testbed", "bench", "reproduce", "calibrate", "lab")
# no network of their own: the machine, the registry, a computation, the active run's
# controller, a results folder
NO_NETWORK = ("doctor", "topo", "cleanup", "report", "controller", "groups", "ports", "fail",
              "restore", "algorithms", "trees", "range-trees")
# what each command needs besides the options walked (positionals, required options)
REQUIRED = {"report": ["results"], "mpirun": ["--", "-m", "prog"], "osu": ["bcast"],
            "fail": ["h3"], "restore": ["3"], "trees": ["binomial", "--t-hold", "1e-5",
                                                     "--t-end", "2e-5"],
            "range-trees": ["--nodes", "16"]}
# the shared options, as a user types them, and what each command's namespace then holds
SHARED = {"--size": (["1K,64KiB"], [1024, 65536]), "--algo": (["nack,binomial"],
                                                              ["nack", "binomial"]),
          "--json": ([], True), "--out": (["kept"], "kept"), "--loss": (["5%"], 0.05),
          "--topo": (["single,4"], "star:hosts=4")}


def _commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    ap = build_parser()
    sub = next(a for a in ap._actions if isinstance(a, argparse._SubParsersAction))
    yield from sub.choices.items()


def _option(parser: argparse.ArgumentParser, name: str) -> argparse.Action | None:
    return next((a for a in parser._actions if name in a.option_strings), None)


def test_every_parser_refuses_prefix_abbreviations() -> None:
    assert build_parser().allow_abbrev is False
    for name, parser in _commands():
        assert parser.allow_abbrev is False, name


@pytest.mark.parametrize(("name", "parser"), list(_commands()))
def test_every_command_takes_the_shared_values_alike(name: str,
                                                     parser: argparse.ArgumentParser) -> None:
    size = _option(parser, "--size")
    if size is not None:  # one size or a list of them, with binary suffixes
        assert size.type is not None
        value = size.type("64KiB")
        assert value in (65536, [65536]), name
        if isinstance(value, list):
            assert size.type("1K,1M") == [1024, 1 << 20]
    algo = _option(parser, "--algo")
    if algo is not None:
        assert algo.type is not None and algo.type("nack,binomial") == ["nack", "binomial"]
    topo = _option(parser, "--topo")
    if topo is not None and topo.type is not None:
        assert topo.type("single,4") == "star:hosts=4", name
    if name in NETWORK:
        loss = _option(parser, "--loss")
        assert loss is not None and loss.type is not None and loss.type("5%") == 0.05, name
        assert topo is not None and topo.type is not None, name
    if name in MEASURING:
        assert _option(parser, "--json") is not None, name
        assert _option(parser, "--out") is not None, name


def test_every_command_is_placed_in_the_walk() -> None:
    """A new command is sorted here first: it builds a network (and takes --loss), takes
    its loss from elsewhere (and says where), or builds none."""
    names = sorted(name for name, _ in _commands())
    assert sorted({*NETWORK, *LOSS_ELSEWHERE, *NO_NETWORK}) == names
    assert not set(NETWORK) & set(LOSS_ELSEWHERE)


@pytest.mark.parametrize(("name", "parser"), list(_commands()))
def test_every_command_parses_every_shared_option_it_takes(
        name: str, parser: argparse.ArgumentParser) -> None:
    """A walk of every subcommand on the command line (argparse, no network): each shared
    option it takes, as a user types it (sizes with suffixes, lists, --json, --out, a
    percentage, Mininet's spelling), lands in its namespace as the command reads it; the
    measuring commands have --json and --out, those that build a network --loss and
    --topo."""
    taken = {option: given for option, given in SHARED.items()
             if _option(parser, option) is not None
             and not isinstance(_option(parser, option), Refused)}
    if name == "controller":  # its --topo is a topology file the testbed wrote, not a shape
        del taken["--topo"]
    if name == "trees":  # trees --size is one size (a schedule's message)
        taken["--size"] = (["64KiB"], 65536)
    required = REQUIRED.get(name, [])  # bcast's and osu's --algo and --size: walked
    argv = [name, *[w for option, (words, _) in taken.items() for w in (option, *words)]]
    # positionals and the program after '--' go last (mpirun's REMAINDER takes the rest)
    args = build_parser().parse_args([*argv, *required])
    for option, (_, value) in taken.items():
        dest = _option(parser, option).dest  # type: ignore[union-attr]
        assert getattr(args, dest) == value, (name, option)
    if name in MEASURING:
        assert {"--json", "--out"} <= set(taken), name
    if name in NETWORK:
        assert {"--loss", "--topo"} <= set(taken), name


@pytest.mark.parametrize("name", LOSS_ELSEWHERE)
def test_a_command_that_takes_its_loss_elsewhere_says_where(
        name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args([name, "--loss", "5%"])
    assert exc.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"mcastlab {name}: error: --loss: not taken here: ")
    assert any(word in line for word in ("sweep.loss", "fix", "without loss", "its lab sets"))


def test_lists_and_suffixes_parse_on_the_command_line() -> None:
    args = build_parser().parse_args(["bcast", "--algo", "nack,binomial", "--size", "64K,1MiB",
                                      "--topo", "linear,3", "--link", "tc,bw=10,loss=1"])
    assert args.algo == ["nack", "binomial"] and args.size == [65536, 1 << 20]
    assert args.topo == "mesh:rows=1,cols=3" and args.link == {"bw": 10.0, "loss": 0.01}
    args = build_parser().parse_args(["params", "--sizes", "1,64K"])
    assert args.size == [1, 65536]
    args = build_parser().parse_args(["osu", "bcast", "--algo", "nack", "-m", "1K:64K"])
    assert args.algo == ["nack"]


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("mcastlab ") and out.split()[1][0].isdigit()


def test_an_abbreviation_is_refused_with_the_command_usage_and_the_closest_option(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["bcast", "--algo", "nack", "--size", "1", "--repetiton", "3"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: mcastlab bcast ")
    assert "mcastlab bcast: error: unrecognized arguments: --repetiton 3 (--repetiton: did " \
           "you mean --repetitions?)" in err
    with pytest.raises(SystemExit):  # a required option misspelt: argparse misses it first
        main(["bcast", "--alg", "nack", "--size", "1"])
    assert ("mcastlab bcast: error: the following arguments are required: --algo (--alg: did "
            "you mean --algo?)") in capsys.readouterr().err


def test_an_unknown_option_far_from_any_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["topo", "star", "--zzzzzz"])
    err = capsys.readouterr().err
    assert err.startswith("usage: mcastlab topo ")
    assert err.rstrip().endswith("error: unrecognized arguments: --zzzzzz")


def test_link_loss_and_loss_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["net", "--loss", "1%", "--link", "tc,loss=2"]) == 2
    assert "--loss and loss= in --link: give the loss once" in capsys.readouterr().err
    assert main(["params", "--bw", "10", "--link", "tc,bw=5"]) == 2
    assert "--bw and bw= in --link: give the rate once" in capsys.readouterr().err
