"""testbed.bench.suites without a network: index.md puts together every suite's report the
folder holds, in the suites' order, so publishing one suite into the curated bench/ no
longer turns index.md into a copy of that suite's report."""

from pathlib import Path

from testbed.bench.suites import write_index


def test_the_index_keeps_every_suite_in_order(tmp_path: Path) -> None:
    for name in ("cluster", "results", "bcast", "notes"):
        (tmp_path / f"{name}.md").write_text(f"# {name}\n")
    index = write_index(tmp_path)
    assert index == tmp_path / "index.md"
    assert index.read_text() == "# results\n\n\n# bcast\n\n\n# cluster\n"
    (tmp_path / "cluster.md").write_text("# cluster, again\n")  # one suite published anew
    assert write_index(tmp_path).read_text().endswith("# bcast\n\n\n# cluster, again\n")
