"""testbed.report.figures: save_figure writes PNG, SVG and PDF with the caption on the
figure; the caption names the topology, the link rate and its dilation, the repetitions,
the date and the commit (+dirty)."""

from __future__ import annotations

from pathlib import Path

import pytest

from testbed.errors import UsageError
from testbed.report.figures import (
    FORMATS,
    FORMATS_ENV,
    PNG_DPI,
    caption_line,
    commit_text,
    formats,
    pyplot,
    rate_text,
    run_plots_drawn,
    save_figure,
)

AUTO = {"nominal_mbit": 100.0, "mbit": 20.0, "auto": True, "source": "calibration cache",
        "dilation": 5.0}


def test_the_rate_says_its_dilation_and_source() -> None:
    assert rate_text(AUTO) == ("20 Mbit/s, x5 dilation of 100 Mbit/s "
                               "(auto: calibration cache)")
    given = {"nominal_mbit": 100.0, "mbit": 100.0, "auto": False, "source": "given",
             "dilation": 1.0}
    assert rate_text(given) == "100 Mbit/s, x1 dilation of 100 Mbit/s"
    assert rate_text({"mbit": None}) == "unlimited links"
    assert rate_text(None) == "link rate not recorded"


def test_the_commit_is_short_and_says_dirty() -> None:
    full = "0123456789abcdef0123456789abcdef01234567"
    assert commit_text({"commit": full, "dirty": False}) == "commit 0123456789"
    assert commit_text({"commit": full, "dirty": True}) == "commit 0123456789+dirty"
    assert commit_text({"commit": None, "dirty": None}) == "no commit (not a git checkout)"
    assert commit_text({}) == "commit not recorded"


def test_the_caption_line_names_everything_given() -> None:
    line = caption_line(topology="star:hosts=16", rate=rate_text(AUTO),
                        repetitions="10 repetitions per point", date="2026-01-01 12:00",
                        versions={"commit": "abcdef0123456", "dirty": True})
    assert line == ("topology star:hosts=16 | 20 Mbit/s, x5 dilation of 100 Mbit/s (auto: "
                    "calibration cache) | 10 repetitions per point | 2026-01-01 12:00 | "
                    "commit abcdef0123+dirty")
    assert caption_line(topology=None, rate=None, repetitions=None, date=None,
                        versions=None) == "commit not recorded"


@pytest.mark.every_figure_format  # reads the SVG or the PDF
def test_save_figure_writes_png_svg_and_pdf_with_the_caption(tmp_path: Path) -> None:
    from PIL import Image  # Pillow: reads the PNG's size back

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.errorbar([1, 2], [3, 4], yerr=[[0.5, 0.5], [1, 1]])
    caption = "topology star:hosts=4 | 20 Mbit/s, x5 dilation | commit abc1234+dirty"
    paths = save_figure(plt, fig, tmp_path / "f.png", caption)
    assert paths == [tmp_path / "f.png", tmp_path / "f.svg", tmp_path / "f.pdf"]
    assert (tmp_path / "f.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (tmp_path / "f.pdf").read_bytes()[:5] == b"%PDF-"
    svg = (tmp_path / "f.svg").read_text()
    assert caption in svg  # text stays text: searchable in the SVG
    with Image.open(tmp_path / "f.png") as img:
        assert img.size[0] >= 4 * PNG_DPI * 0.9  # at PNG_DPI, not 100
    assert plt.get_fignums() == []  # closed


@pytest.mark.every_figure_format  # reads the SVG or the PDF
def test_a_long_caption_is_wrapped_not_cut(tmp_path: Path) -> None:
    plt = pyplot()
    fig, _ax = plt.subplots(figsize=(3, 2))
    words = [f"word{i}" for i in range(60)]
    save_figure(plt, fig, tmp_path / "g.png", " ".join(words))
    svg = (tmp_path / "g.svg").read_text()
    assert all(w in svg for w in words)


def test_the_formats_can_be_narrowed_to_the_png(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """$MCASTLAB_FIGURE_FORMATS: the PNG always, and only the formats it names beside it; a
    format that does not exist is a usage error, not a silent PNG; "none" leaves a run's
    plots out."""
    monkeypatch.setenv(FORMATS_ENV, "png")
    assert formats() == ("png",)
    plt = pyplot()
    fig, _ax = plt.subplots(figsize=(2, 2))
    assert save_figure(plt, fig, tmp_path / "h.png") == [tmp_path / "h.png"]
    assert [p.name for p in tmp_path.iterdir()] == ["h.png"]
    monkeypatch.setenv(FORMATS_ENV, "PDF, png")
    assert formats() == ("png", "pdf")
    monkeypatch.setenv(FORMATS_ENV, "")
    assert formats() == FORMATS == ("png", "svg", "pdf")
    assert run_plots_drawn()
    monkeypatch.setenv(FORMATS_ENV, "png,jpeg")
    with pytest.raises(UsageError, match="no figure format jpeg"):
        formats()
    # none: a run's report draws no plots (test_report.py), any other figure a PNG alone
    monkeypatch.setenv(FORMATS_ENV, "None")
    assert formats() == ("png",) and not run_plots_drawn()
