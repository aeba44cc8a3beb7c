"""A drawn figure (PNG and caption) and the pyplot setup and PNG writer that both the plots
and the trees use."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Figure:
    path: Path
    caption: str


def pyplot() -> Any:
    """matplotlib's pyplot, drawing to files only (the Agg backend: no display needed)."""
    import matplotlib  # takes most of a second to load: only what draws pays for it

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # after use("Agg")

    return plt


def save_png(plt: Any, fig: Any, path: Path) -> None:
    """PNG in 256 colours: a quarter of the bytes, which matters once every plot is embedded
    in the HTML. No Software tag: it carries a URL, and the report references nothing."""
    from PIL import Image  # Pillow (matplotlib's) loads only when a picture is written

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, metadata={"Software": None})
    plt.close(fig)
    buf.seek(0)
    with Image.open(buf) as img:
        img.convert("RGB").quantize(256, method=Image.Quantize.FASTOCTREE).save(
            path, format="png", optimize=True)
