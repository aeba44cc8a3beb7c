"""Something done in the middle of an MPI job: once its ranks are up (rank 0 writes a
`ready` file), the test acts on the network (sets loss, starts an intruder, ...) and then
tells the job to go on (a `go` file). MPI's start-up under loss is not what the loss tests
are about, and it was much of their time and of its spread; an intruder started while the
job runs may come after its collectives. At the job's end, once every rank has done its work
(each writes `done-RANK`), the test may act again (lift the loss) before the ranks leave."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

# The rank side of once_all_done, for a `python -c` program: `finish(code)` writes this
# rank's done file (argv[1] + "-RANK"), waits for argv[2] (the test's go-ahead, written once
# every rank is done) and exits with `code`. The program's own arguments follow argv[2].
FINISH = """
import pathlib, sys, time
from mpi4py import MPI
def finish(code):
    done, go = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    pathlib.Path(f"{done}-{MPI.COMM_WORLD.Get_rank()}").write_text(str(code))
    end = time.monotonic() + 60
    while not go.exists() and time.monotonic() < end:
        time.sleep(0.01)
    if not go.exists():
        raise SystemExit(f"{go} was not written within 60 s")
    sys.exit(code)
"""


@contextmanager
def _armed(waited: list[Path], act: Callable[[], None], go: Path) -> Iterator[None]:
    """When every file of `waited` exists, `act()` runs and then `go` is written. The files
    are removed afterwards; an exception of `act` is raised then (and `go` never written),
    also in place of the job's own failure (which waiting for `go` caused; it stays
    attached as the context)."""
    stop, failed = threading.Event(), []

    def arm() -> None:
        try:
            while not all(p.exists() for p in waited):
                if stop.wait(0.01):
                    return
            act()
            go.write_text("go")
        except Exception as e:  # raised in the caller, below
            failed.append(e)

    t = threading.Thread(target=arm, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join(30)
        for p in (*waited, go):
            p.unlink(missing_ok=True)
        if failed:
            raise failed[0]


@contextmanager
def once_ready(emu: Any, act: Callable[[Path], None], name: str = "ranks-ready",
               go_name: str = "go") -> Iterator[tuple[Path, Path]]:
    """Yields (ready, go) under the run's directory: when the job writes `ready`,
    `act(ready)` runs and then `go` is written (as _armed: the files removed afterwards,
    an exception of `act` raised then)."""
    ready, go = emu.run_dir / name, emu.run_dir / go_name
    with _armed([ready], lambda: act(ready), go):
        yield ready, go


@contextmanager
def once_all_done(emu: Any, ranks: int, act: Callable[[], None], name: str = "done",
                  go_name: str = "lifted") -> Iterator[tuple[Path, Path]]:
    """Yields (done, go) under the run's directory: when every rank r < `ranks` has written
    `done`-r (its work over), `act()` runs and then `go` is written, which the ranks wait
    for before they leave (as _armed: the files removed afterwards, an exception of `act`
    raised then)."""
    done, go = emu.run_dir / name, emu.run_dir / go_name
    with _armed([done.with_name(f"{name}-{r}") for r in range(ranks)], act, go):
        yield done, go


@contextmanager
def loss_once_ready(emu: Any, loss: float | str, scope: str = "all",
                    name: str = "ranks-ready") -> Iterator[tuple[Path, Path]]:
    """once_ready that sets `loss` on every host link (`scope` as Emulation.set_loss); a
    failure to set it is raised afterwards. The caller removes the loss (or the network)."""
    with once_ready(emu, lambda _ready: emu.set_loss(loss, scope=scope), name,
                    "loss-set") as files:
        yield files
