"""testbed.emulation.link_setup: the commands it runs in each host's shell (one string, as
Mininet's node.cmd takes it) quote the run's folder (issue 53): a state folder with a space
or a `;` (MCASTLAB_STATE_DIR names any) stays one word, and runs nothing. Checked with the
real sh: `set --` in place of the command puts the words sh split it into in "$@". The links
are shaped from the values handed in (testbed.emulation.wiring), no Emulation: commands
recorded where they would run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from testbed.emulation.link_setup import LinkSetup, name_files, tc_batch
from testbed.emulation.servers import OneMachine
from testbed.emulation.wiring import Started, Wiring
from testbed.errors import UsageError
from testbed.specs.cluster import LOCAL
from topologies import parse_spec

from .machines import Recorder, Shell, caps


def words(command: str, cwd: Path) -> list[str]:
    """The words sh splits `command` into (its first word, the program, left out)."""
    _program, rest = command.split(" ", 1)
    out = subprocess.run(["sh", "-c", f'set -- {rest}; printf "%s\\n" "$@"'], cwd=cwd,
                         capture_output=True, text=True, check=True, timeout=10)
    return out.stdout.splitlines()


def test_a_state_folder_with_a_space_or_a_semicolon_stays_one_word(tmp_path: Path) -> None:
    run_dir = tmp_path / "state dir; touch pwned $(touch pwned2)" / "run-1"
    assert [words(c, tmp_path) for c in name_files(run_dir)] == [
        ["--bind", str(run_dir / "hosts"), "/etc/hosts"],
        ["--bind", str(run_dir / "resolv.conf"), "/etc/resolv.conf"]]
    batch = run_dir / "tc-h1.batch"
    assert words(tc_batch(batch), tmp_path) == ["-batch", str(batch)]
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # nothing else ran


def test_a_plain_state_folder_is_written_as_before() -> None:
    assert name_files(Path("/run/mcastlab/r1")) == [
        "mount --bind /run/mcastlab/r1/hosts /etc/hosts",
        "mount --bind /run/mcastlab/r1/resolv.conf /etc/resolv.conf"]
    assert tc_batch(Path("/run/mcastlab/r1/tc-h1.batch")) == \
        "tc -batch /run/mcastlab/r1/tc-h1.batch"


def test_links_are_shaped_from_the_values_handed_in(tmp_path: Path) -> None:
    """LinkSetup takes a Wiring, a Started run and the topology, not an Emulation: the
    switch ends' tc lines go to the server's runner, each host's commands to its shell, and
    a retune changes the rates of the same links in place."""
    spread = OneMachine()
    runner = spread.runners[LOCAL] = Recorder()
    shells = {"h0": Shell(), "h1": Shell()}
    topo = parse_spec("star:hosts=2,bw=10")
    links = LinkSetup(Wiring(caps(), spread, control=False))
    links.configure(topo, set(), Started("r1", tmp_path, shells.__getitem__),
                    {LOCAL: ["s1-eth1", "s1-eth2"]})
    (tc_argv, tc_lines), (sysctl_argv, _) = runner.ran
    assert tc_argv == ["tc", "-batch", "-"] and "s1-eth1" in tc_lines and "s1-eth2" in tc_lines
    assert sysctl_argv[-2:] == ["net.ipv6.conf.s1-eth1.disable_ipv6=1",
                                "net.ipv6.conf.s1-eth2.disable_ipv6=1"]
    for name, shell in shells.items():
        (line,) = shell.lines
        assert line.startswith(" && ".join(name_files(tmp_path)))
        assert tc_batch(tmp_path / f"tc-{name}.batch") in line
    runner.ran.clear()
    links.retune(topo, parse_spec("star:hosts=2,bw=20"), set(),
                 Started("r1", tmp_path, shells.__getitem__))
    ((argv, lines),) = runner.ran
    assert [ln.split()[3] for ln in lines.splitlines()] == ["s1-eth1", "s1-eth2"]
    assert {ln.split(" rate ")[1].split()[0] for ln in lines.splitlines()} == {"20mbit"}
    assert " rate 20mbit " in (tmp_path / "tc-h0-retune.batch").read_text()
    assert shells["h0"].lines[-1].startswith(tc_batch(tmp_path / "tc-h0-retune.batch"))
    with pytest.raises(UsageError, match="retune changes rates only"):
        links.retune(topo, parse_spec("star:hosts=3,bw=20"), set(),
                     Started("r1", tmp_path, shells.__getitem__))
