"""testbed.emulation.runlock: one network at a time: a second run waits for the first and says
whose network it is; the state directory and the lock are root's alone."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from testbed.emulation import run_records
from testbed.emulation.runlock import RunLock
from testbed.errors import McastlabError


def test_second_run_waits_and_names_the_holder(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(run_records, "STATE_DIR", tmp_path / "state")
    first, second = RunLock(), RunLock()
    first.acquire(lambda _m: None)
    said: list[str] = []
    got = threading.Event()

    def take() -> None:
        second.acquire(said.append, poll_s=0.02)
        got.set()

    t = threading.Thread(target=take)
    t.start()
    time.sleep(0.3)
    assert not got.is_set()
    assert len(said) == 1 and f"pid {os.getpid()}" in said[0]
    first.release()
    t.join(timeout=5)
    assert got.is_set()
    second.release()
    first.release()  # a second release is harmless


def test_the_state_directory_and_lock_are_roots_alone(tmp_path, monkeypatch) -> None:
    """Nobody else may open the lock (and hold it for ever) or write a run record: the
    state directory is made 0700, put back to 0700, the lock 0600; a directory that is a
    link or another user's is refused."""
    state = tmp_path / "state"
    monkeypatch.setattr(run_records, "STATE_DIR", state)
    lock = RunLock()
    lock.acquire(lambda _m: None)
    lock.release()
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    assert oct((state / "network.lock").stat().st_mode & 0o777) == "0o600"
    state.chmod(0o755)
    run_records.state_dir()
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    other = tmp_path / "other"  # another user's: nobody's (as root, as CI), else root's
    if os.geteuid() == 0:
        other.mkdir(mode=0o700)
        os.chown(other, 65534, 65534)
    else:
        other = Path("/")
    link = tmp_path / "link"
    link.symlink_to(state)
    for bad in (other, link):
        monkeypatch.setattr(run_records, "STATE_DIR", bad)
        with pytest.raises(McastlabError, match="not a directory of this user's"):
            RunLock().acquire(lambda _m: None)
