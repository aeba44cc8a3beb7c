"""testbed.cli.experiments without a network: where bench and reproduce write. By default a
new dated folder under the results root (--out), so no run overwrites another's; the
curated folder only with --publish, and never both."""

import argparse
from pathlib import Path

import pytest

from testbed.cli.experiments import CURATED_BENCH, run_folder
from testbed.errors import UsageError


def args(out: str | None = None, publish: bool = False) -> argparse.Namespace:
    return argparse.Namespace(out=out, publish=publish)


def test_a_dated_folder_under_the_root_each_time(tmp_path: Path) -> None:
    curated = tmp_path / "bench"
    first = run_folder(args(str(tmp_path / "results")), "bench-nack", curated)
    second = run_folder(args(str(tmp_path / "results")), "bench-nack", curated)
    assert first.parent == second.parent == tmp_path / "results"
    assert first != second and first.name.endswith("-bench-nack") and first.is_dir()
    assert not curated.exists()


def test_publish_writes_the_curated_folder_and_only_that(tmp_path: Path) -> None:
    curated = tmp_path / "bench" / "reproduce"
    (tmp_path / "bench").mkdir()
    assert run_folder(args(publish=True), "reproduce", curated) == curated
    with pytest.raises(UsageError, match="--publish writes the curated folder; --out"):
        run_folder(args(str(tmp_path / "r"), publish=True), "reproduce", curated)
    with pytest.raises(UsageError, match="of a checkout"):
        run_folder(args(publish=True), "bench", tmp_path / "nowhere" / "bench")
    assert CURATED_BENCH.name == "bench" and (CURATED_BENCH.parent / "Makefile").is_file()
