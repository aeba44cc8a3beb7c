"""Head-of-line blocking at the sender (pure): Nupairoj1998's communication model of chapter 6,
in which a rank's outgoing channel carries one message at a time and a message sent while
the channel is busy waits in the sending buffer behind every earlier one.

The t_hold/t_end model (collectives.trees.latency_model) has no channel: under contention a message
holds the channel longer (t_out + t_cont), and the sends queued behind it wait (t_sq). The
timing rule, which gives both of the thesis's worked examples (Figs 6.1 and 6.4):

- a rank issues its sends t_hold apart, from the moment it holds the message;
- a send's software part ends t_send after it is issued;
- it enters the channel when both that part and the channel are done (the wait is t_sq);
- it occupies the channel for t_out + t_cont;
- its receiver holds the message t_net + t_cont + t_recv after it entered the channel.

Then t_hol = t_sq + t_out + t_cont and the message's t_end = t_send + t_sq + t_net + t_cont
+ t_recv.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from ..ops import Recv, Schedule, Send
from .latency_model import drive


@dataclass(frozen=True)
class Channel:
    """The chapter-6 parameters (one unit, e.g. us): t_hold between a rank's sends, t_send
    its software part, t_out the time it occupies the channel, t_net from entering the
    channel to the receiver, t_recv the receiver's part, t_cont the contention every
    message meets (added to t_out and t_net)."""

    t_hold: float
    t_send: float
    t_out: float
    t_net: float
    t_recv: float
    t_cont: float = 0.0


@dataclass(frozen=True)
class Sent:
    """One send as the model times it (Fig. 6.1's row)."""

    sender: int
    receiver: int
    issued: float
    t_sq: float
    t_out: float
    t_hol: float
    t_send: float
    t_net: float
    t_end: float


def hol_times(schedule: Schedule, ch: Channel, busy_until: dict[int, float] | None = None
              ) -> tuple[list[float], list[Sent]]:
    """Per rank the time it holds the message (the root 0), and every send as timed (the
    ranks run as in the t_hold/t_end model: collectives.trees.latency_model.drive); `busy_until`
    marks ranks whose outgoing channel is taken until then (Fig. 6.1's P0, busy until
    t = 50)."""
    k = schedule.size
    clock = [0.0] * k
    free = [0.0] * k
    for r, t in (busy_until or {}).items():
        free[r] = t
    done = [0.0] * k
    arrivals: dict[tuple[int, int], deque[float]] = {}
    sent: list[Sent] = []

    def send(r: int, op: Send) -> None:
        enter = max(clock[r] + ch.t_send, free[r])
        out = ch.t_out + ch.t_cont
        free[r] = enter + out
        arrival = enter + ch.t_net + ch.t_cont + ch.t_recv
        arrivals.setdefault((r, op.peer), deque()).append(arrival)
        t_sq = enter - clock[r] - ch.t_send
        sent.append(Sent(r, op.peer, clock[r], t_sq, out, t_sq + out, ch.t_send + t_sq,
                         ch.t_net + ch.t_cont, arrival - clock[r]))
        clock[r] += ch.t_hold

    def recv(r: int, op: Recv) -> bool:
        q = arrivals.get((op.peer, r))
        if not q:
            return False
        clock[r] = done[r] = max(clock[r], q.popleft())
        return True

    drive(schedule, send, recv)
    return done, sent


def hol_latency(schedule: Schedule, ch: Channel) -> float:
    """t_mcast under the chapter-6 model: when the last rank holds the message."""
    return max(hol_times(schedule, ch)[0], default=0.0)
