"""The switch kinds are one choice table (testbed.emulation.switching): the same words on
every command that builds a network, in specs and in Emulation, each kind's traits read from
its row."""

from __future__ import annotations

import argparse

import pytest

from testbed.cli.main import build_parser, main
from testbed.emulation.network import Emulation
from testbed.emulation.switching import SWITCHES, switch_kind
from testbed.errors import UsageError
from testbed.experiments.kinds import from_dict
from testbed.experiments.spec import SWITCHING, SpecError
from topologies import parse_spec

from .machines import caps

NETWORK_COMMANDS = ["up", "net", "mpirun", "bcast", "osu", "params"]


def _subparser(name: str) -> argparse.ArgumentParser:
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


@pytest.mark.parametrize("command", NETWORK_COMMANDS)
def test_every_network_command_takes_the_tables_words(command: str) -> None:
    (opt,) = [a for a in _subparser(command)._actions if "--switch" in a.option_strings]
    assert tuple(opt.choices) == tuple(SWITCHES) and opt.default == "controller"
    assert all(k.help in opt.help for k in SWITCHES.values())


def test_specs_take_the_same_words() -> None:
    assert tuple(SWITCHES) == SWITCHING
    with pytest.raises(SpecError, match="network.switching"):
        from_dict({"network": {"topology": "star:hosts=4", "switching": "ovs_snooping"},
                   "sweep": {"algorithms": ["binomial"], "sizes": [1]}})
    spec = from_dict({"network": {"topology": "star:hosts=4", "switching": "flooding"},
                      "sweep": {"algorithms": ["binomial"], "sizes": [1]}})
    assert spec.switching == "flooding"


def test_each_kind_is_what_its_row_says() -> None:
    traits = {name: (k.controller, k.kernel, k.snooping, k.hub, k.one_machine, k.fail_mode)
              for name, k in SWITCHES.items()}
    assert traits == {
        "controller": (True, False, False, False, False, "secure"),
        "ovs-snooping": (False, False, True, False, False, "standalone"),
        "flooding": (False, False, False, False, False, "standalone"),
        "hub": (False, False, False, True, True, "secure"),
        "linux-bridge": (False, True, False, False, True, "standalone")}
    for name, kind in SWITCHES.items():
        emu = Emulation(parse_spec("star:hosts=3"), caps=caps(ingress_shaping=True),
                        switch=name)
        assert emu.switch is kind and switch_kind(name) is kind
        assert (emu.standalone, emu.hub, emu.linux_bridge, emu.ovs_snooping) == (
            not kind.controller, kind.hub, kind.kernel, kind.snooping)


def test_an_unknown_kind_is_one_clear_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(UsageError, match="unknown switch kind 'ovs'; choose from controller"):
        switch_kind("ovs")
    with pytest.raises(SystemExit) as exc:  # argparse's refusal
        main(["up", "--switch", "ovs"])
    assert exc.value.code == 2
    assert "argument --switch: invalid choice: 'ovs'" in capsys.readouterr().err


def test_a_controller_mode_needs_the_controller(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["up", "--switch", "flooding", "--mode", "contiguous"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["mcastlab: error: --mode contiguous is the controller's: it needs "
                   "--switch controller"]
