"""The live view's drawing: every host and switch, members ringed in their group's colour,
tree links from each source, failed hosts marked, load labels, names escaped, a layered
layout (hosts below their switches, a fat tree's top switches on top); the last
broadcast's tree, each send along its route with the parent's send order, or its note where
it has no sends; a spec run's panel (the point, its traffic, the records written with their
flags, flagged ones in red) and its background traffic's flows, dashed along their
routes."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from collectives.call import BcastCall
from testbed.conditions.traffic import flows
from testbed.live.bcast_tree import bcast_tree
from testbed.live.snapshot import bcast_part, flows_part, point_part, run_part, snapshot
from testbed.live.svg import SHOWN_RECORDS, draw, layout, run_panel
from testbed.specs.traffic_model import TrafficSpec
from topologies import parse_spec

NS = "{http://www.w3.org/2000/svg}"
G = "239.1.2.3"


def nodes(svg: str, kind: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {g.get("data-name", ""): g for g in root.iter(f"{NS}g")
            if kind in (g.get("class") or "").split()}


def marks(svg: str, cls: str) -> list[dict[str, str]]:
    return [dict(e.attrib) for e in ET.fromstring(svg).iter()
            if cls in (e.get("class") or "").split()]


def star_snapshot() -> dict[str, Any]:
    topo = parse_spec("star:hosts=4")
    groups = {G: {"members": {"h1": {}, "h2": {}},
                  "sources": {"10.0.0.1": {"kind": "tree", "tree": {"s1": [2, 3]}}}}}
    return snapshot(topo, groups, [3], [["h0", "s1", 1.25]], 1, 0.0)


def test_every_host_and_switch_is_drawn_with_members_trees_failed_and_load() -> None:
    svg = draw(star_snapshot())
    assert sorted(nodes(svg, "host")) == ["h0", "h1", "h2", "h3"]
    assert sorted(nodes(svg, "switch")) == ["s1"]
    assert sorted(nodes(svg, "failed")) == ["h3"]
    assert sorted(m["data-host"] for m in marks(svg, "member")) == ["h1", "h2"]
    assert sorted((t["data-from"], t["data-to"]) for t in marks(svg, "tree")) == [
        ("h0", "s1"), ("s1", "h1"), ("s1", "h2")]
    assert [(m["data-from"], m["data-to"]) for m in marks(svg, "load")] == [("h0", "s1")]
    assert len(marks(svg, "link")) == 4
    assert {m["data-rate"] for m in marks(svg, "link")} == {"100 Mbit/s"}
    assert marks(svg, "rate") == []  # one rate: said once, in the legend
    assert "links 100 Mbit/s" in svg


def test_names_are_escaped() -> None:
    snap = star_snapshot()
    snap["topology"]["name"] = "<script>alert(1)</script>"
    snap["error"] = 'a "quoted" & <b>'
    svg = draw(snap)
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    ET.fromstring(svg)  # still well-formed


def test_layers_put_hosts_below_and_the_core_on_top() -> None:
    topo = snapshot(parse_spec("fattree:k=4"), {}, [], [], 1, 0.0)["topology"]
    pos, width, height = layout(topo)
    hosts = [h["name"] for h in topo["hosts"]]
    assert {pos[h][1] for h in hosts} == {max(y for _, y in pos.values())}
    ys = sorted({y for _, y in pos.values()})
    assert len(ys) == 3  # hosts, the 4 edge switches, the 4 above them (k=4, 2 levels)
    assert sum(1 for y in pos.values() if y[1] == ys[0]) == 4
    assert all(0 < x < width and 0 < y < height for x, y in pos.values())


def test_loss_is_drawn_on_its_link() -> None:
    snap = star_snapshot()
    snap["loss"] = [["h1", "s1", 0.3, "all"], ["h2", "s1", 0.05, "multicast"]]
    svg = draw(snap)
    texts = {(e.get("data-a"), e.get("data-b")): e.text for e in ET.fromstring(svg).iter()
             if e.get("class") == "loss" and e.tag == f"{NS}text"}
    assert texts == {("h1", "s1"): "loss 30%", ("h2", "s1"): "loss 5% of multicast"}


def test_a_range_multicast_rings_its_node_range_dashed() -> None:
    topo = parse_spec("star:hosts=6")
    groups = {"239.255.1.3": {"members": {}, "sources": {
        "10.0.0.1": {"kind": "tree", "tree": {"s1": [2, 3, 4]}}}}}
    svg = draw(snapshot(topo, groups, [], [], 1, 0.0, ranges=True))
    ranged = [m for m in marks(svg, "member") if "range" in m["class"].split()]
    assert sorted(m["data-host"] for m in ranged) == ["h1", "h2", "h3"]
    assert all(m["stroke-dasharray"] == "4 3" for m in ranged)
    assert "range multicast to h1..h3" in svg


def test_the_last_broadcast_puts_each_ranks_time_under_its_host() -> None:
    snap = star_snapshot()
    snap["bcast"] = bcast_part("binomial", 65536, ["h2", "h0", "h1", "h3"], 0.0031, 0.0029,
                               [0.0, 0.0012, 0.0021, 0.003], [0.0005, 0.0013, 0.0022, 0.0031])
    svg = draw(snap)
    ranks = {m["data-host"]: m["data-rank"] for m in marks(svg, "bcast-rank")}
    assert ranks == {"h2": "0", "h0": "1", "h1": "2", "h3": "3"}
    assert "rank 0 (root)" in svg and "rank 3: 3000 us" in svg
    assert "last broadcast: binomial 65536 B from h2 to 4 hosts, t_mcast median 3100 us, " \
           "model 2900 us" in svg
    assert marks(draw(star_snapshot()), "bcast-rank") == []


def test_the_links_the_last_broadcast_used_are_drawn() -> None:
    snap = star_snapshot()
    snap["bcast"] = bcast_part("binomial", 1024, ["h0", "h1"], 0.001, None, [0.0, 0.001],
                               [0.0, 0.001], {"h0>s1": 1100, "s1>h1": 1100})
    used = {(m["data-from"], m["data-to"], m["data-bytes"]) for m in marks(draw(snap),
                                                                            "bcast-link")}
    assert used == {("h0", "s1", "1100"), ("s1", "h1", "1100")}


def _rec(i: int, flags: list[str]) -> dict[str, Any]:
    return {"key": f"k{i}", "algorithm": "binomial", "size": 1024 * i, "hosts": 4,
            "status": "ok", "flags": flags}


def test_a_spec_runs_panel_says_the_point_its_traffic_and_the_flags() -> None:
    point = point_part({"algorithm": "nack", "size": 65536, "hosts": 4, "traffic": "bg",
                        "pattern": "uniform", "load": 0.2}, "4 hosts, traffic bg")
    records = [_rec(i, ["host h2 waited 3 ms for a core"] if i == 9 else [])
               for i in range(1, 10)]
    run = run_part("small", 12, 9, "2 point(s): 4 hosts, traffic bg", True, point, records)
    snap = star_snapshot() | {"run": run}
    svg = draw(snap)
    ET.fromstring(svg)
    assert len(marks(svg, "run-status")) == 1
    lines = dict(run_panel(run))
    assert lines["run-status"] == "small: 9 of 12 points; 2 point(s): 4 hosts, traffic bg"
    assert lines["run-point"] == "measuring nack 65536 B on 4 hosts | 4 hosts, traffic bg"
    assert lines["run-traffic"] == ("background traffic bg: uniform, load 0.2 of each host's "
                                    "link")  # no flows given: none said, none drawn
    assert marks(svg, "traffic-flow") == []
    assert lines["run-records"] == (f"9 point(s) written, 1 flagged; the last "
                                    f"{SHOWN_RECORDS}:")
    assert len(marks(svg, "run-record")) == SHOWN_RECORDS
    flagged = marks(svg, "flagged")
    assert len(flagged) == 1 and flagged[0]["fill"] == "#b00"
    assert "binomial 9216 B, 4 hosts: ok, host h2 waited 3 ms for a core" in svg
    assert "binomial 8192 B, 4 hosts: ok, no flags" in svg


def test_between_networks_the_panel_names_no_point_and_the_prompt_has_none() -> None:
    point = point_part({"algorithm": "nack", "size": 1024, "hosts": 4, "traffic": "none"},
                       "4 hosts")
    run = run_part("small", 2, 0, "no network is up", False, point, [])
    assert run_panel(run) == [("run-status", "small: 0 of 2 points; no network is up")]
    assert run_panel(None) == []
    rungs = [{"mbit": m, "points": ["nack 64 KiB on 4 hosts"], "verdict": v}
             for m, v in ((50, "no: nack 64 KiB on 4 hosts: not measured"), (40, "keeps up"),
                          (30, "keeps up"), (20, None))]
    probing = run_part("small", 2, 0, "probing", True, None, [], rungs)
    assert [t for c, t in run_panel(probing) if c == "run-probe"] == [
        "probe at 40 Mbit/s: nack 64 KiB on 4 hosts: keeps up",
        "probe at 30 Mbit/s: nack 64 KiB on 4 hosts: keeps up",
        "probe at 20 Mbit/s: nack 64 KiB on 4 hosts: measuring"]  # the last SHOWN_PROBES
    assert "run-status" not in draw(star_snapshot())


def test_the_last_broadcasts_tree_is_drawn_send_by_send_along_the_routes() -> None:
    topo = parse_spec("tree:leaves=2,hosts_per_leaf=2")  # h0 h1 | h2 h3
    hosts = ["h0", "h1", "h2", "h3"]
    tree = bcast_tree(BcastCall("binomial", 1024), topo, hosts)
    snap = snapshot(topo, {}, [], [], 1, 0.0, bcast=bcast_part(
        "binomial", 1024, hosts, 0.001, None, [0.0] * 4, [0.0] * 4, tree=tree))
    svg = draw(snap)
    root = ET.fromstring(svg)
    drawn = {(g.get("data-from"), g.get("data-to"), g.get("data-order")):
             (len(g.findall(f"{NS}line")), g.findtext(f"{NS}text"))
             for g in root.iter(f"{NS}g") if g.get("class") == "bcast-send"}
    # binomial on 4 ranks: 0 -> 2 first, then 0 -> 1; 2 -> 3; a line per hop of the route
    assert drawn == {("h0", "h2", "1"): (4, "1 from h0"), ("h0", "h1", "2"): (2, "2 from h0"),
                     ("h2", "h3", "1"): (2, "1 from h2")}
    heads = [ln.get("marker-end") for g in root.iter(f"{NS}g")
             if g.get("class") == "bcast-send" for ln in g.findall(f"{NS}line")]
    assert heads.count("url(#arrowb)") == 3  # one arrow a send, at the child
    assert "its tree: 3 sends, black arrows along their routes" in svg
    nack = bcast_tree(BcastCall("nack", 1024), topo, hosts)
    said = draw(snap | {"bcast": snap["bcast"] | {"tree": nack}})
    assert marks(said, "bcast-send") == [] and "its tree: one IP multicast" in said


def test_a_spec_runs_background_traffic_is_drawn_as_dashed_flows() -> None:
    topo = parse_spec("star:hosts=4")
    pairs = flows(TrafficSpec("uniform", 0.1, hosts="all"), topo, ["h0", "h1"])
    point = point_part({"algorithm": "binomial", "size": 1024, "hosts": 2, "traffic": "bg",
                        "pattern": "uniform", "load": 0.1}, "2 hosts, traffic bg",
                       flows_part(topo, pairs))
    run = run_part("small", 1, 0, "1 point(s)", True, point, [])
    svg = draw(snapshot(topo, {}, [], [], 1, 0.0, run=run))
    drawn = marks(svg, "traffic-flow")
    assert len(drawn) == 12 and ("h0", "h3") in {(f["data-from"], f["data-to"]) for f in drawn}
    assert dict(run_panel(run))["run-traffic"].endswith("link; its 12 flows dashed")
    dashed = [ln for g in ET.fromstring(svg).iter(f"{NS}g")
              if g.get("class") == "traffic-flow" for ln in g.findall(f"{NS}line")]
    assert len(dashed) == 24 and all(ln.get("stroke-dasharray") for ln in dashed)
    # between networks the point is not drawn, nor its flows
    assert marks(draw(snapshot(topo, {}, [], [], 1, 0.0, run=run | {"network": False})),
                 "traffic-flow") == []
