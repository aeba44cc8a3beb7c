"""How a collective is measured, as one value: `RunOptions`, the options every measuring
function of testbed.measure takes beside the emulation and the call, as Mininet bundles a
link's options (TCLink's bw, delay, loss) in one set of parameters. A variation is
`dataclasses.replace(options, loss=0.05)`; the defaults are the ones the functions had
when each took these as keywords of its own (a field left None takes its collective's:
`Defaults`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class RunOptions:
    """`hosts`: the first so many hosts, or these host names in rank order (None: all).
    `repetitions`: timed runs, after `warmup` untimed ones (None: the collective's own,
    `Defaults`). `params`: t_hold/t_end from testbed.measure.params (the model's and the
    timing algorithms' figures). `loss`: a fraction set on every host link for the job and
    taken off after, dropping the packets of `loss_scope` (testbed.specs.loss_scope).
    `frames` > 0: that many back-to-back runs' frames counted on the switch ports. `wait`:
    how the ranks wait (MCASTLAB_WAIT; None: collectives.waiting's default). `timeout`: the
    job's, in seconds (None: the collective's own).

    The broadcast's own (testbed.measure.bcast says what each does): `flow` (the
    flow-latency benchmark, needed across servers), `mpich_algorithm` (MPI_Bcast's
    algorithm), `naive` (Nupairoj's back-to-back loops too) and `late` (root or receivers
    that much later, in ms)."""

    hosts: int | Sequence[str] | None = None
    repetitions: int | None = None
    warmup: int | None = None
    params: dict[str, Any] | None = None
    loss: float = 0.0
    loss_scope: str = "all"
    frames: int = 0
    wait: str | None = None
    timeout: float | None = None
    flow: bool = True
    mpich_algorithm: str | None = None
    naive: int = 0
    late: tuple[str, float] | None = None


@dataclass(frozen=True)
class Defaults:
    """A collective's own repetitions, warmup (None: its benchmark program's) and timeout,
    for the fields of RunOptions left None."""

    repetitions: int
    warmup: int | None
    timeout: float

    def of(self, options: RunOptions) -> tuple[int, int | None, float]:
        """(repetitions, warmup, timeout) of `options`, these where it leaves them None."""
        return (self.repetitions if options.repetitions is None else options.repetitions,
                self.warmup if options.warmup is None else options.warmup,
                self.timeout if options.timeout is None else options.timeout)
