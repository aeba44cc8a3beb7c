"""The Makefile's cleaning targets, run for real in a copy of the checkout's layout: `make
clean` removes caches (and, as root with a venv, a run's network state) but never a
measured result; `make clean-results` is the one target that removes results/, and
`make distclean` keeps them too."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def make(folder: Path, target: str) -> subprocess.CompletedProcess[str]:
    # VENV points nowhere: the copy has no mcastlab, so `clean` touches no network state
    return subprocess.run(["make", "-C", str(folder), target, "VENV=no-venv-here"],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    if shutil.which("make") is None:
        pytest.fail("make is missing (scripts/install.sh installs it)")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    run = tmp_path / "results" / "20261127-120000-exp-default"
    run.mkdir(parents=True)
    (run / "records.jsonl").write_text('{"ms": 1.0}\n')
    for cache in (".pytest_cache", ".ruff_cache", ".mypy_cache", "pkg/__pycache__"):
        (tmp_path / cache).mkdir(parents=True)
    return tmp_path


def test_clean_keeps_results_and_removes_caches(checkout: Path) -> None:
    done = make(checkout, "clean")
    assert done.returncode == 0, done.stderr
    assert (checkout / "results" / "20261127-120000-exp-default" / "records.jsonl").is_file()
    assert "results/ kept" in done.stdout
    assert not any((checkout / c).exists() for c in (".pytest_cache", ".ruff_cache",
                                                     ".mypy_cache", "pkg/__pycache__"))
    assert make(checkout, "distclean").returncode == 0
    assert (checkout / "results").is_dir()


def test_clean_results_removes_them(checkout: Path) -> None:
    done = make(checkout, "clean-results")
    assert done.returncode == 0, done.stderr
    assert not (checkout / "results").exists()
