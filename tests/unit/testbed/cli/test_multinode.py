"""testbed.cli.multinode, without a network: `mcastlab multinode` reads its torus or mesh,
schemes and workload (drawn, or sets given as text or a TOML file) and refuses what cannot
run before any network, one message each; what it prints of the measured rows (the
benchmarks' job runner, replaced here): the sets, each scheme's times, plan, delivery and
fidelity flags, the gain of partitioning, and the link rate."""

from __future__ import annotations

import contextlib
import json
from types import SimpleNamespace

import pytest

from testbed.cli import multinode
from testbed.cli.main import main

ROW = {"factor": 0.25, "sources": 3, "dests": 4, "torus": [2, 4], "dilation": 2, "seed": 0,
       "sets": [[0, [1, 2, 5, 6]], [3, [1, 2, 4, 7]], [5, [1, 2, 3, 4]]],
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
        direct = "u-mesh" if kw["kind"] == "mesh" else "u-torus"
        return ([ROW | {"scheme": direct, "t_s": {"median": 0.010, "min": 0.009,
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
                         "dilation": 2, "dests": 4, "timeout": 600.0, "wait": "block",
                         "kind": "torus", "sets": None}]
    assert "3 sources x 4 destinations, hot-spot factor p 0.25, dilation 2" in out
    assert "sets (source:destinations): 0:1,2,5,6;3:1,2,4,7;5:1,2,3,4" in out
    assert "kept up" in out and "switch waited" in out
    assert "4096 B: U-torus / best partitioned 1.25" in out
    assert "a flagged row is not a result" in out
    assert out.rstrip().endswith("links at 10 Mbit/s")


def test_json_carries_rows_with_fidelity_and_the_rate(measured, capsys):
    assert main([*ARGS, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["link_rate"] == {"mbit": 10.0} and d["torus"] == [2, 4]
    assert [r["fidelity"]["flags"] for r in d["rows"]] == [[], ["switch waited"]]


def test_a_mesh_with_sets_by_name_or_number(measured, capsys):
    argv = ["multinode", "--topo", "mesh:rows=2,cols=4", "--sets", "h0:1,h2,5; 3:h4,6,7",
            "--size", "4096", "--repetitions", "2", "--json"]
    assert main(argv) == 0
    (call,) = measured
    assert call["kind"] == "mesh" and call["torus"] == (2, 4)
    assert call["sets"] == [(0, (1, 2, 5)), (3, (4, 6, 7))] and call["sources"] == 2
    assert call["schemes"] == ["direct", "random", "balanced"]
    assert call["factors"] is None and call["dests"] is None
    d = json.loads(capsys.readouterr().out)
    assert d["mesh"] == [2, 4] and d["given"] and d["factor"] is None
    assert d["rows"][0]["scheme"] == "u-mesh"


def test_sets_from_a_toml_file(measured, tmp_path):
    path = tmp_path / "sets.toml"
    path.write_text('[sets]\nh0 = ["h1", 2, "5"]\n3 = [4, 6, 7]\n')
    assert main(["multinode", "--topo", "mesh:rows=2,cols=4", "--sets", str(path),
                 "--scheme", "u-mesh", "--dilation", "3"]) == 0
    assert measured[0]["sets"] == [(0, (1, 2, 5)), (3, (4, 6, 7))]


def test_a_mesh_prints_u_mesh_over_the_partition(measured, capsys):
    assert main(["multinode", "--topo", "mesh:rows=2,cols=4", "--sets", "0:1", "--size",
                 "4096"]) == 0
    assert "4096 B: U-mesh / best partitioned 1.25" in capsys.readouterr().out


@pytest.mark.parametrize("argv,needle", [
    (["--dilation", "3"], "dilation 3 must divide both sides of the 2x4 torus (the partitioned "
                          "schemes' h x h blocks); without a partition only the direct "
                          "scheme, u-torus, runs"),
    (["--sources", "40"], "sources must be in 0..8"),
    (["--dests", "8"], "destinations per source must be in 1..7"),
    (["--topo", "star"], "needs a torus or a mesh, where xy routing and a partition into DDNs "
                         "and blocks exist; star has neither"),
    (["--topo", "fattree:k=4,n=2"], "fattree has neither"),
    (["--topo", "tree"], "tree has neither"),
    (["--topo", "mesh:rows=2,cols=4", "--dilation", "4"], "dilation 4 must divide both sides "
                                                          "of the 2x4 mesh"),
    (["--topo", "mesh:rows=2,cols=4", "--scheme", "u-torus"], "--scheme: u-torus is the direct "
                                                              "scheme on a torus; on the 2x4 "
                                                              "mesh it is u-mesh"),
    (["--sets", "0:1,2", "--sources", "3"], "--sets gives the sets; --sources draw them"),
    (["--sets", "0:1;0:2"], "--sets: set 2: source 0 already has set 1"),
    (["--sets", "0:1,h9"], "--sets: set 1 (source 0): 'h9' is not a node of the 2x4 torus "
                           "(0..7 or h0..h7)"),
    (["--sets", "x:1"], "--sets: set 1: 'x' is not a node"),
    (["--sets", "0:1,0"], "--sets: set 1: source 0 lists itself as a destination"),
    (["--sets", "0:1,h1"], "--sets: set 1 (source 0): destination 1 given twice"),
    (["--sets", "0:"], "--sets: set 1: source 0 has no destinations"),
    (["--sets", "0,1"], "--sets: set 1 ('0,1'): write SOURCE:DEST,DEST,..."),
    (["--sets", " ; "], "--sets: give at least one set"),
    (["--sets", "nothere.toml"], "--sets: cannot read nothere.toml"),
])
def test_what_cannot_run_is_refused_before_a_network(argv, needle, capsys, monkeypatch):
    monkeypatch.setattr(multinode, "network", lambda args: pytest.fail("a network"))
    assert main(["multinode", "--topo", "torus:rows=2,cols=4", *argv]) == 2
    err = capsys.readouterr().err
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("text,needle", [
    ("[sets]\n0 = 1\n", "sets.0: a list of destinations, got 1"),
    ("sets = 3\n", "holds one table, [sets]"),
    ("[sets]\n0 = [1]\n[other]\n", "holds one table, [sets]"),
    ("[sets\n", "is not TOML"),
])
def test_a_bad_sets_file_is_refused(text, needle, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(multinode, "network", lambda args: pytest.fail("a network"))
    path = tmp_path / "s.toml"
    path.write_text(text)
    assert main(["multinode", "--topo", "mesh:rows=2,cols=4", "--sets", str(path)]) == 2
    assert needle in capsys.readouterr().err
