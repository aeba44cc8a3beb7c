"""Latency predictions (pure): the t_hold/t_end model of Nupairoj1998 applied to any schedule,
and the LogGP formulas of Siebert2006 where they apply.

In the t_hold/t_end model consecutive sends of one rank are t_hold(m) apart, a message is at
its receiver t_end(m) after its send started, and a rank forwards as soon as it has what it
forwards. t_mcast is the time at which the last rank holds the whole message, all ranks
having called at time 0 (the flow model of Nupairoj1998, chapter 3).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ..ops import Op, Recv, Schedule, Send


@dataclass(frozen=True)
class PointToPoint:
    """t_hold(m) = hold_s + m * hold_per_byte, t_end(m) = end_s + m * end_per_byte (s)."""

    hold_s: float
    hold_per_byte: float
    end_s: float
    end_per_byte: float

    def __post_init__(self) -> None:
        for name in ("hold_s", "hold_per_byte", "end_s", "end_per_byte"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or math.isnan(v) or v < 0:
                raise ValueError(f"{name} must be a non-negative number, got {v!r}")

    def t_hold(self, m: int) -> float:
        return self.hold_s + m * self.hold_per_byte

    def t_end(self, m: int) -> float:
        return self.end_s + m * self.end_per_byte

    @classmethod
    def constant(cls, t_hold: float, t_end: float) -> PointToPoint:
        """Size-independent times (the examples of the papers)."""
        return cls(t_hold, 0.0, t_end, 0.0)


def completion_times(schedule: Schedule, p: PointToPoint | MeasuredPointToPoint,
                     timeline: list[tuple[float, float, int, int, int, int]] | None = None,
                     ) -> list[float]:
    """Per rank, the time its last receive completes (0 for a rank that receives nothing).
    A `timeline` list receives every send as (start, arrival, sender, receiver, lo, hi)."""
    return _run(schedule, p, timeline)[0]


def return_times(schedule: Schedule, p: PointToPoint | MeasuredPointToPoint) -> list[float]:
    """Per rank, when its part of the broadcast returns: its last receive, or the end of
    its last send's holding time if that is later (a node that still forwards is busy)."""
    done, clock = _run(schedule, p, None)
    return [max(d, c) for d, c in zip(done, clock, strict=True)]


def drive(schedule: Schedule, send: Callable[[int, Send], None],
          recv: Callable[[int, Recv], bool]) -> None:
    """Run every rank's program as the models do: a rank goes on until a receive finds
    nothing yet (`recv` returns False), then the next rank; a SendRecv issues its send once,
    then waits for its receive. ValueError when some rank would wait forever."""
    k = schedule.size
    pc = [0] * k
    sent_part = [False] * k  # SendRecv whose send half has been issued
    progs = schedule.programs
    progress = True
    while progress:
        progress = False
        for rank in range(k):
            while pc[rank] < len(progs[rank]):
                op: Op = progs[rank][pc[rank]]
                if isinstance(op, Send):
                    send(rank, op)
                elif isinstance(op, Recv):
                    if not recv(rank, op):
                        break
                else:
                    if not sent_part[rank]:
                        send(rank, op.send)
                        sent_part[rank] = True
                    if not recv(rank, op.recv):
                        break
                    sent_part[rank] = False
                pc[rank] += 1
                progress = True
    stuck = [r for r in range(k) if pc[r] < len(progs[r])]
    if stuck:
        raise ValueError(f"schedule {schedule.algorithm} deadlocks: ranks {stuck} wait forever")


def _run(schedule: Schedule, p: PointToPoint | MeasuredPointToPoint,
         timeline: list[tuple[float, float, int, int, int, int]] | None,
         ) -> tuple[list[float], list[float]]:
    """Every rank's program in the model: (last receive, clock at the end) per rank."""
    k = schedule.size
    clock = [0.0] * k
    done = [0.0] * k
    wires: dict[tuple[int, int], deque[float]] = {}

    def send(rank: int, op: Send) -> None:
        m = op.hi - op.lo
        arrival = clock[rank] + p.t_end(m)
        wires.setdefault((rank, op.peer), deque()).append(arrival)
        if timeline is not None:
            timeline.append((clock[rank], arrival, rank, op.peer, op.lo, op.hi))
        clock[rank] += p.t_hold(m)

    def recv(rank: int, op: Recv) -> bool:
        q = wires.get((op.peer, rank))
        if not q:
            return False
        clock[rank] = max(clock[rank], q.popleft())
        done[rank] = clock[rank]
        return True

    drive(schedule, send, recv)
    return done, clock


def predict(schedule: Schedule, p: PointToPoint | MeasuredPointToPoint) -> float:
    """Predicted t_mcast of a schedule (seconds, or the unit of `p`)."""
    return max(completion_times(schedule, p), default=0.0)


# ---- LogGP (Siebert2006, section 1.5): maximum completion times ---------------------------------
@dataclass(frozen=True)
class LogGP:
    L: float
    o: float
    g: float
    G: float


def loggp_max(algorithm: str, n: int, p: int, m: LogGP, fragment: int | None = None) -> float:
    """Siebert's closed forms for the last rank's completion (n bytes, p ranks)."""
    if p < 2:
        return 0.0
    if algorithm == "sequential":
        return m.L + 2 * m.o + (p - 1) * (n - 1) * m.G + (p - 2) * m.g
    if algorithm in ("chain", "fragmented-chain"):
        nf = n if algorithm == "chain" or not fragment else min(fragment, n)
        f = 1 if algorithm == "chain" else max(1, math.ceil(n / nf))
        return (p - 1) * (m.L + 2 * m.o + (nf - 1) * m.G) + (f - 1) * (m.g + (nf - 1) * m.G)
    if algorithm == "binary":
        rounds = math.ceil(math.log2(p + 1)) - 1
        return rounds * (m.L + 2 * (m.o + (n - 1) * m.G + m.g)) + 2 * ((n - 1) * m.G + m.g)
    if algorithm == "binomial":
        return math.ceil(math.log2(p)) * (m.L + 2 * m.o + (n - 1) * m.G)
    raise ValueError(f"no LogGP formula for {algorithm!r} (Siebert2006 gives sequential, chain, "
                     "fragmented-chain, binary, binomial)")


@dataclass(frozen=True)
class MeasuredPointToPoint:
    """t_hold(m) and t_end(m) interpolated linearly between measured sizes (and extended
    along the last segment): faithful where one start-up + per-byte line is not, e.g. when
    small sends return at once into socket buffers and large ones run at wire speed."""

    sizes: tuple[int, ...]
    holds: tuple[float, ...]
    ends: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.sizes or len(self.sizes) != len(self.holds) or \
                len(self.sizes) != len(self.ends):
            raise ValueError("need equally many sizes, t_hold and t_end values")
        if list(self.sizes) != sorted(set(self.sizes)):
            raise ValueError("sizes must be increasing")

    def _at(self, ys: tuple[float, ...], m: int) -> float:
        xs = self.sizes
        if len(xs) == 1:
            return ys[0]
        i = max(1, min(len(xs) - 1, next((i for i, x in enumerate(xs) if x >= m), len(xs) - 1)))
        x0, x1, y0, y1 = xs[i - 1], xs[i], ys[i - 1], ys[i]
        return max(0.0, y0 + (y1 - y0) * (m - x0) / (x1 - x0))

    def t_hold(self, m: int) -> float:
        return self._at(self.holds, m)

    def t_end(self, m: int) -> float:
        return self._at(self.ends, m)
