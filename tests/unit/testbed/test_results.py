"""testbed.results: results folders (stamped, safe and unique names), text tables, the HTML
page, JSON files, and the versions of every component."""

import json
from pathlib import Path

import pytest

from testbed import results
from testbed.results import step_line

STAMP = "20250102-030405"


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every folder made in the test gets the same time stamp, so names collide."""
    monkeypatch.setattr(results.time, "strftime", lambda fmt, *args: STAMP)


# ---- new_results_dir --------------------------------------------------------------------
def test_results_dir_is_stamped_and_created(tmp_path: Path) -> None:
    path = results.new_results_dir("pingpong-star-8", tmp_path)
    assert path.is_dir() and path.parent == tmp_path
    stamp, _, name = path.name.partition("-pingpong")
    assert name == "-star-8"
    assert len(stamp) == len(STAMP) and stamp.replace("-", "").isdigit()


def test_results_dir_creates_missing_parents(tmp_path: Path) -> None:
    root = tmp_path / "a" / "b"
    path = results.new_results_dir("x", root)
    assert path.is_dir() and path.parent == root


def test_results_dir_name_is_made_safe(tmp_path: Path, frozen_clock: None) -> None:
    path = results.new_results_dir("mesh rows=2/cols 3", tmp_path)
    assert path.name == f"{STAMP}-mesh_rows_2_cols_3"
    assert list(tmp_path.iterdir()) == [path]


def test_results_dir_is_unique_on_collision(tmp_path: Path, frozen_clock: None) -> None:
    made = [results.new_results_dir("pingpong-mesh-2x2", tmp_path) for _ in range(4)]
    assert [p.name for p in made] == [f"{STAMP}-pingpong-mesh-2x2",
                                      f"{STAMP}-pingpong-mesh-2x2-2",
                                      f"{STAMP}-pingpong-mesh-2x2-3",
                                      f"{STAMP}-pingpong-mesh-2x2-4"]
    assert all(p.is_dir() and p.parent == tmp_path for p in made)


def test_results_dir_collision_keeps_the_name_safe(tmp_path: Path, frozen_clock: None) -> None:
    first = results.new_results_dir("a b/c", tmp_path)
    second = results.new_results_dir("a b/c", tmp_path)
    assert first.name == f"{STAMP}-a_b_c"
    assert second.parent == tmp_path
    assert second.name == f"{STAMP}-a_b_c-2"


# ---- text_table -------------------------------------------------------------------------
def test_text_table_right_aligns_every_column() -> None:
    text = results.text_table(["dst", "latency_us", "mbit"],
                              [["h1", 12.5, 94], ["h10", 7, 941.25]])
    lines = text.splitlines()
    assert lines == [
        "dst  latency_us    mbit",
        "---  ----------  ------",
        " h1        12.5      94",
        "h10           7  941.25",
    ]


def test_text_table_widths_follow_the_widest_cell() -> None:
    rows = [["a", "b" * 12], ["c" * 7, "d"]]
    lines = results.text_table(["x", "y"], rows).splitlines()
    assert len({len(line) for line in lines}) == 1
    assert lines[1] == "-" * 7 + "  " + "-" * 12
    for line, row in zip(lines[2:], rows, strict=True):
        assert line.split() == row
        assert line.endswith(row[-1])


def test_text_table_without_rows() -> None:
    assert results.text_table(["name", "v"], []) == "name  v\n----  -"


# ---- html_page --------------------------------------------------------------------------
def test_html_page_escapes_everything_user_given() -> None:
    page = results.html_page(
        "<b>run</b> & co",
        [("h0 <-> h1", ["<th>", "value"], [["<script>alert(1)</script>", 1.5]])],
        {"topology": "a<b", "note": 'say "hi"'})
    assert "<script>" not in page and "<b>" not in page
    assert "<title>&lt;b&gt;run&lt;/b&gt; &amp; co</title>" in page
    assert "<h1>&lt;b&gt;run&lt;/b&gt; &amp; co</h1>" in page
    assert "<h2>h0 &lt;-&gt; h1</h2>" in page
    assert "<th>&lt;th&gt;</th><th>value</th>" in page
    assert "<td>&lt;script&gt;alert(1)&lt;/script&gt;</td><td>1.5</td>" in page
    assert "&quot;topology&quot;: &quot;a&lt;b&quot;" in page
    assert page.startswith("<!doctype html>") and page.endswith("</html>\n")


def test_html_page_has_one_table_per_section_and_the_config() -> None:
    page = results.html_page("t", [("one", ["a"], [[1], [2]]), ("two", ["b"], [])],
                             {"reps": 50, "path": Path("/x")})
    assert page.count("<table>") == 2
    assert page.count("<tr>") == 2 + 2  # a header row each, then two data rows
    assert page.index("<h2>one</h2>") < page.index("<h2>two</h2>") \
        < page.index("<h2>Configuration and versions</h2>")
    assert "&quot;path&quot;: &quot;/x&quot;" in page
    assert "&quot;reps&quot;: 50" in page


# ---- JSON files -------------------------------------------------------------------------
def test_write_json_sorts_keys_and_stringifies(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    results.write_json(path, {"b": 1, "a": [1, 2], "where": tmp_path})
    text = path.read_text()
    assert text.endswith("}\n")
    assert json.loads(text) == {"a": [1, 2], "b": 1, "where": str(tmp_path)}
    assert text.index('"a"') < text.index('"b"') < text.index('"where"')


def test_read_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    assert results.read_jsonl(path) == []
    path.write_text('{"dst": 1}\n\n{"dst": 2, "ok": true}\n   \n')
    assert results.read_jsonl(path) == [{"dst": 1}, {"dst": 2, "ok": True}]


def test_versions_name_every_component_with_a_version() -> None:
    """mpiexec --version starts with a heading: the hydra version is read off its Version
    line, not the heading."""
    v = results.versions()
    for key in ("mcastlab", "python", "kernel", "machine", "cpus", "mininet", "openvswitch",
                "os-ken", "mpi4py", "mpich", "mpich_wheel"):
        assert v[key] and not v[key].endswith(":"), (key, v[key])
    assert v["mpich"].startswith("hydra ") and v["mpich"][6].isdigit(), v["mpich"]


def _git(repo: Path, *args: str) -> None:
    import subprocess  # only these tests make a repository

    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t",
                    *args], check=True, capture_output=True)


def test_the_checkout_gives_the_commit_and_whether_it_is_dirty(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.py").write_text("x = 1\n")
    _git(repo, "add", "a.py")
    _git(repo, "commit", "-q", "-m", "one")
    clean = results.checkout(repo)
    assert len(clean["commit"]) == 40 and clean["dirty"] is False
    assert clean["checkout"] == str(repo.resolve())
    (repo / "a.py").write_text("x = 2\n")
    dirty = results.checkout(repo)
    assert dirty["commit"] == clean["commit"] and dirty["dirty"] is True
    (repo / "a.py").write_text("x = 1\n")
    (repo / "new.py").write_text("")  # an untracked file counts too
    assert results.checkout(repo)["dirty"] is True


def test_outside_a_checkout_the_commit_is_null_and_says_so(tmp_path: Path) -> None:
    got = results.checkout(tmp_path)
    assert got["commit"] is None and got["dirty"] is None
    assert "not a git checkout" in got["checkout"]


def test_versions_carry_this_checkouts_commit() -> None:
    """config.json (experiments), bench JSON and reproduce.json all take versions()."""
    v = results.versions()
    assert {"commit", "dirty", "checkout"} <= v.keys()
    assert v == v | results.checkout()


def test_a_step_line_says_done_of_planned_the_point_and_the_times() -> None:
    assert step_line(0, 4, "nack 64 KiB", 0.2) == "[0/4] done; now: nack 64 KiB (0 s elapsed)"
    assert step_line(1, 4, "binomial 64 KiB", 70.0) == \
        "[1/4] done; now: binomial 64 KiB (1 min 10 s elapsed, about 3 min 30 s left)"
    assert step_line(4, 4, "", 4000.0) == "[4/4] done (1 h 06 min elapsed)"
