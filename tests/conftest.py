"""The suite's own clock: at the end of every run, the slowest tests (setup, call and
teardown of each together, as they cost the run), the files that cost most, and the totals,
so that the next slow test shows itself. `--durations-file PATH` also writes them there as
Markdown, one section per run (`make test` runs the unit tests and then the integration
tests as two runs: each replaces its own section and keeps the other's). docs/test-durations.md
keeps the last fresh-clone `make test`."""

from __future__ import annotations

import datetime
import os
import platform
import re
import time
from collections import defaultdict
from pathlib import Path

import pytest

SLOWEST = 40  # the budget is spent by integration tests of 5-40 s: show enough of them
FILES = 15
_took: dict[str, float] = defaultdict(float)
_started = time.monotonic()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--durations-file", metavar="PATH", default=None,
                     help="also write the slowest tests and the totals there (Markdown)")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _took[report.nodeid] += report.duration


def _lines() -> list[str]:
    wall = time.monotonic() - _started
    slow = sorted(_took.items(), key=lambda kv: kv[1], reverse=True)[:SLOWEST]
    files: dict[str, float] = defaultdict(float)
    for nodeid, s in _took.items():
        files[nodeid.split("::")[0]] += s
    lines = [f"{len(_took)} tests, {wall:.0f} s from the start of the run "
             f"({wall / 60:.1f} min), {sum(_took.values()):.0f} s in the tests themselves",
             "", "| s | test |", "|---:|---|"]
    lines += [f"| {s:.1f} | {nodeid} |" for nodeid, s in slow]
    lines += ["", "| s | file |", "|---:|---|"]
    lines += [f"| {s:.1f} | {f} |" for f, s in
              sorted(files.items(), key=lambda kv: kv[1], reverse=True)[:FILES]]
    return lines


def _write_section(path: Path, name: str, lines: list[str]) -> None:
    """The file's sections but this run's, then this run's (a fresh file if it had none)."""
    old = path.read_text() if path.exists() else ""
    parts = re.split(r"^(?=## )", old, flags=re.M)
    kept = [p.rstrip("\n") for p in parts[1:] if not p.startswith(f"## {name}\n")]
    head = ["# Test durations", "",
            f"Written by `make test T=\"--durations-file {path}\"` ({platform.node()}, "
            f"{os.cpu_count()} cores, Python {platform.python_version()}).", ""]
    own = [f"## {name}", "",
           f"Run {datetime.datetime.now():%Y-%m-%d %H:%M}.", "", *lines]
    path.write_text("\n".join(head) + "\n" + "\n\n".join([*kept, "\n".join(own)]) + "\n")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            config: pytest.Config) -> None:
    if not _took:
        return
    lines = _lines()
    terminalreporter.write_sep("=", f"slowest {min(SLOWEST, len(_took))} tests "
                                    "(setup + call + teardown)")
    for line in lines:
        terminalreporter.write_line(line)
    path = config.getoption("durations_file")
    if path:
        _write_section(Path(path), " ".join(config.args) or "tests", lines)


@pytest.fixture(autouse=True)
def png_figures_only(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Figures as PNG alone ($MCASTLAB_FIGURE_FORMATS, testbed.report.figures), here and in
    every command a test starts, unless the test is marked `every_figure_format` because it
    reads an SVG or a PDF: they took two thirds of every drawing test's time, and a test
    that looks at the PNG or the report around it proves nothing more with them. Marked:
    save_figure's own test that all three are written, the reports' tests of every format,
    and one end-to-end experiment's report (test_auto_calibrates_records_and_reuses)."""
    from testbed.report.figures import FORMATS_ENV

    if request.node.get_closest_marker("every_figure_format") is None:
        monkeypatch.setenv(FORMATS_ENV, "png")
    else:
        monkeypatch.delenv(FORMATS_ENV, raising=False)
