"""testbed.cli.network: `mcastlab topo` prints a topology's summary, routes and JSON, saves a
loadable file, reads TOML files, and refuses a bad spec or file in one error line; `net
--web` refuses a port taken, --web-port alone and a missing aiohttp before any network
comes up."""

import importlib.util
import json
import socket
from pathlib import Path

import pytest

from testbed.cli.main import main
from testbed.emulation import network
from topologies import Topology, parse_spec

from .error_lines import _one_error_line


# ---- topo -------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["mesh:rows=2,cols=2", "star", "fattree:k=4,n=2",
                                  "torus:rows=3,cols=3,bw=10"])
def test_topo_prints_the_summary(spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topo", spec]) == 0
    out, err = capsys.readouterr()
    assert out == parse_spec(spec).summary() + "\n"
    assert err == ""


def test_topo_summary_counts(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topo", "mesh:rows=2,cols=2"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("mesh-2x2 (mesh): 4 hosts, 4 switches, 8 links")


def test_topo_routes_prints_every_route(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["topo", "mesh:rows=2,cols=2", "--routes"])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    topo = parse_spec("mesh:rows=2,cols=2")
    routes = out.splitlines()[len(topo.summary().splitlines()):]
    expected = [f"  {s.name} -> {d.name}: {' '.join(topo.path(s.name, d.name))}"
                for s in topo.hosts for d in topo.hosts if s != d]
    assert routes == expected
    assert "  h0 -> h3: h0 s1 s2 s4 h3" in routes  # xy: the column first, then the row


def test_topo_routes_on_a_single_host_network(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topo", "star:hosts=1", "--routes"]) == 0
    assert capsys.readouterr().out == parse_spec("star:hosts=1").summary() + "\n"


def test_topo_json_is_the_full_description(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topo", "fattree:k=2,n=2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data == parse_spec("fattree:k=2,n=2").to_dict()
    assert Topology.from_dict(data) == parse_spec("fattree:k=2,n=2")


def test_topo_save_writes_a_loadable_file(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "topo.json"
    assert main(["topo", "mesh:rows=2,cols=3", "--save", str(target)]) == 0
    assert Topology.load_json(target) == parse_spec("mesh:rows=2,cols=3")
    assert capsys.readouterr().out.startswith("mesh-2x3 (mesh)")
    # The saved file is itself a valid spec.
    assert main(["topo", str(target)]) == 0
    assert capsys.readouterr().out == parse_spec("mesh:rows=2,cols=3").summary() + "\n"


def test_topo_reads_a_toml_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "pair.toml"
    spec.write_text('name = "pair"\n[[switches]]\nname = "s1"\n'
                    '[[hosts]]\nname = "h0"\n[[hosts]]\nname = "h1"\n'
                    '[[links]]\na = "h0"\nb = "s1"\n[[links]]\na = "h1"\nb = "s1"\n')
    assert main(["topo", str(spec)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pair (")
    assert "2 hosts, 1 switch, 2 links" in out


@pytest.mark.parametrize(("spec", "needle"), [
    ("nosuchshape", "unknown topology shape 'nosuchshape'"),
    ("/nonexistent.toml", "topology file not found: /nonexistent.toml"),
    ("/nonexistent.json", "topology file not found"),
    ("mesh:rows=2,colz=2", "unknown parameter 'colz'"),
    ("mesh:rows", "bad parameter 'rows'"),
    ("star:hosts=2,hosts=3", "given twice"),
    ("star:hosts=0", "hosts"),
    ("star:bw=-1", "bandwidth"),
    ("mesh:rows=2,cols=2,routing=updown", "updown"),
])
def test_topo_bad_spec_is_one_error_line_and_exit_2(
        spec: str, needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["topo", spec]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert needle in _one_error_line(err)


def test_topo_bad_file_content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml\n")
    assert main(["topo", str(bad)]) == 2
    assert str(bad) in _one_error_line(capsys.readouterr().err)


# ---- net --web on bad input: one line, exit 2, before any network comes up ---------------
@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a bad-input test got as far as starting a network")

    monkeypatch.setattr(network.Emulation, "__init__", refuse)


def _refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    return _one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("argv", [["net", "--topo", "star:hosts=2,bw=10"], ["lab", "1"]])
def test_web_on_a_port_taken_is_refused(no_network: None, argv: list[str],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert _refused([*argv, "--web", "--web-port", str(port)], capsys) == (
            f"mcastlab: error: --web-port {port}: cannot listen on 127.0.0.1:{port}: "
            "Address already in use")


def test_net_web_port_without_web_is_refused(no_network: None,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert _refused(["net", "--web-port", "8080"], capsys) == (
        "mcastlab: error: --web-port is the live view's: give --web too")


def test_net_web_without_aiohttp_is_refused(no_network: None, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "aiohttp" else real(name, *a))
    assert _refused(["net", "--web"], capsys).startswith(
        "mcastlab: error: --web needs aiohttp, which is not installed")


# `lab N --web` opens the same live view (cli/network.py's live_view around the lab's prompt)
@pytest.mark.parametrize(("argv", "message"), [
    (["lab", "--web"], "give the lab's number, e.g. mcastlab lab 1 --check answers.toml"),
    (["lab", "1", "--web-port", "8080"], "--web-port is the live view's: give --web too"),
    (["lab", "1", "--web", "--check", "a.toml"],
     "--web shows the network at a lab's prompt: mcastlab lab N --web [--script FILE]"),
    (["lab", "1", "--web", "--solve", "-"],
     "--web shows the network at a lab's prompt: mcastlab lab N --web [--script FILE]"),
])
def test_lab_web_where_no_prompt_opens_is_refused(no_network: None, argv: list[str],
                                                  message: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert _refused(argv, capsys) == f"mcastlab: error: {message}"
