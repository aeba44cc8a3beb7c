"""A drawn figure (PNG and caption), the pyplot setup, and save_figure: every figure the
project saves (a run's plots and trees, reproduce's and bench's plots) goes through it, as
PNG, SVG and PDF side by side, with a caption line on the figure itself naming what a
reader of a paper needs (topology, link rate and dilation, repetitions, date, commit)."""

from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError

PNG_DPI = 150
FORMATS = ("png", "svg", "pdf")  # what save_figure writes, the PNG first
# A quicker report: "png" writes the PNG alone (the SVG and PDF took two thirds of a report's
# drawing time). The tests set it where nothing reads the SVG or PDF (tests/conftest.py).
# "none": an experiment run's report draws no plots and no trees (it says so where they
# would be; the rest of it, tables and findings, as always) and every other figure is a
# PNG alone: matplotlib's import and the drawing were 2-4 s of a 16-point run's report,
# paid by the integration tests that read only its records and text.
FORMATS_ENV = "MCASTLAB_FIGURE_FORMATS"
NO_RUN_PLOTS = "none"
# the vector formats' metadata, without the dates that would make equal figures differ
VECTOR_METADATA: dict[str, dict[str, None]] = {"svg": {"Date": None},
                                               "pdf": {"CreationDate": None, "ModDate": None}}
CAPTION_FONT = 7


@dataclass(frozen=True)
class Figure:
    path: Path  # the PNG; the SVG and PDF lie beside it (path.with_suffix)
    caption: str


def pyplot() -> Any:
    """matplotlib's pyplot, drawing to files only (the Agg backend: no display needed)."""
    import matplotlib  # takes most of a second to load: only what draws pays for it

    matplotlib.use("Agg")
    # text stays text in the SVG (searchable, editable in a paper's figure); the PDF embeds
    # TrueType fonts (Type 42), which journals accept where Type 3 is refused
    matplotlib.rcParams.update({"svg.fonttype": "none", "pdf.fonttype": 42})
    import matplotlib.pyplot as plt  # after use("Agg")

    return plt


def rate_text(link_rate: Mapping[str, Any] | None) -> str:
    """A LinkRate record (testbed.fidelity.link_rate) as a caption says it: "20 Mbit/s,
    x5 dilation (auto: calibration cache)", "100 Mbit/s", "unlimited links"."""
    if not link_rate:
        return "link rate not recorded"
    mbit = link_rate.get("mbit")
    if mbit is None:
        return "unlimited links"
    dilation = link_rate.get("dilation")
    text = f"{mbit:g} Mbit/s"
    if dilation is not None:
        text += f", x{dilation:.3g} dilation"
        if link_rate.get("nominal_mbit") is not None:
            text += f" of {link_rate['nominal_mbit']:g} Mbit/s"
    if link_rate.get("auto"):
        text += f" (auto: {link_rate.get('source')})"
    return text


def commit_text(versions: Mapping[str, Any] | None) -> str:
    """The commit's short hash, "+dirty" when the tree had changes (results.checkout)."""
    if "commit" not in (versions or {}):
        return "commit not recorded"
    commit = (versions or {}).get("commit")
    if not commit:
        return "no commit (not a git checkout)"
    return f"commit {str(commit)[:10]}" + ("+dirty" if (versions or {}).get("dirty") else "")


def caption_line(*, topology: str | None, rate: str | None, repetitions: str | None,
                 date: str | None, versions: Mapping[str, Any] | None) -> str:
    """One line for the figure's foot: what it ran on, how often, when and from what code."""
    parts = [f"topology {topology}" if topology else "", rate or "", repetitions or "",
             date or "", commit_text(versions)]
    return " | ".join(p for p in parts if p)


def _add_caption(fig: Any, caption: str) -> None:
    """The caption below the axes, left-aligned, wrapped to the figure's width; the saving
    with bbox_inches="tight" makes room for it."""
    width_in = fig.get_size_inches()[0]
    chars = max(40, int(width_in * 72 / (CAPTION_FONT * 0.52)))
    fig.text(0.0, -0.01, "\n".join(textwrap.wrap(caption, chars)), ha="left", va="top",
             fontsize=CAPTION_FONT, color="#444444", gid="caption")


def run_plots_drawn() -> bool:
    """Whether an experiment run's report draws its plots and trees: not where
    $MCASTLAB_FIGURE_FORMATS is "none" (NO_RUN_PLOTS)."""
    return os.environ.get(FORMATS_ENV, "").strip().lower() != NO_RUN_PLOTS


def formats() -> tuple[str, ...]:
    """The formats save_figure writes: FORMATS, or the PNG and those of them that
    $MCASTLAB_FIGURE_FORMATS names (comma-separated; "none", the PNG alone: see
    run_plots_drawn)."""
    given = os.environ.get(FORMATS_ENV, "").strip()
    if not given:
        return FORMATS
    if given.lower() == NO_RUN_PLOTS:
        return ("png",)
    named = {f.strip().lower() for f in given.split(",")}
    unknown = named - set(FORMATS)
    if unknown:
        raise UsageError(f"${FORMATS_ENV}: no figure format {', '.join(sorted(unknown))}; "
                         f"the formats are {', '.join(FORMATS)} (or {NO_RUN_PLOTS}: a run's report "
                         "without plots)")
    return tuple(f for f in FORMATS if f == "png" or f in named)


def save_figure(plt: Any, fig: Any, path: Path, caption: str | None = None) -> list[Path]:
    """`fig` written as `path` (PNG, PNG_DPI, in 256 colours: a quarter of the bytes, which
    matters once every plot is embedded in an HTML report) and as SVG and PDF beside it,
    with `caption` on the figure (each format of formats()); closes it. Returns their paths.
    No Software or Date tags: they carry a URL and a time that would make equal figures
    differ."""
    from PIL import Image  # Pillow (matplotlib's) loads only when a picture is written

    path = Path(path)
    written = formats()
    if caption:
        _add_caption(fig, caption)
    opts: dict[str, Any] = {"bbox_inches": "tight", "pad_inches": 0.08}
    try:
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=PNG_DPI, metadata={"Software": None}, **opts)
        buf.seek(0)
        with Image.open(buf) as img:
            img.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(
                path, format="png", optimize=True)
        for fmt in written[1:]:
            fig.savefig(path.with_suffix(f".{fmt}"), format=fmt,
                        metadata=VECTOR_METADATA[fmt], **opts)
    finally:
        plt.close(fig)
    return [path.with_suffix(f".{f}") for f in written]

