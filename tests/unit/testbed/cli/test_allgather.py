"""testbed.cli.allgather without a network: --algo read against the registry, and the table
`mcastlab allgather` prints (floor, model, frames, flags, the link rate)."""

from __future__ import annotations

import argparse

import pytest

from testbed.cli.allgather import algorithms, print_table
from testbed.cli.values import names
from testbed.errors import UsageError
from testbed.fidelity.link_rate import LinkRate
from testbed.measure.allgather import AllgatherResult
from testbed.measure.times import Times


def test_algorithms_by_name_each_once():
    assert [c.algorithm for c in algorithms(names("ring, bruck"))] == ["ring", "bruck"]
    with pytest.raises(UsageError, match="--algo: unknown allgather 'fast'; choose from mpich, "):
        algorithms(["fast"])
    with pytest.raises(argparse.ArgumentTypeError, match="names separated by commas"):
        names(" , ")
    with pytest.raises(argparse.ArgumentTypeError, match="a name is given twice"):
        names("ring,bruck,ring")


def _row(algo, median, flags=()):
    return AllgatherResult(algorithm=algo, block=65536, ranks=5, repetitions=4,
                           t=Times.constant(median), verified=True, floor_s=0.1,
                           predicted_s=None if algo == "mpich" else 0.11,
                           fidelity={"flags": list(flags)}, window=(0.0, 1.0),
                           frames={"data": 918.0}, frames_expected=None if algo == "mpich"
                           else 920)


def test_the_table(capsys):
    print_table([_row("mpich", 0.143), _row("ring", 0.14, flags=["hosts waited"])],
                "star-5", 5, LinkRate(20.0, 20.0, False, "given"))
    out = capsys.readouterr().out
    assert "Allgather of 64 KiB blocks on 5 ranks of star-5 (floor (p-1)m/B = 100.00 ms)" in out
    assert "1.43" in out and "140.00 !" in out and "hosts waited" in out
    assert "110.00" in out and "920" in out and "918" in out
    assert "! flagged: the emulator did not keep up" in out and "links at 20 Mbit/s" in out
