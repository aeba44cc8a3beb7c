"""One network at a time: a second run waits for the first and says whose network it is."""

from __future__ import annotations

import os
import threading
import time

from testbed.emulation import registry
from testbed.emulation.runlock import RunLock


def test_second_run_waits_and_names_the_holder(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(registry, "STATE_DIR", tmp_path / "state")
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
