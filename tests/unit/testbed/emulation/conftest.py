"""Fixtures of the tests that start marked processes (see processes.py)."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from testbed.emulation import run_records

from .processes import JOB_MARK, RUN_MARK


@pytest.fixture
def marks(monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """The run and job marks, named as no real run names them: (run, job)."""
    monkeypatch.setattr(run_records, "ENV_RUN", RUN_MARK)
    monkeypatch.setattr(run_records, "ENV_JOB", JOB_MARK)
    return RUN_MARK, JOB_MARK


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen]]:
    """Processes started by a test; whatever is left is killed and reaped afterwards."""
    procs: list[subprocess.Popen] = []
    yield procs
    for proc in procs:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=5)
