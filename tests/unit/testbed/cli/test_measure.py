"""testbed.cli.measure without a network: the fidelity comments `mcastlab osu` prints after
the OSU lines, and which hosts `mcastlab mpirun` runs on (--hosts a count, --host-names
which)."""

import argparse

import pytest

from testbed.cli.main import build_parser
from testbed.cli.measure import fidelity_lines, job_hosts, mpirun_program
from testbed.errors import UsageError
from testbed.experiments.osu import OsuRow
from topologies import parse_spec


def test_osu_fidelity_lines_name_each_flagged_row() -> None:
    def row(size: int | None, *flags: str) -> OsuRow:
        return OsuRow(size=size, avg_us=10.0, min_us=9.0, max_us=11.0, iterations=100,
                      skip=10, window=(0.0, 1.0), wait_per_turn_s=None,
                      fidelity={"flags": list(flags)}, line="")

    assert fidelity_lines([row(1), row(2)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(None)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(1), row(65536, "switch waited", "a link short")]) == [
        "# fidelity 65536: switch waited; a link short (not a result: the emulator did not "
        "keep up)", "# fidelity: the other rows kept up (no flag)"]
    assert fidelity_lines([row(None, "hosts waited")]) == [
        "# fidelity: hosts waited (not a result: the emulator did not keep up)"]


def test_mpirun_hosts_is_a_count_and_host_names_names_them(capsys) -> None:
    topo = parse_spec("star:hosts=4")

    def hosts(count: str | None = None, names: str | None = None) -> list[str] | None:
        return job_hosts(argparse.Namespace(hosts=count, host_names=names), topo)

    assert hosts() is None and hosts("2") == ["h0", "h1"] and hosts(None, "h3,1") == ["h3", "1"]
    assert capsys.readouterr().err == ""
    assert hosts("h2,h0") == ["h2", "h0"]  # the old spelling: names under --hosts, noted
    assert "--hosts takes a count now" in capsys.readouterr().err
    with pytest.raises(UsageError, match="not both"):
        hosts("2", "h0,h1")
    with pytest.raises(UsageError, match="--hosts 5: star-4 has 4 hosts"):
        hosts("5")


def test_mpirun_bcast_changes_the_broadcast_only() -> None:
    """--bcast mpich is plain MPICH (the barrier too: once it switched to mcast); each flag
    names its own collective, the others stay MPICH's own."""
    for bcast in ("mpich", "nack", "binomial"):
        prog = mpirun_program(["p.py"], bcast, None, None, [])
        assert prog == ["-m", "collectives.use", "--bcast", bcast, "--barrier", "mpich",
                        "--allgather", "mpich", "--", "p.py"]
    assert mpirun_program(["p.py"], None, "mcast", None, [])[3:8] == [
        "mpich", "--barrier", "mcast", "--allgather", "mpich"]


def test_mpirun_allgather_runs_the_programs_allgathers_with_one_of_ours() -> None:
    prog = mpirun_program(["-m", "x"], None, None, "mcast-concurrent", [("timeout", 2.0)])
    assert prog == ["-m", "collectives.use", "--bcast", "mpich", "--barrier", "mpich",
                    "--allgather", "mcast-concurrent", "-o", "timeout=2.0", "--", "-m", "x"]
    with pytest.raises(UsageError, match="unknown allgather 'fast'; choose from mpich, ring"):
        mpirun_program(["p.py"], None, None, "fast", [])
    with pytest.raises(UsageError, match="speed: an option of none of mpich, mpich and ring"):
        mpirun_program(["p.py"], None, None, "ring", [("speed", 2.0)])
    args = build_parser().parse_args(["mpirun", "--allgather", "bruck", "--", "-m", "x"])
    assert args.allgather == "bruck"
