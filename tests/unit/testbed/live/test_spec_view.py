"""A spec run's live view without a network: one server for the run, its snapshot saying no
network is up with the spec's topology, then following a network while one is up (a
stand-in with no controller) and saying so again at its teardown; the run's progress lines,
its point and its records (with their flags) on the served snapshot."""

from __future__ import annotations

import json
import types
import urllib.request
from pathlib import Path
from typing import Any

from testbed.live.spec_view import BETWEEN, SpecView
from testbed.specs.traffic_model import TrafficSpec
from topologies import parse_spec


def served(view: SpecView) -> dict[str, Any]:
    view.view.publisher.publish()  # what the thread writes every 0.25 s, now
    with urllib.request.urlopen(view.url.replace("/?", "/state.json?"), timeout=10) as r:
        snap: dict[str, Any] = json.loads(r.read())
        return snap


def test_the_view_follows_the_network_that_is_up_and_says_the_runs_progress(
        tmp_path: Path) -> None:
    spec_topo = parse_spec("star:hosts=4")
    lines: list[str] = []
    with SpecView("small", spec_topo, 2, 0, tmp_path) as view:
        server = view.view.proc
        log = view.logged(lines.append)
        log("measuring t_hold/t_end")
        snap = served(view)
        assert snap["error"] == BETWEEN and snap["topology"]["name"] == spec_topo.name
        assert snap["run"] == {"spec": "small", "done": 0, "total": 2,
                               "status": "measuring t_hold/t_end", "network": False,
                               "point": None, "records": [], "probes": []}
        up = parse_spec("star:hosts=3")
        emu = types.SimpleNamespace(topo=up, controller=None,
                                    loss=types.SimpleNamespace(current={}),
                                    controller_config=types.SimpleNamespace(contiguous=False))
        with view.follow(emu):
            log("1 point(s): 3 hosts")
            view.point({"algorithm": "binomial", "size": 1024, "hosts": 3,
                        "traffic": "none"}, "3 hosts")
            snap = served(view)
            assert len(snap["topology"]["hosts"]) == 3
            assert snap["run"]["network"] and snap["run"]["status"] == "1 point(s): 3 hosts"
            assert snap["run"]["point"]["algorithm"] == "binomial"
            view.record({"key": "k", "config": {"algorithm": "binomial", "size": 1024,
                                                "hosts": 3}, "status": "ok",
                         "fidelity": {"flags": ["a flag"]}})
            snap = served(view)
            assert snap["run"]["point"] is None and snap["run"]["network"]
            view.probe(20.0, ["binomial 64 KiB on 3 hosts"])
            assert served(view)["run"]["probes"] == [
                {"mbit": 20.0, "points": ["binomial 64 KiB on 3 hosts"], "verdict": None}]
            view.probe(20.0, ["binomial 64 KiB on 3 hosts"], "keeps up")
            view.probe(10.0, ["nack 1 KiB on 3 hosts"])
            assert [(r["mbit"], r["verdict"]) for r in served(view)["run"]["probes"]] == \
                [(20.0, "keeps up"), (10.0, None)]
        snap = served(view)
        assert snap["error"] == BETWEEN and len(snap["topology"]["hosts"]) == 4
        assert snap["run"]["done"] == 1 and snap["run"]["point"] is None
        assert snap["run"]["records"][0]["flags"] == ["a flag"]
        assert view.view.proc is server  # one server, one URL, for the whole run
    assert lines == ["measuring t_hold/t_end", "1 point(s): 3 hosts"]
    assert server is not None and server.poll() is not None


def test_a_points_background_traffic_is_listed_as_flows_from_the_spec(
        tmp_path: Path) -> None:
    topo = parse_spec("star:hosts=4")
    traffic = {"bg": TrafficSpec("bulk-udp", 0.5), "bad": TrafficSpec("uniform", 0.5)}
    view = SpecView("small", topo, 1, 0, tmp_path, traffic=traffic)
    config = {"algorithm": "binomial", "size": 1024, "hosts": 2, "traffic": "bg",
              "members": [["h0", "h1"]]}
    # bulk to the next of the others (h2, h3): a ring of two
    assert [(f["from"], f["to"], f["path"]) for f in view.flows(config)] == [
        ("h2", "h3", ["h2", "s1", "h3"]), ("h3", "h2", ["h3", "s1", "h2"])]
    view.point(config, "2 hosts, traffic bg")
    assert len(view.part()["point"]["traffic"]["flows"]) == 2
    # uniform among one other host: the run refuses it, the view draws no flow
    assert view.flows(config | {"traffic": "bad", "members": [["h0", "h1", "h2"]]}) == []
    assert view.flows(config | {"traffic": "none"}) == []
