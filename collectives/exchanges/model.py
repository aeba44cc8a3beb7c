"""What an Allgather must cost, and what each exchange should (pure).

The floor: every rank must take in the other p - 1 blocks, m bytes each, through its own
link, so no Allgather on a network whose host links are the bottleneck ends before
(p - 1) m / B, whatever moves the bytes (point to point or multicast). On a star every
host link is such a bottleneck; on an oversubscribed fat tree the core may be the tighter
one, and then the floor is not reached by anyone.

The model of an exchange: its steps run one after the other (each rank waits for its
receives of a step before the next), and a step lasts as long as its busiest rank takes to
move its bytes: a rank sends its messages of a step one after the other on its link and
takes its receives in on its own, so the step costs the end-to-end time of one message as
long as the larger of what that rank sends and what it receives (`t_end`, measured: the
t_hold/t_end model's, collectives.trees.latency_model). Ring: p - 1 steps of one block,
(p - 1) t_end(m), near the floor for large blocks, p - 1 start-ups for small ones.
Recursive doubling and Bruck: ceil(log2 p) steps of 1, 2, 4, ... blocks: fewer start-ups,
the same bytes.

Frames: every message goes as TCP segments of at most `mss` payload bytes; the data frames
hosts put on their links per Allgather are the sum over messages, what
testbed.emulation.frame_count counts as `data`. MPICH puts a header of its own before a
message's bytes (`header`, 0 by default: not measured here), so a message that ends just
below a frame boundary may take one frame more than counted. A multicast Allgather's
senders each send their block once, in datagrams, whatever the number of receivers.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..ipmc.datagram import payload_for_mtu
from .schedules import Schedule, Step

MSS = 1448  # TCP payload per frame at a 1500-byte MTU with timestamps (Linux's default)


def floor_s(ranks: int, block: int, mbit: float) -> float:
    """(p - 1) m / B: the least time any Allgather of `block`-byte blocks over `ranks` ranks
    takes where host links of `mbit` Mbit/s are the bottleneck."""
    return (ranks - 1) * block * 8 / (mbit * 1e6)


def step_bytes(step: Step, block: int) -> int:
    """The bytes the busiest rank of `step` sends or receives (the larger of the two)."""
    sent: dict[int, int] = {}
    got: dict[int, int] = {}
    for m in step:
        sent[m.src] = sent.get(m.src, 0) + len(m.blocks) * block
        got[m.dst] = got.get(m.dst, 0) + len(m.blocks) * block
    return max([*sent.values(), *got.values(), 0])


def predict_s(schedule: Schedule, block: int, t_end: Callable[[int], float]) -> float:
    """The model's time of `schedule` with `block`-byte blocks: each step as long as one
    message of its busiest rank's bytes takes end to end."""
    return sum(t_end(step_bytes(step, block)) for step in schedule.steps)


def multicast_frames(ranks: int, block: int, mtu: int = 1500) -> int:
    """The data datagrams a multicast Allgather's senders put on their links when nothing is
    lost: each rank's block once, in fragments of what one datagram carries at `mtu`
    (collectives.ipmc.datagram); end markers, reports and completions come on top."""
    fragment = payload_for_mtu(mtu)
    return ranks * max(1, math.ceil(block / fragment))


def data_frames(schedule: Schedule, block: int, mss: int = MSS,
                header: int = 0) -> int:
    """The frames with data the hosts send in one Allgather by `schedule`."""
    return sum(max(1, math.ceil((len(m.blocks) * block + header) / mss))
               for step in schedule.steps for m in step)
