"""testbed.cli.bcast without a network: --hosts as one count or a sweep of counts, and the
sweep's table, where a flagged run feeds no ratio."""

import argparse

import pytest

from testbed.cli.arguments import host_counts
from testbed.cli.bcast import print_sweep
from testbed.fidelity.link_rate import LinkRate


def test_host_counts() -> None:
    assert host_counts("4") == (4,) and host_counts("2,4,16") == (2, 4, 16)
    for bad in ("0", "2,x", "2,2", ""):
        with pytest.raises(argparse.ArgumentTypeError):
            host_counts(bad)


def record(hosts: int, ms: float, *flags: str) -> dict:
    return {"algorithm": "binomial", "size": 65536, "hosts": hosts,
            "t_mcast_s": {"median": ms / 1e3}, "predicted_s": None,
            "fidelity": {"flags": list(flags)}}


def test_a_sweep_compares_counts_at_one_rate(capsys: pytest.CaptureFixture[str]) -> None:
    rate = LinkRate(100.0, 20.0, True, "calibration cache")
    print_sweep([record(2, 10.0), record(4, 20.0), record(16, 41.0, "switch waited")], rate)
    out = capsys.readouterr().out.splitlines()
    assert "on one network at 20 Mbit/s" in out[1] and "the largest network's" in out[1]
    rows = [ln.split() for ln in out[4:]]
    assert rows == [["2", "10.00", "-", "1.00"], ["4", "20.00", "-", "2.00"],
                    ["16", "41.00", "!", "-", "-"]]
