"""testbed.cli.bcast without a network: --hosts as one count or a sweep of counts, and the
sweep's table, where a flagged run feeds no ratio."""

import argparse

import pytest

from testbed.cli.arguments import host_counts
from testbed.cli.bcast import call_options, phases_line, print_sweep
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


def test_a_sweep_of_networks_each_at_its_rate_compares_in_wire_times(
        capsys: pytest.CaptureFixture[str]) -> None:
    def at(hosts: int, ms: float, mbit: float, units: float, *flags: str) -> dict:
        return record(hosts, ms, *flags) | {"link_rate": {"mbit": mbit},
                                            "t_mcast_units": {"per_wire_time": units}}

    print_sweep([at(2, 5.0, 100, 1.2), at(32, 90.0, 5, 1.5), at(64, 300, 2, 1.8, "late")],
                None)
    out = capsys.readouterr().out.splitlines()
    assert "each on a star of its own at its own calibrated rate" in out[1]
    assert out[2].split()[:4] == ["hosts", "Mbit/s", "x", "M/B"]
    rows = [ln.split() for ln in out[4:]]
    # the ratio of the M/B multiples (1.5 / 1.2), not of the milliseconds (90 / 5)
    assert rows == [["2", "100", "1.20", "5.00", "-", "1.00"],
                    ["32", "5", "1.50", "90.00", "-", "1.25"],
                    ["64", "2", "1.80", "300.00", "!", "-", "-"]]


def args(algo: str, completion: str | None = None, **given: object) -> argparse.Namespace:
    return argparse.Namespace(algo=algo, completion=completion,
                              **{"fragment": None, "acks": None, "ack_fanout": None, **given})


def test_nack_takes_its_completion_options_from_the_command_line() -> None:
    assert call_options(args("nack")) == {}
    assert call_options(args("nack", acks="direct")) == {"acks": "direct"}
    assert call_options(args("scout-binary", "report", acks="tree", ack_fanout=8,
                             fragment=1000)) == {"acks": "tree", "ack_fanout": 8,
                                                 "fragment": 1000}


@pytest.mark.parametrize(("algo", "completion"), [("binomial", None), ("two-stage", None),
                                                  ("scout-linear", "none")])
def test_completion_options_without_completion_reports_are_refused(
        algo: str, completion: str | None) -> None:
    """By the call (the registry's Algorithm.reports), so the library refuses them too."""
    from collectives.call import BcastCall
    from collectives.executor import check_bcast

    given = call_options(args(algo, completion, ack_fanout=8))
    with pytest.raises(ValueError, match=f"{algo}: ack_fanout are options of a broadcast "
                                         "with completion reports .nack, scout-linear, "
                                         "scout-binary; not completion none."):
        BcastCall(algo, 1024, completion=completion, options=given)
    options = {**given, **({"completion": completion} if completion else {})}
    with pytest.raises(ValueError, match="with completion reports"):
        check_bcast(algo, 8, options)
    BcastCall("scout-linear", 1024, completion="report", options=given).check(8)


def test_the_time_to_a_result_names_every_phase() -> None:
    line = phases_line({"network_up_s": 14.8, "params_s": None, "job_start_s": 65.04,
                        "measuring_s": 12.3, "job_end_s": 1.2, "job_s": 78.5,
                        "teardown_s": 1.5})
    assert line.startswith("time to result: network up 14.8 s, the model's t_hold/t_end -, "
                           "the job's start 65.0 s, measuring 12.3 s, the rest of the job")
    assert "1.2 s, teardown 1.5 s" in line
