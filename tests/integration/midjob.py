"""Something done in the middle of an MPI job: once its ranks are up (rank 0 writes a
`ready` file), the test acts on the network (sets loss, starts an intruder, ...) and then
tells the job to go on (a `go` file). MPI's start-up under loss is not what the loss tests
are about, and it was much of their time and of its spread; an intruder started while the
job runs may come after its collectives."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def once_ready(emu: Any, act: Callable[[Path], None], name: str = "ranks-ready",
               go_name: str = "go") -> Iterator[tuple[Path, Path]]:
    """Yields (ready, go) under the run's directory: when the job writes `ready`,
    `act(ready)` runs and then `go` is written. The files are removed afterwards; an
    exception of `act` is raised then (and `go` never written), also in place of the job's
    own failure (which waiting for `go` caused; it stays attached as the context)."""
    ready, go = emu.run_dir / name, emu.run_dir / go_name
    stop, failed = threading.Event(), []

    def arm() -> None:
        try:
            while not ready.exists():
                if stop.wait(0.01):
                    return
            act(ready)
            go.write_text("go")
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
        if failed:
            raise failed[0]


@contextmanager
def loss_once_ready(emu: Any, loss: float | str, scope: str = "all",
                    name: str = "ranks-ready") -> Iterator[tuple[Path, Path]]:
    """once_ready that sets `loss` on every host link (`scope` as Emulation.set_loss); a
    failure to set it is raised afterwards. The caller removes the loss (or the network)."""
    with once_ready(emu, lambda _ready: emu.set_loss(loss, scope=scope), name,
                    "loss-set") as files:
        yield files
