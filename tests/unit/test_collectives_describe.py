"""`mcastlab trees`: the schedule as a timeline, with its prediction (no root needed)."""

from __future__ import annotations

import json

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
MESH_6X6 = ["--topo", "mesh:rows=6,cols=6", "--nodes", "15,31,8,27,22,28,11,29",
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
    assert main(["trees", "opt-tree", "--topo", "mesh:rows=4,cols=4", "--nodes", SHUFFLED_4X4,
                 "--t-hold", "50", "--t-end", "55", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["k"] == 16 and len(d["contended"]) == 5
    assert all(c["links"] for c in d["contended"])
    assert main(["trees", "opt-tree", "--topo", "mesh:rows=4,cols=4", "--nodes", SHUFFLED_4X4,
                 "--t-hold", "50", "--t-end", "55"]) == 0
    assert "sends under way together on a shared link: 5 pairs" in capsys.readouterr().out


def test_trees_topology_errors(capsys):
    for bad in (["u-mesh", "--k", "3"],                                   # no --topo
                ["opt-mesh", "--topo", "torus:rows=2,cols=2", "--k", "3"],  # wrong shape
                ["opt-tree", "--topo", "mesh:rows=2,cols=2", "--nodes", "1,1"],
                ["opt-tree", "--topo", "mesh:rows=2,cols=2", "--nodes", "1,9"],
                ["opt-tree", "--topo", "star", "--nodes", "1,x"],
                ["opt-tree", "--nodes", "0,1"],                           # no --topo
                ["opt-tree", "--topo", "blah", "--k", "3"],
                ["opt-tree", "--topo", "mesh:rows=2,cols=2", "--k", "3", "--nodes", "0,1"],
                ["opt-tree"]):                                            # no --k
        assert main(["trees", *bad, "--t-hold", "1", "--t-end", "2"]) == 2, bad
        err = capsys.readouterr().err
        assert err.startswith("mcastlab: error:") and len(err.strip().splitlines()) == 1, err
