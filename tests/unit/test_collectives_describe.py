"""`mcastlab trees`: the schedule as a timeline, with its prediction (no root needed)."""

from __future__ import annotations

import json

from testbed.cli import main


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
