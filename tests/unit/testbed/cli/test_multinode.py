"""testbed.cli.multinode, without a network: `mcastlab multinode` reads its torus, schemes
and workload and refuses what cannot run before any network; what it prints of the measured
rows (the benchmarks' job runner, replaced here): each scheme's times, plan, delivery and
fidelity flags, the gain of partitioning, and the link rate."""

from __future__ import annotations

import contextlib
import json
from types import SimpleNamespace

import pytest

from testbed.cli import multinode
from testbed.cli.main import main

ROW = {"factor": 0.25, "sources": 3, "dests": 4, "torus": [2, 4], "dilation": 2, "seed": 0,
       "size": 4096, "reps": 2, "correct": True, "steps": 5, "sends": 12,
       "link_crossings": 20, "max_contention": 1, "contention": [1], "window": [1.0, 2.0],
       "cpu": {"wait_per_turn_s": 0.0}}


@pytest.fixture
def measured(monkeypatch):
    """No network: the calibrated rate, the emulation and the job runner replaced."""
    link = SimpleNamespace(text=lambda: "10 Mbit/s", to_dict=lambda: {"mbit": 10.0})
    monkeypatch.setattr(multinode, "network", lambda args: ("torus-2x4", link))

    @contextlib.contextmanager
    def emulation(topo, progress):
        yield SimpleNamespace(topo=SimpleNamespace(name="torus-2x4"))

    monkeypatch.setattr(multinode, "Emulation", emulation)
    calls = []

    def rows(emu, **kw):
        calls.append(kw)
        return ([ROW | {"scheme": "u-torus", "t_s": {"median": 0.010, "min": 0.009,
                                                      "max": 0.012},
                        "fidelity": {"flags": []}},
                 ROW | {"scheme": "partitioned-random", "t_s": {"median": 0.008, "min": 0.007,
                                                                 "max": 0.009},
                        "fidelity": {"flags": ["switch waited"]}}], None)

    monkeypatch.setattr(multinode, "measured_rows", rows)
    return calls


ARGS = ["multinode", "--topo", "torus:rows=2,cols=4", "--sources", "3", "--dests", "4",
        "--size", "4096", "--scheme", "u-torus,partitioned-random", "--repetitions", "2"]


def test_text_shows_times_flags_gain_and_rate(measured, capsys):
    assert main(ARGS) == 0
    out = capsys.readouterr().out
    assert measured == [{"sources": 3, "sizes": [4096], "schemes": ["direct", "random"],
                         "factors": 0.25, "reps": 2, "seed": 0, "torus": (2, 4),
                         "dilation": 2, "dests": 4, "timeout": 600.0, "wait": "block"}]
    assert "3 sources x 4 destinations, hot-spot factor p 0.25, dilation 2" in out
    assert "kept up" in out and "switch waited" in out
    assert "4096 B: U-torus / best partitioned 1.25" in out
    assert "a flagged row is not a result" in out
    assert out.rstrip().endswith("links at 10 Mbit/s")


def test_json_carries_rows_with_fidelity_and_the_rate(measured, capsys):
    assert main([*ARGS, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["link_rate"] == {"mbit": 10.0} and d["torus"] == [2, 4]
    assert [r["fidelity"]["flags"] for r in d["rows"]] == [[], ["switch waited"]]


@pytest.mark.parametrize("argv,needle", [
    (["--dilation", "3"], "dilation 3 must divide both sides"),
    (["--sources", "40"], "sources must be in 0..8"),
    (["--dests", "8"], "destinations per source must be in 1..7"),
    (["--topo", "star"], "runs on a torus, not star"),
])
def test_what_cannot_run_is_refused_before_a_network(argv, needle, capsys, monkeypatch):
    monkeypatch.setattr(multinode, "network", lambda args: pytest.fail("a network"))
    assert main(["multinode", "--topo", "torus:rows=2,cols=4", *argv]) == 2
    assert needle in capsys.readouterr().err
