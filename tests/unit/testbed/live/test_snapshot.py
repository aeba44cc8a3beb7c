"""The live view's snapshot: the controller's groups in the page's terms (names, directed
tree links from the source), the links' load both ways from two port readings, failed
hosts by name; a spec run's part: the point being measured with its traffic, each record
with its fidelity flags."""

from __future__ import annotations

import json

from testbed.live.snapshot import (
    bcast_part,
    flows_part,
    groups_part,
    link_load,
    point_part,
    record_part,
    run_part,
    snapshot,
)
from topologies import Topology, parse_spec

G = "239.1.2.3"


def test_groups_name_members_and_sources_and_draw_trees_as_links() -> None:
    topo = parse_spec("star:hosts=4")
    groups = {G: {"members": {"h2": {"switch": "s1", "port": 3}, "h1": {}},
                  "sources": {"10.0.0.1": {"kind": "tree", "tree": {"s1": [2, 3]}},
                              "10.0.0.4": {"kind": "refused", "reason": "node 3 failed"}}}}
    part = groups_part(topo, groups)
    assert part[G]["members"] == ["h1", "h2"]
    assert part[G]["sources"]["h0"] == {"kind": "tree", "links": [
        ["h0", "s1"], ["s1", "h1"], ["s1", "h2"]]}
    assert part[G]["sources"]["h3"] == {"kind": "refused", "reason": "node 3 failed"}


def test_load_is_each_direction_of_each_link_from_the_counters() -> None:
    before = {"s1": {"1": {"neighbour": "h0", "tx_bytes": 0, "rx_bytes": 1000},
                     "2": {"neighbour": "h1", "tx_bytes": 500, "rx_bytes": 0}}}
    after = {"s1": {"1": {"neighbour": "h0", "tx_bytes": 0, "rx_bytes": 126_000},
                    "2": {"neighbour": "h1", "tx_bytes": 250_500, "rx_bytes": 0},
                    "3": {"neighbour": "h2", "tx_bytes": 9, "rx_bytes": 9}}}
    # 125000 B in 0.5 s = 2 Mbit/s from h0 into s1; 250000 B = 4 Mbit/s out to h1; port 3
    # has no earlier reading, so no rate yet
    assert link_load(before, after, 0.5) == [["h0", "s1", 2.0], ["s1", "h1", 4.0]]
    assert link_load(before, after, 0.0) == []


def test_a_snapshot_is_json_with_failed_hosts_by_name() -> None:
    topo = parse_spec("star:hosts=4,bw=50")
    snap = json.loads(json.dumps(snapshot(topo, {}, [3, 1], [], 7, 12.5)))
    assert snap["seq"] == 7 and snap["failed"] == ["h1", "h3"] and snap["error"] is None
    assert [h["name"] for h in snap["topology"]["hosts"]] == ["h0", "h1", "h2", "h3"]
    assert snap["topology"]["switches"] == ["s1"]
    assert {(lk["a"], lk["b"], lk["mbit"]) for lk in snap["topology"]["links"]} == {
        ("h0", "s1", 50.0), ("h1", "s1", 50.0), ("h2", "s1", 50.0), ("h3", "s1", 50.0)}


def test_loss_is_the_topologys_own_then_what_was_set_at_run_time() -> None:
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2,bw=10")
    snap = snapshot(topo, {}, [], [], 1, 0.0, loss={("h1", "s2"): (0.3, "all"),
                                                      ("s1", "s3"): (0.05, "multicast")})
    assert snap["loss"] == [["h1", "s2", 0.3, "all"], ["s1", "s3", 0.05, "multicast"]]
    d = parse_spec("star:hosts=2,bw=10").to_dict()
    d["links"][1]["params"]["loss_pct"] = 2.0  # a topology file's lossy link
    lossy = Topology.from_dict(d)
    assert snapshot(lossy, {}, [], [], 1, 0.0)["loss"] == [["h1", "s1", 0.02, "link"]]


def test_a_range_address_names_its_node_range_in_contiguous_mode_only() -> None:
    topo = parse_spec("star:hosts=6")
    groups = {"239.255.1.3": {"members": {}, "sources": {
        "10.0.0.1": {"kind": "tree", "tree": {"s1": [2, 3, 4]}}}},
              "239.255.2.9": {"members": {}, "sources": {
        "10.0.0.1": {"kind": "refused", "reason": "names no node range"}}}}
    part = groups_part(topo, groups, ranges=True)
    assert part["239.255.1.3"]["range"] == ["h1", "h2", "h3"]
    assert "range" not in part["239.255.2.9"]  # beyond the network's 6 nodes
    assert "range" not in groups_part(topo, groups)["239.255.1.3"]  # IGMP mode: a group


def test_a_spec_runs_part_has_the_point_its_traffic_and_each_records_flags() -> None:
    config = {"algorithm": "nack", "size": 1024, "hosts": 4, "traffic": "bg",
              "pattern": "uniform", "load": 0.2}
    point = point_part(config, "4 hosts, traffic bg")
    assert point == {"algorithm": "nack", "size": 1024, "hosts": 4,
                     "condition": "4 hosts, traffic bg",
                     "traffic": {"name": "bg", "pattern": "uniform", "load": 0.2,
                                 "flows": []}}
    assert point_part(config | {"traffic": "none"}, "4 hosts")["traffic"] is None
    flagged = record_part({"key": "k1", "config": config, "status": "ok",
                           "fidelity": {"flags": ["link h1-s1 carried 40% of 20 Mbit/s"],
                                        "ok": False}})
    assert flagged == {"key": "k1", "algorithm": "nack", "size": 1024, "hosts": 4,
                       "status": "ok", "flags": ["link h1-s1 carried 40% of 20 Mbit/s"]}
    failed = record_part({"key": "k2", "config": config, "status": "failed",
                          "fidelity": None})
    assert failed["flags"] == [] and failed["status"] == "failed"
    run = run_part("small", 4, 2, "1 point(s): 4 hosts", True, point, [flagged, failed])
    snap = snapshot(parse_spec("star:hosts=4"), {}, [], [], 1, 0.0, run=run)
    assert json.loads(json.dumps(snap))["run"] == run
    assert snapshot(parse_spec("star:hosts=4"), {}, [], [], 1, 0.0)["run"] is None


def test_traffic_flows_and_a_broadcasts_tree_carry_their_routes() -> None:
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2")
    flows = flows_part(topo, [("h0", "h3", 1 / 3), ("h1", "h0", 1.0)])
    assert flows == [{"from": "h0", "to": "h3", "share": 0.3333,
                      "path": ["h0", "s2", "s1", "s3", "h3"]},
                     {"from": "h1", "to": "h0", "share": 1.0, "path": ["h1", "s2", "h0"]}]
    config = {"algorithm": "nack", "size": 1024, "hosts": 2, "traffic": "bg",
              "pattern": "uniform", "load": 0.2}
    assert point_part(config, "2 hosts", flows)["traffic"]["flows"] == flows
    tree = {"kind": "schedule", "note": "n",
            "sends": [{"from": "h0", "to": "h1", "order": 1, "path": ["h0", "s2", "h1"]}]}
    part = bcast_part("chain", 1, ["h0", "h1"], 0.001, None, [0.0, 0.001], [0.0, 0.001],
                      tree=tree)
    assert part["tree"] == tree and part["links"] == []
    snap = json.loads(json.dumps(snapshot(topo, {}, [], [], 1, 0.0, bcast=part)))
    assert snap["bcast"]["tree"] == tree
