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


class _Plotted:
    """A suite whose page has a figure; its plot writes what save_figure would."""

    @staticmethod
    def markdown(res: dict) -> list[str]:
        return ["a table"]

    @staticmethod
    def plot(res: dict, path: Path) -> None:
        path.write_bytes(b"png")


def test_the_page_links_only_the_figure_formats_written(tmp_path: Path, monkeypatch) -> None:
    from testbed.bench.suites import Suite, write_suite
    from testbed.report.figures import FORMATS_ENV

    suite = Suite("demo", _Plotted, "demo")
    page = write_suite(tmp_path, suite, {"date": "2026-11-27"}, "machine").read_text()
    assert "![demo](demo.png)\n" in page and "SVG" not in page  # tests write the PNG alone
    monkeypatch.delenv(FORMATS_ENV)
    page = write_suite(tmp_path, suite, {"date": "2026-11-27"}, "machine").read_text()
    assert "![demo](demo.png) (also [SVG](demo.svg), [PDF](demo.pdf))" in page
