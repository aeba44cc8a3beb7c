"""testbed.cli on bad input (issue 18): one `mcastlab: error: ...` line and the documented exit
code (2: bad input), never a traceback, and always before a network or controller starts.

Every test here runs with `no_network`: should a check ever move after the point where a
network, a calibration or a controller starts, the test fails instead of starting one.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from testbed.cli.main import build_parser, main

SPEC = Path(__file__).resolve().parents[2] / "experiments" / "default.toml"


class NetworkStarted(AssertionError):
    """A test reached code that brings up a network, calibrates or starts a controller."""


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise NetworkStarted("a bad-input test got as far as starting something")

    from os_ken.base.app_manager import AppManager

    from testbed.emulation import cleanup, network
    from testbed.experiments import calibration

    monkeypatch.setattr(network.Emulation, "__init__", refuse)
    monkeypatch.setattr(calibration, "calibrate", refuse)
    monkeypatch.setattr(cleanup, "cleanup_stale", refuse)
    monkeypatch.setattr(AppManager, "run_apps", refuse)
    yield


def error_line(argv: list[str], capsys: pytest.CaptureFixture[str], code: int = 2) -> str:
    """Run the command; it must print nothing on stdout and one error line on stderr."""
    assert main(argv) == code
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mcastlab: error: ")
    return lines[0]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    """A regular file, to put paths under."""
    f = tmp_path / "plain"
    f.write_text("not a folder\n")
    return f


# ---- files and folders to write ---------------------------------------------------------
@pytest.mark.parametrize(("where", "needle"), [("missing/t.json", "does not exist"),
                                               ("plain/t.json", "is not a folder"),
                                               (".", "is a folder")])
def test_topo_save_where_it_cannot_write(where: str, needle: str, tmp_path: Path, a_file: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line(["topo", "star", "--save", str(tmp_path / where)], capsys)
    assert "--save" in line and needle in line
    assert not (tmp_path / "missing").exists()


def test_lab_solve_into_a_missing_folder_before_measuring(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line(["lab", "1", "--solve", str(tmp_path / "missing" / "key.toml")], capsys)
    assert "--solve" in line and "does not exist" in line


def test_lab_keeps_only_what_check_prints(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line(["lab", "1", "--out", str(tmp_path)], capsys)
    assert line == ("mcastlab: error: --out keeps what --check prints: mcastlab lab N --check "
                    "FILE... --out DIR")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [["bench"], ["pingpong"], ["testbed"],
                                  ["reproduce", "--only", "nupairoj"], ["experiment", str(SPEC)]])
def test_out_under_a_regular_file(argv: list[str], a_file: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line([*argv, "--out", str(a_file / "sub")], capsys)
    assert f"--out: cannot make the folder {a_file / 'sub'}: {a_file} is a file" in line


# ---- mcastlab run: --list, --resume -----------------------------------------------------
def test_run_list_without_a_spec_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert "mcastlab experiment SPEC.toml --list" in error_line(["experiment", "--list"], capsys)


@pytest.mark.parametrize(("file", "text", "needle"), [
    ("config.json", "{not json", "config.json is corrupt (not JSON"),
    ("config.json", "[1, 2]", "config.json is corrupt (not a JSON object)"),
    ("records.jsonl", '{"key": "a"}\n{"key": "b", "trunc\n{"key": "c"}\n',
     "records.jsonl is corrupt (line 2"),
    ("records.jsonl", '{"key": "a"}\n"text"\n', "(line 2: not a JSON object)"),
    ("records.jsonl", '{"size": 1}\n', "(line 1: a record without its point's key)"),
])
def test_resume_a_corrupt_results_folder(file: str, text: str, needle: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copyfile(SPEC, tmp_path / "spec.toml")
    (tmp_path / "config.json").write_text(json.dumps({"spec_name": "default"}))
    (tmp_path / file).write_text(text)
    line = error_line(["experiment", "--resume", str(tmp_path)], capsys)
    assert needle in line and "cannot be resumed" in line


def test_resume_a_folder_without_config(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copyfile(SPEC, tmp_path / "spec.toml")
    line = error_line(["experiment", "--resume", str(tmp_path)], capsys)
    assert "is not a results folder" in line


# ---- groups, ports, fail, restore against a socket that is not the controller -----------
def closed_port() -> int:
    """A port nothing listens on (bound once by us, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed_socket() -> str:
    """A Unix socket file nothing listens on (bound once by us, then released)."""
    path = Path(tempfile.mkdtemp(prefix="mcastlab-api-")) / "api.sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
    return str(path)


@contextlib.contextmanager
def raw_listener(reply: bytes) -> Iterator[str]:
    """A Unix socket listener that reads one request, sends `reply` (maybe nothing) and
    closes."""
    path = Path(tempfile.mkdtemp(prefix="mcastlab-api-")) / "api.sock"
    srv = socket.socket(socket.AF_UNIX)
    srv.bind(str(path))
    srv.listen()

    def serve() -> None:
        with contextlib.suppress(OSError):
            conn, _ = srv.accept()
            with conn:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data and (chunk := conn.recv(4096)):
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = re.search(rb"(?i)content-length: *(\d+)", head)
                while length and len(body) < int(length[1]) and (chunk := conn.recv(4096)):
                    body += chunk  # read it all: replying before would break the pipe
                conn.sendall(reply)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield str(path)
    finally:
        srv.close()
        t.join(5)
        shutil.rmtree(path.parent, ignore_errors=True)


def http_server(status: int, body: bytes) -> contextlib.AbstractContextManager[str]:
    """An HTTP server answering one request with `status` and `body` (a raw listener: a
    threaded http.server hangs once the controller tests have made eventlet patch sockets)."""
    head = f"HTTP/1.0 {status} Whatever\r\nContent-Length: {len(body)}\r\n\r\n"
    return raw_listener(head.encode() + body)


API_COMMANDS = [["groups"], ["ports"], ["groups", "--json"], ["fail", "3"], ["restore", "3"]]


@pytest.mark.parametrize("argv", API_COMMANDS)
def test_api_on_a_closed_socket(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    api = closed_socket()
    line = error_line([*argv, "--api-socket", api], capsys)
    assert f"no mcastlab controller answers at {api} (Connection refused)" in line
    line = error_line([*argv, "--api-socket", api + ".none"], capsys)
    assert f"no mcastlab controller answers at {api}.none (No such file or directory)" in line


@pytest.mark.parametrize("reply", [b"", b"hello, this is not HTTP\r\n", b"\x00\xff" * 100])
@pytest.mark.parametrize("argv", API_COMMANDS)
def test_api_on_a_listener_that_is_not_http(reply: bytes, argv: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    with raw_listener(reply) as api:
        line = error_line([*argv, "--api-socket", api], capsys)
    assert f"no mcastlab controller answers at {api} (" in line


@pytest.mark.parametrize(("status", "body", "needle"), [
    (200, b"<html>hello</html>", "is not JSON"),
    (404, b"<html>not found</html>", "controller: Whatever"),
    (500, b'{"no_error_key": 1}', "controller: Whatever"),
    (200, b"[1, 2, 3]", "is not a JSON object"),
])
@pytest.mark.parametrize("argv", API_COMMANDS)
def test_api_on_another_http_service(status: int, body: bytes, needle: str, argv: list[str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    with http_server(status, body) as api:
        line = error_line([*argv, "--api-socket", api], capsys, code=2 if status < 400 else 1)
    assert needle in line
    assert status >= 400 or f"no mcastlab controller answers at {api} (" in line


@pytest.mark.parametrize("argv", [["groups"], ["ports"], ["fail", "1"]])
def test_api_on_another_json_service(argv: list[str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    with http_server(200, b'{"status": "ok", "items": {"a": 1}}') as api:
        line = error_line([*argv, "--api-socket", api], capsys)
    assert "is not the controller's" in line


def test_api_error_of_the_controller_is_its_message(
        capsys: pytest.CaptureFixture[str]) -> None:
    with http_server(400, b'{"error": "no node 99"}') as api:
        assert error_line(["fail", "99", "--api-socket", api], capsys,
                          code=1) == "mcastlab: error: controller: no node 99"


def test_api_answers_of_a_controller_still_print(capsys: pytest.CaptureFixture[str]) -> None:
    ports = {"s1": {"1": {"neighbour": "h0", "tx_packets": 3, "tx_bytes": 300,
                          "rx_packets": 2, "rx_bytes": 200}}}
    with http_server(200, json.dumps(ports).encode()) as api:
        assert main(["ports", "--api-socket", api]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["switch", "port", "to", "tx", "pkts", "tx", "bytes", "rx", "pkts",
                              "rx", "bytes"]
    assert out[2].split() == ["s1", "1", "h0", "3", "300", "2", "200"]
    with http_server(200, b'{"failed": [1, 4]}') as api:
        assert main(["fail", "1", "4", "--api-socket", api]) == 0
    assert capsys.readouterr().out == "failed nodes: 1, 4\n"


# ---- controller: checked before os-ken starts -------------------------------------------
@pytest.mark.parametrize(("text", "needle"), [
    (None, "topology file not found"),
    ("{not json", "invalid JSON at line 1"),
    ('{"hosts": "many"}', "--topology: "),
    ("[]", "--topology: "),
])
def test_controller_with_a_bad_topology_file(text: str | None, needle: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    topo = tmp_path / "topo.json"
    if text is not None:
        topo.write_text(text)
    line = error_line(["controller", "--topology", str(topo), "--port", str(closed_port()),
                       "--api-socket", str(tmp_path / "api.sock")], capsys)
    assert needle in line


def test_controller_with_a_folder_as_topology(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    line = error_line(["controller", "--topology", str(tmp_path)], capsys)
    assert line.startswith("mcastlab: error: --topology: ")


def test_controller_on_a_busy_port(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = busy.getsockname()[1]
        line = error_line(["controller", "--port", str(port), "--api-socket",
                           str(tmp_path / "api.sock")], capsys)
    assert f"--port {port}: 127.0.0.1:{port} is in use" in line


@pytest.mark.parametrize(("where", "needle"), [
    ("relative/api.sock", "give an absolute path"),
    ("{tmp}/link/api.sock", "is not a directory (a link?)"),
    ("{tmp}/open/api.sock", "may be written by others (mode 777)"),
    ("{tmp}/nobodys/api.sock", "belongs to another user (uid 65534)"),
])
def test_controller_api_socket_in_a_folder_others_reach(
        where: str, needle: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "open").mkdir()
    (tmp_path / "open").chmod(0o777)
    (tmp_path / "nobodys").mkdir(mode=0o700)
    os.chown(tmp_path / "nobodys", 65534, 65534)
    line = error_line(["controller", "--api-socket", where.format(tmp=tmp_path)], capsys)
    assert needle in line


@pytest.mark.parametrize(("argv", "needle"), [
    (["--port", "0"], "--port must be a port 1..65535, got 0"),
    (["--listen", "/tmp/x/of.sock", "--api-socket", "/tmp/x/of.sock"],
     "--listen and --api-socket are both /tmp/x/of.sock"),
    (["--listen", "/tmp/x/of.sock", "--allow", "10.9.0.2"], "--allow is for a TCP address"),
    (["--listen", "0.0.0.0"], "listens on loopback or a private address, not 0.0.0.0"),
    (["--listen", "10.9.0.1"], "needs the switches' addresses to allow (--allow)"),
])
def test_controller_ports_out_of_range(argv: list[str], needle: str,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert needle in error_line(["controller", *argv], capsys)


def test_python_m_controller_says_it_in_one_line(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from controller.__main__ import main as controller_main

    assert controller_main(["--topology", str(tmp_path / "none.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("controller: --topology: topology file not found")
    assert len(err.splitlines()) == 1


# ---- counts refused while parsing the arguments -----------------------------------------
BCAST = ["bcast", "--algo", "binomial", "--size", "1024"]


@pytest.mark.parametrize(("argv", "needle"), [
    ([*BCAST, "--hosts", "0"], "argument --hosts: every count must be >= 1, got '0'"),
    ([*BCAST, "--hosts", "-3"], "argument --hosts: every count must be >= 1, got '-3'"),
    ([*BCAST, "--hosts", "two"], "argument --hosts: a count of hosts, or counts: N or N,N,...; "
                                 "got 'two'"),
    ([*BCAST, "--hosts", "2,4,2"], "argument --hosts: a count is given twice in '2,4,2'"),
    ([*BCAST, "--iters", "0"], "argument --iters: must be >= 1, got 0"),
    ([*BCAST, "--frames", "-1"], "argument --frames: must be >= 0, got -1"),
    (["bcast", "--algo", "binomial", "--size", "-1"],
     "argument --size: a size in bytes, or with a binary suffix: 64K, 64KiB, 1M, 1MiB "
     "(K = 1024); got '-1'"),
    (["params", "--repeats", "0"], "argument --repeats: must be >= 1, got 0"),
    (["params", "--hosts", "0"], "argument --hosts: must be >= 1, got 0"),
    (["net", "--hosts", "-1"], "argument --hosts: must be >= 1, got -1"),
    (["pingpong", "--reps", "0"], "argument --reps: must be >= 1, got 0"),
    (["mpirun", "--np", "0", "--", "-m", "x"], "argument --np: must be >= 1, got 0"),
    (["mpirun", "--timeout", "0", "--", "-m", "x"], "argument --timeout: must be > 0 s, got 0"),
    (["osu", "bcast", "--algo", "binomial", "-i", "0"],
     "argument --repetitions/-i/--iterations: must be >= 1, got 0"),
    ([*BCAST, "--repetitions", "0"], "argument --repetitions: must be >= 1, got 0"),
    (["pingpong", "--repetitions", "0"], "argument --repetitions: must be >= 1, got 0"),
    (["osu", "barrier", "--algo", "mcast", "-x", "-1"],
     "argument -x/--warmup: must be >= 0, got -1"),
    (["osu", "bcast", "--algo", "binomial", "--hosts", "0"],
     "argument --hosts: must be >= 1, got 0"),
    # issue 54: sizes, lists, fractions, nodes and Mininet's spellings, refused as they are read
    ([*BCAST[:3], "--size", "64X"], "argument --size: a size in bytes, or with a binary "
                                    "suffix: 64K, 64KiB, 1M, 1MiB (K = 1024); got '64X'"),
    ([*BCAST[:3], "--size", "1K,1024"], "argument --size: a size is given twice in '1K,1024'"),
    (["osu", "bcast", "--algo", "binomial", "--size", "0,1K"],
     "argument --size: must be >= 1 B, got '0'"),
    (["bcast", "--algo", "nack,,binomial", "--size", "1"],
     "argument --algo: names separated by commas, got 'nack,,binomial'"),
    ([*BCAST, "--fragment", "0"], "argument --fragment: must be >= 1 B, got '0'"),
    ([*BCAST, "--topo", "tree,depth=3,fanout=2"],
     "argument --topo: tree,depth=3,fanout=2: our tree has two levels (depth 1: star, depth "
     "2: tree); for deeper trees take fattree:k=K,n=N (a k-ary n-tree)"),
    (["net", "--link", "tc,jitter=1ms"],
     "argument --link: 'jitter' is not taken here (bw, delay and loss are)"),
    (["range-trees", "--nodes", "16", "--failed", "h1,hx"],
     "argument --failed: a host's name or node id (h3 or 3), got 'hx'"),
    (["multinode", "--factor", "120%"],
     "argument --factor: a fraction in [0, 1] or a percentage up to 100%, got '120%'"),
    # the commands without --loss say where their loss comes from (docs/cli.md, "Loss")
    (["experiment", "x.toml", "--loss", "5%"],
     "--loss: not taken here: the spec's sweep.loss = [0.05] sets the loss (or a fault's "
     "action = \"loss\"), kept with the results in the folder's spec.toml, which --resume "
     "reads back"),
    (["testbed", "--link", "tc,loss=1"],
     "--link: not taken here: the spec's network.topology sets the links (bw=, delay_ms= of "
     "its shape, or a topology file), and its sweep.loss the loss"),
    (["bench", "--loss", "0.01"],
     "--loss: not taken here: bench measures at the conditions its suites fix; a lossy "
     "broadcast is mcastlab bcast --loss P, a sweep of losses an experiment spec's sweep.loss"),
    (["reproduce", "--loss"], "--loss: not taken here: reproduce measures at the conditions "
     "the papers' claims fix; a lossy broadcast is mcastlab bcast --loss P, a sweep of losses "
     "an experiment spec's sweep.loss"),
    (["calibrate", "--loss", "1%"], "--loss: not taken here: the envelope is the rate at "
     "which this machine keeps up without loss; a lossy run at it: --loss P on the command "
     "that measures"),
])
def test_counts_below_their_minimum_are_refused_while_parsing(
        argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == f"mcastlab {argv[0]}: error: {needle}"


# ---- --topo with --hosts and --bw: folded in, or a contradiction refused ----------------
class Resolved(Exception):
    """Raised instead of resolving the topology: the test has the spec it would run."""


@pytest.fixture
def resolved(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict]]:
    """The specs commands would run, with the parameters given as values
    (calibration.resolve patched to record and stop)."""
    from testbed.experiments import calibration

    specs: list[tuple[str, dict]] = []

    def record(text: str, *_args: object, given: dict | None = None, **_kwargs: object) -> None:
        specs.append((text, dict(given or {})))
        raise Resolved

    monkeypatch.setattr(calibration, "resolve", record)
    return specs


@pytest.mark.parametrize(("argv", "spec"), [
    (["net", "--hosts", "8"], ("star", {"hosts": 8})),
    (["net", "--hosts", "8", "--bw", "10"], ("star", {"hosts": 8, "bw": 10.0})),
    (["net", "--topo", "mesh:rows=2,cols=2", "--bw", "10"],
     ("mesh:rows=2,cols=2", {"bw": 10.0})),
    (["params", "--topo", "fattree", "--bw", "auto"], ("fattree", {"bw": "auto"})),
    ([*BCAST, "--hosts", "4"], ("star", {"hosts": 4})),
    ([*BCAST, "--hosts", "2,16,4"], ("star", {"hosts": 16})),  # one network, the largest
    ([*BCAST, "--topo", "star:hosts=16", "--hosts", "8"], ("star:hosts=16", {})),
    ([*BCAST, "--topo", "mesh:rows=2,cols=2", "--hosts", "3", "--bw", "5"],
     ("mesh:rows=2,cols=2", {"bw": 5.0})),
    (["mpirun", "--hosts", "h0,h1", "--", "-m", "collectives.programs.pingpong"],
     ("star", {})),
    (["up", "--topo", "mesh:rows=2,cols=2"], ("mesh:rows=2,cols=2", {})),
    (["osu", "bcast", "--algo", "binomial", "--hosts", "4", "--bw", "10"],
     ("star", {"hosts": 4, "bw": 10.0})),
    (["osu", "barrier", "--algo", "range-tree", "--topo", "fattree:k=2,n=2"],
     ("fattree:k=2,n=2", {})),
])
def test_hosts_and_bw_are_given_as_values_beside_the_topology(
        argv: list[str], spec: tuple[str, dict], resolved: list[tuple[str, dict]]) -> None:
    """--hosts and --bw reach the topology as values (never pasted into its text)."""
    with pytest.raises(Resolved):
        main(argv)
    assert resolved == [spec]


@pytest.mark.parametrize(("argv", "needle"), [
    (["net", "--topo", "star:hosts=4", "--hosts", "8"],
     "--hosts sizes a bare 'star', not star:hosts=4: give hosts= in --topo"),
    (["net", "--topo", "star:bw=10", "--hosts", "8"], "give hosts= in --topo"),
    (["params", "--topo", "mesh:rows=2,cols=2", "--hosts", "8"], "give the size in --topo"),
    ([*BCAST, "--topo", "star:hosts=4", "--hosts", "8"], "--hosts 8: star:hosts=4 has 4 hosts"),
    ([*BCAST, "--topo", "mesh:rows=2,cols=2", "--hosts", "5"], "has 4 hosts"),
    (["net", "--topo", "star:bw=20", "--bw", "10"],
     "--bw 10 and bw=20 in --topo: give the rate once"),
    ([*BCAST, "--topo", "topo.json", "--bw", "10"],
     "--bw: the topology file topo.json sets its own link rates"),
])
def test_hosts_and_bw_that_contradict_topo_are_refused(
        argv: list[str], needle: str, resolved: list[str],
        capsys: pytest.CaptureFixture[str]) -> None:
    assert needle in error_line(argv, capsys)
    assert resolved == []


# ---- mcastlab osu: the algorithm, -m and the topology's fit, before any network ---------
OSU = ["osu", "bcast", "--algo", "binomial"]


@pytest.mark.parametrize(("argv", "needle"), [
    (["osu", "bcast", "--algo", "mcast"],
     "unknown broadcast 'mcast'; choose from mpich, sequential, binomial,"),
    (["osu", "barrier", "--algo", "binomial"],
     "unknown barrier 'binomial'; choose from mpich, tree, pairwise, mcast, range-tree"),
    ([*OSU, "-m", "0:64"], "-m 0:64: the smallest size must be at least 1 byte, got 0"),
    ([*OSU, "-m", "64:8"], "-m 64:8: the largest size 8 is below the smallest 64"),
    ([*OSU, "-m", "1:2:3"], "-m takes MAX, MIN:MAX, MIN: or :MAX, got '1:2:3'"),
    ([*OSU, "-m", "1KB:2X"], "-m/--message-size: a size in bytes, or with a binary suffix: "
     "64K, 64KiB, 1M, 1MiB (K = 1024); got '2X'"),
    (["osu", "barrier", "--algo", "mcast", "-m", "64"], "-m: osu barrier has no message sizes"),
    (["osu", "barrier", "--algo", "mcast", "--size", "1K"],
     "--size: osu barrier has no message sizes"),
    ([*OSU, "-m", "64", "--size", "1K,2K"],
     "-m (sizes doubling from MIN to MAX) or --size (a list), not both"),
    ([*OSU, "--hosts", "1"], "osu_bcast needs at least two ranks, one per host; star-1 has 1"),
    ([*OSU, "--topo", "star:hosts=4", "--hosts", "8"], "--hosts 8: star:hosts=4 has 4 hosts"),
    (["osu", "bcast", "--algo", "opt-mesh", "--hosts", "4"],
     "opt-mesh runs on a mesh (its tree follows the mesh's routing), not on a star"),
    (["osu", "barrier", "--algo", "range-tree", "--topo", "mesh:rows=2,cols=2"],
     "range-tree runs on a fat tree, BMIN or star"),
])
def test_osu_refuses_before_a_network_comes_up(argv: list[str], needle: str,
                                               resolved: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert needle in error_line(argv, capsys)
    assert resolved == []


# ---- the old mcastlab run NAME: no .toml, no such program --------------------------------
def test_run_a_name_that_is_neither_spec_nor_program(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["run", "myspec"]) == 2
    note, line = capsys.readouterr().err.strip().splitlines()
    assert note == ("mcastlab: note: 'mcastlab run' is now 'mcastlab mpirun' (and 'mcastlab "
                    "experiment' for experiment specs)")
    assert line.startswith("mcastlab: error: no such program file myspec (a program goes "
                           "after '--'")
    assert "myspec.toml?" not in line
    (tmp_path / "myspec.toml").write_text("")
    assert main(["run", "myspec"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "; the experiment spec myspec.toml? mcastlab experiment myspec.toml")
    assert "no such program file gone.py" in error_line(["mpirun", "--", "gone.py"], capsys)
    assert "unknown broadcast 'fastest'; choose from" in error_line(
        ["mpirun", "--bcast", "fastest", "--", "-m", "x"], capsys)
    assert "opt-tree needs t_hold and t_end" in error_line(
        ["mpirun", "--bcast", "opt-tree", "-o", "t_hold=1e-5", "--", "-m", "x"], capsys)
    assert "myspec" in error_line(["experiment", "myspec"], capsys)  # no such spec file
    assert "nack has no send order (a point-to-point tree's)" in error_line(
        ["bcast", "--algo", "nack", "--size", "1", "--send-order", "fifo"], capsys)
    assert "send_order must be one of fifo, overlapped, got 'lifo'" in error_line(
        ["mpirun", "--bcast", "binomial", "-o", "send_order=lifo", "--", "-m", "x"], capsys)


# ---- every subcommand, with bad input ----------------------------------------------------
BAD_INPUT = {
    "doctor": [["doctor", "--json", "extra"], ["doctor", "--servers", "a b"],
               ["doctor", "--servers", "localhost"]],
    "topo": [["topo", "nosuchshape"], ["topo", "/nonexistent.toml"]],
    "net": [["net", "--topo", "nosuchshape"], ["net", "--loss", "2"],
            ["net", "--script", "/nonexistent"]],
    "lab": [["lab", "99"], ["lab", "1", "--check", "/nonexistent.toml"],
            ["lab", "--solve", "x.toml"]],
    "up": [["up", "--topo", "nosuchshape"], ["up", "--mode", "nosuchmode"],
           ["up", "--switch", "nosuchswitch"], ["up", "--switch", "hub", "--mode", "contiguous"],
           ["up", "--placement", "blocks"], ["up", "--servers", "a", "--tunnel", "gre"],
           ["up", "--servers", "a", "--ssh-config", "/nonexistent"]],
    "mpirun": [["mpirun", "--", "nosuchprogram.py"], ["mpirun", "--topo", "nosuchshape", "--",
                                                      "x"],
               ["run", "nosuchprogram.py"],  # the old spelling
               ["mpirun", "--bcast", "fastest", "--", "-m", "x"],
               # t_hold without t_end (given none, they are measured on first use)
               ["mpirun", "--bcast", "opt-tree", "-o", "t_hold=1e-5", "--", "-m", "x"],
               ["mpirun", "--barrier", "mcast", "-o", "nodes", "--", "-m", "x"]],
    "experiment": [["experiment", "/nonexistent.toml"], ["experiment", "--resume", "/nonexistent"],
                   ["run", "--resume", "/nonexistent"]],
    "testbed": [["testbed", "--spec", "/nonexistent.toml"]],
    "pingpong": [["pingpong", "--topo", "nosuchshape"]],
    "controller": [["controller", "--topology", "/nonexistent.json"],
                   ["controller", "--mode", "nosuchmode"]],
    "groups": [["groups", "--api-socket", "/nonexistent/api.sock"]],
    "ports": [["ports", "--api-socket", "/nonexistent/api.sock"]],
    "fail": [["fail", "one"]],
    "restore": [["restore"]],
    "trees": [["trees", "nosuchalgo", "--t-hold", "1", "--t-end", "1"],
              ["trees", "binomial", "--t-hold", "1", "--t-end", "1"]],
    "range-trees": [["range-trees", "--nodes", "16"],
                    ["range-trees", "--nodes", "15", "--failed", "1"]],
    "algorithms": [["algorithms", "fastest"], ["algorithms", "--collective", "allreduce"],
                   ["algorithms", "binomial", "--collective", "barrier"]],
    "multinode": [["multinode", "--topo", "fattree:k=4,n=2"], ["multinode", "--dilation", "3"],
                  ["multinode", "--sets", "0:0"],
                  ["multinode", "--topo", "mesh", "--scheme", "u-torus"],
                  ["multinode", "--scheme", "telepathy"], ["multinode", "--factor", "2"],
                  ["multinode", "--size", "big"], ["multinode", "--sources", "99"]],
    "params": [["params", "--topo", "nosuchshape"], ["params", "--sizes", "big"]],
    "allgather": [["allgather", "--algo", "telepathy"], ["allgather", "--algo", ","],
                  ["allgather", "--size", "big"], ["allgather", "--size", "-1"],
                  ["allgather", "--topo", "nosuchshape"], ["allgather", "--loss", "1"]],
    "bcast": [["bcast", "--algo", "nosuchalgo", "--size", "1"],
              ["bcast", "--algo", "binomial", "--size", "1", "--topo", "nosuchshape"],
              ["bcast", "--algo", "binomial", "--size", "1", "--servers", "a", "--no-flow"],
              ["bcast", "--algo", "nack", "--size", "1", "--send-order", "fifo"],
              ["bcast", "--algo", "binomial", "--size", "1", "--send-order", "lifo"]],
    "osu": [["osu", "bcast", "--algo", "nosuchalgo"], ["osu", "allgather", "--algo", "binomial"],
            ["osu", "allreduce", "--algo", "mpich"],
            ["osu", "bcast", "--algo", "nack", "--servers", "localhost,localhost"],
            ["osu", "barrier", "--algo", "mpich", "--topo", "nosuchshape"]],
    "calibrate": [["calibrate", "--max", "0"], ["calibrate", "--hosts", "two"]],
    "cleanup": [["cleanup", "now"]],
    "bench": [["bench", "--suite", "nosuchsuite"]],
    "reproduce": [["reproduce", "--only", "nosuchclaim"], ["reproduce", "--only"],
                  ["reproduce", "--scale", "--only", "siebert.skew"]],
    "report": [["report"], ["report", "/nonexistent/results"], ["report", "/proc/self"]],
}


def test_bad_input_covers_every_subcommand() -> None:
    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    assert set(BAD_INPUT) == set(commands)


@pytest.mark.parametrize("name", sorted(BAD_INPUT))
def test_every_subcommand_has_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main([name, "--help"])
    out, err = capsys.readouterr()
    assert exc.value.code == 0 and err == ""
    assert out.startswith(f"usage: mcastlab {name}") and "options:" in out


@pytest.mark.parametrize("argv", [argv for cases in BAD_INPUT.values() for argv in cases]
                         + [[name, "--no-such-option"] for name in BAD_INPUT],
                         ids=" ".join)
def test_every_subcommand_refuses_bad_input_without_a_traceback(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    out, err = capsys.readouterr()
    assert code not in (0, None)
    assert "Traceback" not in out + err
    assert "error: " in err.strip().splitlines()[-1]


@pytest.mark.parametrize("argv", [["bcast", "--algo", "binomial", "--size", "1", "--hosts", "0"],
                                  ["pingpong", "--reps", "0"], ["cleanup", "now"]])
def test_the_installed_entry_refuses_bad_input(argv: list[str],
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m testbed.cli` (what `mcastlab` runs: pyproject's [project.scripts]), only
    with input argparse itself refuses: a subprocess has no guard against starting things."""
    with pytest.raises(SystemExit):  # first in-process: the refusal is argparse's
        main(argv)
    capsys.readouterr()
    done = subprocess.run([sys.executable, "-m", "testbed.cli", *argv], capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 2
    assert done.stdout == "" and "Traceback" not in done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("mcastlab") and ": error: " in last
