"""Loss set in the middle of an MPI job: once its ranks are up and connected (rank 0 writes
a `ready` file), then the job is told to go on (a `go` file). MPI's start-up under loss is
not what the loss tests are about, and it was much of their time and of its spread."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def loss_once_ready(emu: Any, loss: float | str, scope: str = "all",
                    name: str = "ranks-ready") -> Iterator[tuple[Path, Path]]:
    """Yields (ready, go) under the run's directory: when the job writes `ready`, `loss`
    is set on every host link (`scope` as Emulation.set_loss) and `go` written. The files
    are removed afterwards; a failure to set the loss is raised then. The caller removes
    the loss (or the network)."""
    ready, go = emu.run_dir / name, emu.run_dir / "loss-set"
    stop, failed = threading.Event(), []

    def arm() -> None:
        try:
            while not ready.exists():
                if stop.wait(0.01):
                    return
            emu.set_loss(loss, scope=scope)
            go.write_text("set")
        except Exception as e:  # raised in the caller, below
            failed.append(e)

    t = threading.Thread(target=arm, daemon=True)
    t.start()
    try:
        yield ready, go
    finally:
        stop.set()
        t.join(30)
        ready.unlink(missing_ok=True)
        go.unlink(missing_ok=True)
    assert not failed, failed
