"""`mcastlab osu` on the real stack: the OSU micro-benchmarks 7.4 layout on stdout, to the
character, with the fidelity comment and the link rate after it; and the JSON record with
every row judged."""

from __future__ import annotations

import json
import subprocess

from .conftest import MCASTLAB

NET = ["--topo", "star", "--hosts", "4", "--bw", "100"]
SIZES = [1, 2, 4, 8, 16, 32, 64]


def osu(*args: str) -> str:
    out = subprocess.run([*MCASTLAB, "osu", *args, *NET], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return out.stdout


def columns(line: str, widths: list[int]) -> list[str]:
    """The fixed-width fields of a row (printf's %-10d, %18.2f, %12d ...)."""
    assert len(line) == sum(widths), repr(line)
    cut = [sum(widths[:i]) for i in range(len(widths) + 1)]
    return [line[a:b] for a, b in zip(cut, cut[1:], strict=False)]


def test_osu_bcast_full_prints_the_omb_layout(caps, clean_after):
    lines = osu("bcast", "--algo", "binomial", "-m", "1:64", "-i", "20", "-x", "2",
                "-f").splitlines()
    assert lines[:4] == [
        "", "# OSU MPI Broadcast Latency Test v7.4", "# Datatype: MPI_CHAR.",
        "# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations"]
    rows = lines[4:4 + len(SIZES)]
    for size, line in zip(SIZES, rows, strict=True):
        size_f, avg, low, high, iters = columns(line, [10, 18, 18, 18, 12])
        assert size_f == f"{size:<10d}" and iters == f"{20:12d}"
        avg, low, high = float(avg), float(low), float(high)
        assert 0 < low <= avg <= high, line
    assert all(ln.startswith("# fidelity") for ln in lines[4 + len(SIZES):-1]), lines
    assert len(lines) > 5 + len(SIZES) and lines[-1].startswith("# links at "), lines


def test_osu_barrier_prints_one_row_without_a_size(caps, clean_after):
    lines = osu("barrier", "--algo", "mcast", "-i", "20", "-x", "2").splitlines()
    assert lines[:3] == ["", "# OSU MPI Barrier Latency Test v7.4", "# Avg Latency(us)"]
    (avg,) = columns(lines[3], [17])
    assert float(avg) > 0
    assert lines[4:-1] and all(ln.startswith("# fidelity") for ln in lines[4:-1]), lines
    assert lines[-1].startswith("# links at "), lines


def test_osu_json_carries_the_lines_the_configuration_and_every_rows_fidelity(
        caps, clean_after):
    res = json.loads(osu("bcast", "--algo", "binomial", "-m", "1:64", "-i", "20", "-x", "2",
                         "--json"))
    assert (res["benchmark"], res["osu_version"], res["algorithm"]) == \
        ("osu_bcast", "7.4", "binomial")
    assert (res["hosts"], res["topology"], res["link_rate"]["mbit"]) == (4, "star-4", 100.0)
    assert res["mpi4py"] and res["mpi_library"].startswith("MPICH")
    assert res["send_order"] == "fifo"  # the trees' default, recorded
    assert res["lines"][:4] == ["", "# OSU MPI Broadcast Latency Test v7.4",
                                "# Datatype: MPI_CHAR.", "# Size       Avg Latency(us)"]
    assert [r["size"] for r in res["rows"]] == SIZES
    for r, line in zip(res["rows"], res["lines"][4:], strict=True):
        assert (r["iterations"], r["skip"]) == (20, 2)
        assert 0 < r["min_us"] <= r["avg_us"] <= r["max_us"]
        assert line == r["line"] == f"{r['size']:<10d}{r['avg_us']:18.2f}"
        fid = r["fidelity"]
        assert isinstance(fid["flags"], list) and fid["ok"] == (not fid["flags"])
        assert r["window"][0] <= r["window"][1]


def test_osu_takes_a_list_of_algorithms_and_sizes_with_suffixes(caps, clean_after, tmp_path):
    """Issue 54: --algo a list (each run in turn on the one network), -m with suffixes,
    --out keeping what was printed."""
    res = json.loads(osu("bcast", "--algo", "binomial,mpich", "-m", "1K:2K", "-i", "10",
                         "-x", "2", "--json", "--out", str(tmp_path)))
    assert [r["algorithm"] for r in res["runs"]] == ["binomial", "mpich"]
    for run in res["runs"]:
        assert [r["size"] for r in run["rows"]] == [1024, 2048]
        assert run["topology"] == "star-4" and run["link_rate"]["mbit"] == 100.0
    kept = list(tmp_path.glob("osu-*/result.json"))
    assert len(kept) == 1 and json.loads(kept[0].read_text()) == res


def test_osu_takes_a_list_of_sizes_and_runs_each_barrier_family(caps, clean_after):
    """Issue 54: --size a list (its rows in the order given, in place of -m's doubling);
    the software tree and MPICH 1's pairwise barrier, each run by its own family's runner."""
    res = json.loads(osu("allgather", "--algo", "ring", "--size", "2K,1K", "-i", "10", "-x",
                         "2", "--json"))
    assert [r["size"] for r in res["rows"]] == [2048, 1024]
    assert [ln.split()[0] for ln in res["lines"][-2:]] == ["2048", "1024"]
    res = json.loads(osu("barrier", "--algo", "tree,pairwise", "-i", "10", "-x", "2",
                         "--json"))
    assert [r["algorithm"] for r in res["runs"]] == ["tree", "pairwise"]
    assert all(len(r["rows"]) == 1 and r["rows"][0]["avg_us"] > 0 for r in res["runs"])
