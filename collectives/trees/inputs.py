"""The model's inputs as a broadcast meets them (pure): t_hold at the number of back-to-back
sends the broadcast's busiest node makes.

Nupairoj1998 (chapter 2) measures t_hold as the time a node is held per send of a stream of
sends. On an emulated link a lone frame leaves at once (the token bucket is full after an
idle spell; no delay line here) and every later one after its predecessor's wire time, so
the time per send of S back-to-back sends rises with S towards the wire time: one lone send
prices a 1 KiB send at 0.14 ms where it holds a 10 Mbit/s link for 0.89 ms. The testbed
therefore measures t_hold at every count S up to the most a node can send
(collectives.programs.params: t_hold_sends_s, one round gives them all), and a broadcast's
model takes the count of its busiest node (`busiest`): the predicted departure of that
node's last message is then the measured one. A tree built from t_hold (OPT-Tree and the
trees derived from it) changes its busiest node's count with t_hold, so its count is the
fixed point of building and counting (`settled`).

`wire_s` is a message's time on one link; `below_wire` the check that a measured per-send
t_hold is not less than the wire time of the sends that had to wait (all but the first)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..algorithms import Named, resolve
from ..ops import Schedule
from .dyntree import from_measured
from .latency_model import MeasuredPointToPoint
from .schedules import build

# Ethernet's per-frame bytes beyond the IP packet (header 14, FCS 4, preamble and start 8,
# gap 12) and the IP + TCP headers of one segment with timestamps (20 + 32), the MSS's MTU
FRAME_EXTRA, HEADERS, MTU = 38, 52, 1500


def busiest(schedule: Schedule) -> int:
    """The most messages any one rank of `schedule` sends (0 for a lone rank)."""
    counts = Counter(sender for sender, *_ in schedule.transfers())
    return max(counts.values(), default=0)


@dataclass(frozen=True)
class HoldTable:
    """t_hold measured at `sizes`, by count of back-to-back sends: holds[i][S - 1] is the
    time per send of S sends of sizes[i] bytes; `ends` t_end at each size."""

    sizes: tuple[int, ...]
    holds: tuple[tuple[float, ...], ...]
    ends: tuple[float, ...]

    def __post_init__(self) -> None:
        if not self.sizes or len(self.holds) != len(self.sizes) or \
                len(self.ends) != len(self.sizes):
            raise ValueError("need a row of t_hold and a t_end for every size")
        if any(not row for row in self.holds) or len({len(r) for r in self.holds}) != 1:
            raise ValueError("every size needs t_hold at the same counts 1..S")

    @property
    def most(self) -> int:
        """The largest count measured."""
        return len(self.holds[0])

    def at(self, sends: int) -> MeasuredPointToPoint:
        """The point-to-point times with t_hold at `sends` back-to-back sends (clamped to
        1..most: a node sending more is priced at the largest count measured)."""
        s = max(1, min(sends, self.most))
        order = sorted(range(len(self.sizes)), key=lambda i: self.sizes[i])
        return MeasuredPointToPoint(tuple(self.sizes[i] for i in order),
                                    tuple(self.holds[i][s - 1] for i in order),
                                    tuple(self.ends[i] for i in order))


def settled(build: Callable[[MeasuredPointToPoint], Schedule], table: HoldTable) -> int:
    """The count of back-to-back sends at which a tree built from t_hold (`build`, given the
    point-to-point times) has its busiest node sending that many: from the largest count,
    build, count, rebuild at the new count, until it repeats; in a cycle, its largest."""
    seen: list[int] = []
    s = table.most
    while s not in seen:
        seen.append(s)
        s = max(1, min(busiest(build(table.at(s))), table.most))
    return max(seen[seen.index(s):])


# a network-aware tree without its placement counts sends as the tree it places does
UNPLACED = {"opt-mesh": "opt-tree", "opt-min": "opt-tree", "u-mesh": "binomial",
            "u-min": "binomial", "u-torus": "binomial"}


def sends_for(algorithm: Named, k: int, size: int, table: HoldTable,
              placement: Mapping[str, Any] | None = None, fragment: int | None = None) -> int:
    """The count of back-to-back sends whose t_hold prices `algorithm` on `k` ranks at
    `size` bytes: its busiest node's; for a tree built from t_hold (OPT-Tree, the trees
    placed like it, DYN-Tree as the OPT-Tree it is at zero load) the count it settles at.
    `placement`: a network-aware tree's nodes= and shape (without it, the tree it places)."""
    record = resolve("bcast", algorithm).zero_load_algorithm  # a record: no look-up
    tree = record.name
    extra: dict[str, Any] = {"fragment": fragment} if fragment is not None else {}
    timed = record.timing
    if record.geometry:
        if placement:
            extra |= placement
        else:
            tree = UNPLACED[tree]
            timed = tree == "opt-tree"  # the tree it places: OPT-Tree's timing, binomial's none
    if k < 2:
        return 1

    def built(p2p: MeasuredPointToPoint) -> Schedule:
        return build(tree, k, 0, size, t_hold=p2p.t_hold(size), t_end=p2p.t_end(size),
                     **extra)

    if timed:
        return settled(built, table)
    return max(1, min(busiest(built(table.at(table.most))), table.most))


def timing(algorithm: Named, size: int, table: HoldTable, k: int | None = None,
           placement: Mapping[str, Any] | None = None,
           software: Sequence[float] | None = None) -> dict[str, float]:
    """What a tree built from t_hold and t_end is given for a `size`-byte broadcast on `k`
    ranks: both at `size`, t_hold at the count its tree settles at (None: the most
    measured); a dynamic tree also its six static terms (collectives.trees.dyntree.
    from_measured) where `software` (per size of the table, how long a send's call held
    the sender) was measured."""
    record = resolve("bcast", algorithm)  # a call's record: no look-up
    p2p = table.at(table.most if k is None else sends_for(record, k, size, table,
                                                              placement))
    out = {"t_hold": p2p.t_hold(size), "t_end": p2p.t_end(size)}
    if record.family == "dynamic" and software:
        by_size = dict(zip(table.sizes, software, strict=True))
        p = from_measured(p2p.sizes, [by_size[m] for m in p2p.sizes], p2p.holds, p2p.ends,
                          size)
        out |= vars(p)
    return out


def wire_s(nbytes: int, mbit: float) -> float:
    """The time `nbytes` of one message take on a link of `mbit` Mbit/s, every frame's
    Ethernet and IP/TCP headers counted (one message: ceil(n / MSS) segments, at least
    one)."""
    mss = MTU - HEADERS
    frames = max(1, math.ceil(nbytes / mss))
    return (nbytes + frames * (HEADERS + FRAME_EXTRA)) * 8 / (mbit * 1e6)


def below_wire(hold_s: float, sends: int, nbytes: int, mbit: float,
               tolerance: float = 0.9) -> bool:
    """Whether `sends` back-to-back sends of `nbytes` at `hold_s` each are faster than the
    link lets them leave: all but the first wait their predecessor's wire time, so the
    round takes at least (sends - 1) wire times (`tolerance` for the clock's and the
    shaper's grain)."""
    return sends > 1 and hold_s * sends < tolerance * (sends - 1) * wire_s(nbytes, mbit)


def table_of(sizes: Sequence[int], holds: Sequence[Sequence[float]],
             ends: Sequence[float]) -> HoldTable:
    """A HoldTable from the lists collectives.programs.params prints."""
    return HoldTable(tuple(sizes), tuple(tuple(r) for r in holds), tuple(ends))
