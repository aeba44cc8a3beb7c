"""testbed.cli: the commands that need neither root nor a network, and argument errors.

Nothing here may reach a command that brings a network up: `run` is only exercised on
errors raised before the emulation starts.
"""

import json
from pathlib import Path

import pytest

from testbed.cli.main import build_parser, main
from topologies import Topology, parse_spec


def _one_error_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("mcastlab: error: ")
    return lines[0]


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


# ---- argument errors (argparse) ---------------------------------------------------------
@pytest.mark.parametrize("argv", [[], ["topo"], ["nosuchcommand"], ["mpirun", "--np", "many"],
                                  ["topo", "star", "--bogus"]])
def test_argument_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "mcastlab" in err and "error:" in err
    assert "Traceback" not in err


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    for command in ("doctor", "topo", "up", "mpirun", "experiment", "testbed", "pingpong",
                    "cleanup", "bench"):
        assert command in out


def test_parser_defaults() -> None:
    args = build_parser().parse_args(["mpirun", "--", "-m", "collectives.programs.pingpong"])
    assert (args.topo, args.np, args.ppn, args.hosts, args.timeout) == ("star", None, 1, None,
                                                                         300.0)
    assert args.program[-2:] == ["-m", "collectives.programs.pingpong"]
    args = build_parser().parse_args(["testbed"])
    assert (args.out, args.spec) == ("results", None)  # experiments/default.toml
    args = build_parser().parse_args(["pingpong"])
    assert (args.out, args.reps) == ("results", 50)
    parse_spec(args.topo)  # the ping-pong's topology is a valid spec


def test_run_with_a_spec_is_an_experiment(capsys) -> None:
    from testbed.cli.main import _is_experiment

    # the old spelling, `mcastlab run`, told the two commands apart by their arguments
    assert _is_experiment(["run", "experiments/default.toml"])
    assert _is_experiment(["run", "--resume", "results/x"])
    assert not _is_experiment(["run", "--topo", "star", "--", "-m", "x.pingpong"])
    assert not _is_experiment(["run", "--", "x.toml"])  # a program's argument stays one
    assert main(["run", "experiments/default.toml", "--list"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("mcastlab: note: 'mcastlab run' is now 'mcastlab experiment'")
    assert out.startswith("default: 32 points on star-16 (16 hosts)")
    assert main(["experiment", "experiments/default.toml", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("default: 32 points on star-16 (16 hosts)")
    assert "nack               256 KiB  16 hosts" in out
    assert "mpich               64 KiB  2 hosts" in out
    assert main(["experiment", "experiments/study.toml", "--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("study: 96 points on star")
    assert "dyn-tree" in out and "1 MiB" in out and "traffic=background" in out


# ---- run: only errors raised before any network starts ----------------------------------
# The topology is deliberately invalid as well: should the program check ever move after
# parse_spec, these tests fail on the message instead of bringing a network up.
@pytest.mark.parametrize("argv", [["mpirun", "--topo", "nosuchshape"],
                                  ["mpirun", "--topo", "nosuchshape", "--"],
                                  ["mpirun", "--topo", "nosuchshape", "--np", "2", "--"]])
def test_run_without_a_program_is_a_usage_error(
        argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "give the program after '--'" in _one_error_line(err)


def test_run_with_a_bad_topology_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mpirun", "--topo", "nosuchshape", "--", "-m", "collectives.programs.pingpong"]) \
        == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "unknown topology shape 'nosuchshape'" in _one_error_line(err)


def test_bcast_flow_benchmark_is_automatic_unless_asked():
    parse = build_parser().parse_args
    base = ["bcast", "--algo", "nack", "--size", "1024"]
    assert parse(base).flow is None  # on without loss, skipped (with a message) under it
    assert parse([*base, "--no-flow"]).flow is False
    assert parse([*base, "--flow", "--loss", "0.1"]).flow is True


def test_bcast_late_and_loss_scope_choices(capsys: pytest.CaptureFixture[str]) -> None:
    parse = build_parser().parse_args
    base = ["bcast", "--algo", "two-stage", "--size", "65536"]
    assert parse(base).late is None
    assert parse([*base, "--late", "receivers:157"]).late == ("receivers", 157.0)
    assert parse([*base, "--loss-scope", "multicast-in"]).loss_scope == "multicast-in"
    for bad in ("sideways:5", "root:", "root:-1", "root:20000"):
        with pytest.raises(SystemExit) as exc:
            parse([*base, "--late", bad])
        assert exc.value.code == 2
        assert "expected root:MS or receivers:MS" in capsys.readouterr().err


# ---- osu: the fidelity comments after the OSU lines -------------------------------------
def test_osu_fidelity_lines_name_each_flagged_row() -> None:
    from testbed.cli.measure import fidelity_lines
    from testbed.experiments.osu import OsuRow

    def row(size: int | None, *flags: str) -> OsuRow:
        return OsuRow(size=size, avg_us=10.0, min_us=9.0, max_us=11.0, iterations=100,
                      skip=10, window=(0.0, 1.0), wait_per_turn_s=None,
                      fidelity={"flags": list(flags)}, line="")

    assert fidelity_lines([row(1), row(2)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(None)]) == ["# fidelity: kept up (no flag)"]
    assert fidelity_lines([row(1), row(65536, "switch waited", "a link short")]) == [
        "# fidelity 65536: switch waited; a link short (not a result: the emulator did not "
        "keep up)", "# fidelity: the other rows kept up (no flag)"]
    assert fidelity_lines([row(None, "hosts waited")]) == [
        "# fidelity: hosts waited (not a result: the emulator did not keep up)"]
