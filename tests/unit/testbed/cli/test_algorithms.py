"""testbed.cli.algorithms, without root: `mcastlab trees` draws a schedule as a timeline with
its prediction (on a topology, with the ranks placed and contention listed), and `mcastlab
range-trees` (once `hwtree`) shows greedy against optimal range-multicast trees; bad input
is one error line."""

from __future__ import annotations

import json

import pytest

from collectives.range_trees.trials import hwtree_trials
from testbed.cli.main import main


def test_trees_json_has_the_named_fields(capsys):
    assert main(["trees", "opt-tree", "--k", "9", "--t-hold", "20", "--t-end", "55",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["algorithm"], d["k"], d["predicted"]) == ("opt-tree", 9, 135)
    assert [(s["time"], s["sender"], s["receiver"]) for s in d["schedule"]][:3] == \
        [(0, 0, 6), (20, 0, 4), (40, 0, 3)]


def test_trees_alpha_port_and_errors(capsys):
    assert main(["trees", "opt-tree", "--k", "12", "--t-hold", "22", "--t-end", "55",
                 "--ports", "3", "--t-int", "10", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["predicted"] == 120 and len(d["schedule"]) == 11
    assert main(["trees", "binomial", "--k", "4", "--t-hold", "2", "--t-end", "5"]) == 0
    assert "predicted t_mcast = 10" in capsys.readouterr().out
    for bad in (["--k", "0", "--t-hold", "1", "--t-end", "1"],
                ["--k", "4", "--t-hold", "-1", "--t-end", "1"],
                ["--k", "4", "--t-hold", "2", "--t-end", "5", "--ports", "2"]):
        assert main(["trees", "opt-tree", *bad]) == 2
        err = capsys.readouterr().err
        assert err.startswith("mcastlab: error:") and len(err.strip().splitlines()) == 1


# the dissertation's 6x6 mesh example (section 5.2): source (3, 2), destinations (1, 5),
# (2, 1), (3, 4), (4, 3), (4, 4), (5, 1), (5, 4); node y * 6 + x on topologies' mesh
MESH_6X6 = ["--topo", "mesh:rows=6,cols=6", "--rank-nodes", "15,31,8,27,22,28,11,29",
            "--t-hold", "20", "--t-end", "55", "--json"]
SHUFFLED_4X4 = "10,5,12,9,14,3,0,8,13,2,15,6,11,1,4,7"


def test_trees_on_a_topology_place_ranks_and_list_contention(capsys):
    got = {}
    for alg in ("opt-mesh", "u-mesh"):
        assert main(["trees", alg, *MESH_6X6]) == 0
        d = json.loads(capsys.readouterr().out)
        assert d["topology"] == "mesh-6x6" and d["contended"] == []
        got[alg] = d["predicted"]
    assert got == {"opt-mesh": 130, "u-mesh": 165}
    # OPT-Tree on shuffled ranks of a 4x4 mesh, t_hold ~ t_end: five pairs share a link
    assert main(["trees", "opt-tree", "--topo", "mesh:rows=4,cols=4", "--rank-nodes", SHUFFLED_4X4,
                 "--t-hold", "50", "--t-end", "55", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["k"] == 16 and len(d["contended"]) == 5
    assert all(c["links"] for c in d["contended"])
    assert main(["trees", "opt-tree", "--topo", "mesh:rows=4,cols=4", "--rank-nodes", SHUFFLED_4X4,
                 "--t-hold", "50", "--t-end", "55"]) == 0
    assert "sends under way together on a shared link: 5 pairs" in capsys.readouterr().out


def test_trees_topology_errors(capsys):
    for bad in (["u-mesh", "--k", "3"],                                   # no --topo
                ["opt-mesh", "--topo", "torus:rows=2,cols=2", "--k", "3"],  # wrong shape
                ["opt-tree", "--topo", "mesh:rows=2,cols=2", "--rank-nodes", "1,1"],
                ["opt-tree", "--topo", "mesh:rows=2,cols=2", "--rank-nodes", "1,9"],
                ["opt-tree", "--topo", "star", "--rank-nodes", "1,x"],
                ["opt-tree", "--rank-nodes", "0,1"],                           # no --topo
                ["opt-tree", "--topo", "blah", "--k", "3"],
                ["opt-tree", "--topo", "mesh:rows=2,cols=2", "--k", "3", "--rank-nodes", "0,1"],
                ["opt-tree"]):                                            # no --k
        assert main(["trees", *bad, "--t-hold", "1", "--t-end", "2"]) == 2, bad
        err = capsys.readouterr().err
        assert err.startswith("mcastlab: error:") and len(err.strip().splitlines()) == 1, err


def test_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range-trees", "--nodes", "64", "--faulty", "0.05", "--repetitions", "20"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "64 nodes (4-ary 3-tree), 3 faulty (5.00%), 20 trials, seed 0"
    assert lines[1].split() == ["steps", "greedy", "optimal"]
    assert "greedy optimal in 100.0% of 20 decided trials" in out


def test_json_output_matches_the_pure_function(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["range-trees", "--nodes", "256", "--faulty", "0.1", "--repetitions", "30",
            "--seed", "4", "--json"]
    assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    expected = json.loads(json.dumps(hwtree_trials(256, 0.1, 30, seed=4).to_dict()))
    assert data == expected
    for key in ("greedy_depths", "optimal_depths"):
        assert sum(data[key].values()) == pytest.approx(1.0)
        assert all(depth.isdigit() for depth in data[key])
    assert 0 <= data["greedy_optimal_fraction"] <= 1


def test_other_arity_and_partial_tree(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range-trees", "--nodes", "32", "--faulty", "0.1", "--repetitions", "5",
                 "--arity", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["arity"] == 2
    assert main(["range-trees", "--nodes", "32", "--faulty", "0.1", "--repetitions", "5"]) == 0
    assert capsys.readouterr().out.startswith("32 nodes (4-ary 3-tree)")


@pytest.mark.parametrize(("args", "message"), [
    (["--nodes", "1000", "--faulty", "0.01", "--repetitions", "5"], "not a power of 4"),
    (["--nodes", "64", "--faulty", "0.1", "--repetitions", "0"], "at least one trial"),
    (["--nodes", "64", "--faulty", "0.1", "--repetitions", "5", "--arity", "1"], "arity"),
    (["--nodes", "64", "--faulty", "0.1", "--repetitions", "5", "--budget", "0"], "--budget"),
])
def test_bad_input_is_one_error_line(args: list[str], message: str,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range-trees", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mcastlab: error: ")
    assert message in lines[0]


def test_failed_nodes_show_both_trees_step_by_step(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range-trees", "--nodes", "8", "--arity", "2", "--failed", "3,5"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "8 nodes (2-ary 3-tree), root 0, failed 3, 5"
    assert out[1:4] == ["greedy: 2 steps, 3 range multicasts", "  step 1: 0 -> 0..2",
                        "  step 2: 2 -> 4..4, 1 -> 6..7"]
    assert out[4] == "optimal: 2 steps, 3 range multicasts"
    assert main(["range-trees", "--nodes", "8", "--arity", "2", "--failed", "3,5", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [[(m["sender"], m["lo"], m["hi"]) for m in step] for step in data["greedy"]] == \
        [[(0, 0, 2)], [(2, 4, 4), (1, 6, 7)]]


@pytest.mark.parametrize(("value", "message"), [
    ("1", "a fraction in [0, 1) or a percentage below 100%, got '1'"),
    ("-0.1", "a fraction in [0, 1) or a percentage below 100%, got '-0.1'"),
    ("100%", "a fraction in [0, 1) or a percentage below 100%, got '100%'"),
    ("five", "a fraction (0.05) or a percentage (5%), got 'five'")])
def test_a_faulty_fraction_out_of_range_is_refused_while_parsing(
        value: str, message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["range-trees", "--nodes", "64", "--faulty", value, "--repetitions", "5"])
    assert exc.value.code == 2
    assert f"argument --faulty: {message}" in capsys.readouterr().err


def test_faulty_as_a_percentage_and_failed_by_host_name(
        capsys: pytest.CaptureFixture[str]) -> None:
    """range-trees --faulty 5% is --faulty 0.05; --failed h3,h5 is --failed 3,5."""
    outs = []
    for faulty, failed in (("5%", "h3,h5"), ("0.05", "3,5")):
        assert main(["range-trees", "--nodes", "64", "--faulty", faulty, "--repetitions", "3",
                     "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
        assert main(["range-trees", "--nodes", "8", "--arity", "2", "--failed", failed,
                     "--root", "h0", "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[2] and outs[1] == outs[3]
    with pytest.raises(SystemExit):
        main(["range-trees", "--nodes", "8", "--arity", "2", "--failed", "x"])
    assert "argument --failed: a host's name or node id (h3 or 3), got 'x'" in \
        capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--failed", "0"], ["--failed", "9"],
                                  ["--failed", "3", "--repetitions", "5"], []])
def test_bad_failed_or_missing_options(argv: list[str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range-trees", "--nodes", "8", "--arity", "2", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mcastlab: error:") and len(err.splitlines()) == 1


def test_the_old_name_hwtree_still_works_with_a_note(capsys):
    assert main(["hwtree", "--nodes", "8", "--arity", "2", "--failed", "3,5"]) == 0
    out, err = capsys.readouterr()
    assert "'mcastlab hwtree' is now 'mcastlab range-trees'" in err
    assert "greedy:" in out


def test_old_spellings_keep_working_with_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["range-trees", "--nodes", "64", "--faulty", "0.05", "--trials", "20"]) == 0
    captured = capsys.readouterr()
    assert "20 trials" in captured.out
    assert captured.err.strip() == "mcastlab: note: --trials is now --repetitions"
    assert main(["trees", "opt-tree", "--topo", "mesh:rows=4,cols=4", "--nodes", SHUFFLED_4X4,
                 "--t-hold", "50", "--t-end", "55"]) == 0
    assert "note: --nodes is now --rank-nodes" in capsys.readouterr().err
