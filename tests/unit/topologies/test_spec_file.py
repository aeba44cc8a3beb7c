"""topologies.spec_file: hand-written TOML and JSON topology files, saved files loading back,
and their error messages."""

import json
from pathlib import Path

import pytest

from topologies import Topology, TopologyError, load_topology_file, parse_spec, star

TWO_SWITCHES = """\
name = "two-switches"
routing = "shortest"

[defaults]
bw = 50
delay_ms = 1

[[switches]]
name = "s1"
[[switches]]
name = "s7"

[[hosts]]
name = "h1"
[[hosts]]
name = "h0"
[[hosts]]
name = "h2"

[[links]]
a = "s1"
b = "s7"
a_port = 2
bw = 1000
[[links]]
a = "h0"
b = "s1"
[[links]]
a = "s1"
b = "h1"
[[links]]
a = "h2"
b = "s7"
b_port = 5
loss_pct = 0.5
max_queue = 100
"""


def write(tmp_path: Path, text: str, name: str = "topo.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_toml_file(tmp_path: Path) -> None:
    topo = parse_spec(str(write(tmp_path, TWO_SWITCHES)))
    assert (topo.name, topo.shape, topo.routing) == ("two-switches", "file", "shortest")
    assert [h.name for h in topo.hosts] == ["h0", "h1", "h2"]
    assert [(s.name, s.dpid) for s in topo.switches] == [("s1", 1), ("s7", 7)]
    # explicit port 2 is reserved first; the others take the lowest free ports in file order
    assert topo.ports("s1") == {1: "h0", 2: "s7", 3: "h1"}
    assert topo.ports("s7") == {1: "s1", 5: "h2"}
    params = {(lk.node1, lk.node2): lk.params for lk in topo.links}
    assert params[("s1", "s7")].bw_mbit == 1000 and params[("s1", "s7")].delay_ms == 1
    assert params[("h0", "s1")].bw_mbit == 50
    assert params[("h2", "s7")].loss_pct == 0.5 and params[("h2", "s7")].max_queue == 100
    assert topo.path(0, 2) == ["h0", "s1", "s7", "h2"]
    assert topo.params == {"path": str(tmp_path / "topo.toml")}


def test_json_file_and_defaults(tmp_path: Path) -> None:
    data = {"switches": [{"name": "s1"}], "hosts": [{"name": "h0"}, {"name": "h1"}],
            "defaults": {"bw": None},
            "links": [{"a": "h0", "b": "s1"}, {"a": "h1", "b": "s1", "bw": 5}]}
    topo = load_topology_file(write(tmp_path, json.dumps(data), "lab.json"))
    assert topo.name == "lab"  # default: file stem
    assert [lk.params.bw_mbit for lk in topo.links] == [None, 5.0]


def test_saved_json_loads_through_parse_spec(tmp_path: Path) -> None:
    path = tmp_path / "saved.json"
    star(3).save(path)
    assert parse_spec(str(path)) == star(3)


def test_file_topology_round_trips(tmp_path: Path) -> None:
    topo = parse_spec(str(write(tmp_path, TWO_SWITCHES)))
    assert Topology.from_dict(json.loads(json.dumps(topo.to_dict()))) == topo


BASE = """\
[[switches]]
name = "s1"
[[switches]]
name = "s2"
[[hosts]]
name = "h0"
[[hosts]]
name = "h1"
[[links]]
a = "h0"
b = "s1"
[[links]]
a = "h1"
b = "s2"
[[links]]
a = "s1"
b = "s2"
"""


def link(a: str, b: str, extra: str = "") -> str:
    return f'[[links]]\na = "{a}"\nb = "{b}"\n{extra}\n'


@pytest.mark.parametrize(("text", "message"), [
    ("name = \n", r"invalid TOML: .*line 1"),
    ("surprise = 1\n" + BASE, "unknown top-level key 'surprise'; valid keys are name, routing"),
    (BASE + link("h0", "s3"), r"link 4 \(h0-s3\) names unknown node 's3'"),
    (BASE + '[[switches]]\nname = "s1"\n', r"duplicate node name 's1' \(switches entry 3\)"),
    (BASE + '[[hosts]]\nname = "h1"\n', r"duplicate node name 'h1' \(hosts entry 3\)"),
    (BASE.replace('b = "s2"\n', 'b = "s2"\nb_port = 1\n'),
     r"link 3 \(s1-s2\) reuses port 1 of s2, which already leads to h1"),
    (BASE + '[[hosts]]\nname = "h2"\n', "host h2 has no link"),
    (BASE + link("h1", "s1"), r"host h1 has more than one link \(link 4 \(h1-s1\) is another\)"),
    (BASE + link("h0", "h1"), r"link 4 \(h0-h1\) connects two hosts"),
    (BASE + link("s2", "s2"), r"link 4 \(s2-s2\) connects s2 to itself"),
    (BASE + link("s2", "s1"), r"link 4 \(s2-s1\) duplicates an earlier link"),
    (BASE.rsplit("[[links]]", 1)[0], "not connected: h1 cannot be reached from h0"),
    (BASE + '[[switches]]\nname = "s3"\n', "not connected: s3 cannot be reached from h0"),
    ("[defaults]\nbw = 0\n" + BASE, r"\[defaults\]: bandwidth must be > 0 Mbit/s"),
    (BASE + link("s1", "s2", "bw = -10"), r"link 4 \(s1-s2\): bandwidth must be > 0"),
    (BASE.replace('b = "s1"\n', 'b = "s1"\ndelay_ms = -2\n', 1),
     r"link 1 \(h0-s1\): delay must be >= 0 ms, got -2"),
    ("[defaults]\nloss_pct = 100\n" + BASE, r"loss must be in \[0, 100\) percent, got 100"),
    ("[defaults]\nloss_pct = -1\n" + BASE, r"loss must be in \[0, 100\) percent, got -1"),
    ("[defaults]\nloss = 1\n" + BASE, r"\[defaults\]: loss: 1 would drop every packet"),
    ("[defaults]\nloss = 2\n" + BASE, r"2 \(200% of the packets\) is not a fraction"),
    ("[defaults]\nloss = 0.1\nloss_pct = 1\n" + BASE, "give loss .* or the old loss_pct"),
    ("[defaults]\nloss = [1]\n" + BASE, "a fraction or \"5%\", got \\[1\\]"),
    ("[defaults]\nspeed = 1\n" + BASE, "unknown key in \\[defaults\\] 'speed'"),
    (BASE.replace('name = "s2"', 'name = "s0"'), "switches entry 2 has bad name 's0'"),
    (BASE.replace('name = "s2"', 'name = "switch2"'), "switches entry 2 has bad name 'switch2'"),
    (BASE.replace('name = "h1"', 'name = "h01"'), "hosts entry 2 has bad name 'h01'"),
    (BASE.replace('name = "h1"', 'name = "s3"'), "hosts entry 2 has bad name 's3'"),
    (BASE.replace('name = "h1"', 'name = "h2"'), r"exactly 0..1, but h1 is missing"),
    ('routing = "ospf"\n' + BASE, "unknown routing 'ospf'; topology files support only"),
    ('routing = "xy"\n' + BASE, "unknown routing 'xy'; topology files support only 'shortest'"),
    (BASE + link("h0", "s1", "port = 3"), r"unknown key in link 4 'port'"),
    (BASE + link("s1", "s2", 'a_port = "3"'), "link 4: a_port must be an integer"),
    ('hosts = "h0"\n' + BASE.split("[[hosts]]")[0], "hosts must be a list of tables"),
])
def test_toml_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(TopologyError, match=message) as err:
        parse_spec(str(path))
    assert str(err.value).startswith(f"{path}: ")  # names the file


def test_missing_file_and_bad_extension(tmp_path: Path) -> None:
    with pytest.raises(TopologyError, match="topology file not found: .*nope.toml"):
        parse_spec(str(tmp_path / "nope.toml"))
    with pytest.raises(TopologyError, match="must end in .toml or .json"):
        load_topology_file(write(tmp_path, "", "topo.yaml"))


def test_json_errors(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "hosts": [\n    {"name": "h0"},,\n  ]\n}\n', "bad.json")
    with pytest.raises(TopologyError, match=r"bad.json: invalid JSON at line 3, column"):
        parse_spec(str(path))
    path = write(tmp_path, "[1, 2]", "list.json")
    with pytest.raises(TopologyError, match="top level must be a table"):
        parse_spec(str(path))
    path = write(tmp_path, json.dumps({"format": "other/9"}), "other.json")
    with pytest.raises(TopologyError, match="unknown format 'other/9'"):
        parse_spec(str(path))


def test_loss_as_everywhere_and_the_old_loss_pct(tmp_path: Path) -> None:
    text = TWO_SWITCHES.replace("delay_ms = 1\n", 'delay_ms = 1\nloss = "2%"\n', 1)
    topo = parse_spec(str(write(tmp_path, text)))
    params = {(lk.node1, lk.node2): lk.params for lk in topo.links}
    assert params[("h0", "s1")].loss_pct == pytest.approx(2.0)  # [defaults]' loss
    assert params[("h2", "s7")].loss_pct == 0.5  # the link's own loss_pct, the old spelling
    fraction = TWO_SWITCHES.replace("loss_pct = 0.5", "loss = 0.005")
    link = [lk for lk in parse_spec(str(write(tmp_path, fraction))).links if lk.node1 == "h2"]
    assert link[0].params.loss_pct == pytest.approx(0.5)
