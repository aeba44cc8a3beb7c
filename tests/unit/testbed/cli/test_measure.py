"""testbed.cli.measure without a network: the fidelity comments `mcastlab osu` prints after
the OSU lines, and which hosts `mcastlab mpirun` runs on (--hosts a count, --host-names
which)."""

import argparse

import pytest

from testbed.cli.measure import fidelity_lines, job_hosts
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
