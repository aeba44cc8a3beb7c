"""Waiting inside a multicast collective: its deadline and naps (`Clock`), and the
point-to-point steps (MPI requests) that keep taking datagrams in while they wait.

Every wait has a deadline: a collective that cannot complete (a rank gone, all datagrams
and messages lost) raises MulticastError instead of hanging."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

from .. import waiting
from . import datagram as dg
from .channel import Channel, MulticastError

TIMEOUT_S = 60.0
# In the block wait mode an MPI message also ends a nap (collectives.waiting), so naps can
# be as long as MPI's own waits' (a nack receiver waiting 1 s for its root took 2.2-2.7 %
# of a core with 2 ms naps, 1.3-1.5 % with 10 ms, and 1.1-1.2 % with 20 ms on a day 10 ms
# took 1.9-2.3: idle_bench, 2 hosts); otherwise they
# bound the delay a point-to-point message sees (1 ms made every report hop ~1 ms slower).
NAP_MAX_S = waiting.MAX_SLEEP_S if waiting.MODE == "block" else 2e-4

Handler = Callable[[dg.Datagram], None]


class Clock:
    """A collective's deadline, and an adaptive nap between polls (20 us while things
    happen, growing to NAP_MAX_S when idle) so waiting ranks leave the CPU to the busy ones.
    A datagram ends a nap at once (and an MPI message, in the block wait mode)."""

    def __init__(self, ch: Channel, timeout: float, what: str):
        self.ch, self.what = ch, what
        self.end = time.perf_counter() + timeout
        self.timeout = timeout
        self.nap = 2e-5
        self.warn_at: float | None = time.perf_counter() + timeout / 6

    def _warn(self, now: float, detail: str) -> None:
        """One line on stderr when a wait has lasted a sixth of the deadline: when the job
        later fails, every stuck rank has said what it waits for (the first rank to give up
        aborts the others before they can)."""
        if self.warn_at is not None and now > self.warn_at:
            self.warn_at = None
            print(f"{self.what}: rank {self.ch.rank} still waiting "
                  f"{self.timeout / 6:g} s after it began{': ' + detail if detail else ''}",
                  file=sys.stderr, flush=True)

    def wait(self, progressed: bool, detail: str = "", limit: float | None = None) -> None:
        """Nap unless `progressed`; never past `limit` seconds (something is due then)."""
        if progressed:
            self.nap = 2e-5
            return
        now = time.perf_counter()
        self._warn(now, detail)
        if now > self.end:
            raise MulticastError(f"{self.what}: rank {self.ch.rank} gave up after "
                                 f"{self.timeout:g} s{': ' + detail if detail else ''}")
        nap = self.nap if limit is None else max(0.0, min(self.nap, limit))
        # woken (a datagram, or an MPI message in the block wait mode): the next steps may
        # need more MPI tests soon, as an MPI request completes a call or two after its
        # data came (collectives.waiting); idle: the naps grow
        self.nap = 2e-5 if self.ch.wait_readable(nap) else min(NAP_MAX_S, self.nap * 2)


def taking(ch: Channel, handler: Handler) -> bool:
    """Hand waiting datagrams to `handler`; True if any came."""
    before = ch.stats["received"]
    ch.deliver(handler)
    return ch.stats["received"] != before


def complete(ch: Channel, clock: Clock, handler: Handler, reqs: list[Any],
             detail: str = "a point-to-point message did not complete") -> None:
    """Wait for point-to-point requests, handing datagrams to `handler` meanwhile."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    while not MPI.Request.Testall(reqs):
        ch.deliver(handler)
        clock.wait(False, detail)


def gather_zero(ch: Channel, clock: Clock, handler: Handler, kids: list[int],
                parent: int | None, tag: int) -> None:
    """Zero-byte messages up a tree: from every child, then to the parent (Chen2000's scouts
    and the arrival half of its barrier)."""
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    empty = bytearray(1)
    complete(ch, clock, handler, [ch.pcomm.Irecv([empty, 0, MPI.BYTE], source=kid, tag=tag)
                                  for kid in kids], "waiting for ranks to arrive")
    if parent is not None:
        complete(ch, clock, handler, [ch.pcomm.Isend([empty, 0, MPI.BYTE], dest=parent,
                                                     tag=tag)])


def send_obj(ch: Channel, clock: Clock, handler: Handler, obj: Any, dest: int,
             tag: int) -> None:
    complete(ch, clock, handler, [ch.pcomm.isend(obj, dest=dest, tag=tag)])


def recv_obj(ch: Channel, clock: Clock, handler: Handler, source: int, tag: int,
             tick: Callable[[], None] | None = None) -> Any:
    """Receive one pickled message, taking datagrams in while waiting for it (and calling
    `tick` on every pass, e.g. to repeat the end marker)."""
    pc = ch.pcomm
    while not pc.iprobe(source=source, tag=tag):
        if tick is not None:
            tick()
        clock.wait(taking(ch, handler), f"no message from rank {source} (tag {tag:#x})")
    return pc.recv(source=source, tag=tag)
