"""The unit tests' figures: PNG only (testbed.report.figures.FORMATS), unless a test is marked
`every_figure_format` because it reads the SVG or the PDF. Writing them took about half of
every drawing test's time, and a test that looks at the PNG alone proves nothing more for
them; save_figure's own test (tests/unit/testbed/report/test_figures.py) and the reports'
tests of every format are marked and write all three."""

from __future__ import annotations

import pytest

from testbed.report import figures


@pytest.fixture(autouse=True)
def png_figures_only(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("every_figure_format") is None:
        monkeypatch.setattr(figures, "FORMATS", ("png",))
