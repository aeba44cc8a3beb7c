"""When this rank's messages of the broadcast under way started leaving its host, and when
they had left: the root's sending queue of Nupairoj1998 section 6.2 (Fig. 6.5).

`executor.bcast` starts every broadcast with `start` (the call's time); the point-to-point
trees (collectives.trees.run.execute, collectives.trees.dyn_bcast) call `started` as they
hand a message to MPI and `left` once nothing this rank wrote waits in its host any more
(collectives.outqueue.wait_sent); `since_call` reads them afterwards, `summary` sums up
many broadcasts (programs.bcast_bench, at the root). Times are time.time().

What the figures mean:

- a message's queue delay runs from the broadcast call until the message starts leaving the
  host. The application hands the root every copy at once (the thesis's burst of unicasts),
  so the call is when each was issued. With send_order fifo (the default) a message is
  handed to MPI only once the rank's previous one has wholly left its host, so nothing of
  this rank's is ahead of it on its link: it starts leaving as it is handed over. The
  thesis's t_sq counts from the send's own issue, a t_hold after the previous one; that
  t_hold (tens of us for 1 KiB over MPI's TCP here) is in this figure.
- a message has left when its rank saw nothing of its own waiting in the host: for every
  message but the last, the fifo wait before the next send; for the last, a look after the
  broadcast returned (bcast_bench.direct, at the root), outside the times it measures.
- send_order overlapped: a message is handed to MPI as soon as MPI took the previous one,
  and they share the link. Its queue delay runs until it is handed over (the earliest it
  can start leaving: the earlier messages' bytes may still be ahead of it), and every
  message has left when the rank's whole queue had drained (the one look at the end).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

_call: float | None = None
_started: list[float] = []  # per message handed over, in order: when
_left: list[float | None] = []  # and when it was seen to have left (None: not yet)


def start() -> None:
    """A broadcast is called: no message of it handed over yet."""
    global _call
    _call = time.time()
    _started.clear()
    _left.clear()


def started() -> None:
    """A message of this rank's is handed to MPI now."""
    _started.append(time.time())
    _left.append(None)


def left() -> None:
    """Nothing this rank handed over waits in its host any more: every message not yet
    seen leaving has left by now."""
    now = time.time()
    _left[:] = [now if t is None else t for t in _left]


def unseen() -> bool:
    """Some message handed over in this broadcast has not been seen leaving."""
    return None in _left


def since_call() -> list[tuple[float, float | None]]:
    """This broadcast's messages in the order handed over: (started, left) in seconds since
    the call (left None: not seen leaving)."""
    if _call is None:
        return []
    return [(s - _call, None if t is None else t - _call)
            for s, t in zip(_started, _left, strict=True)]


def summary(broadcasts: Sequence[Sequence[tuple[float, float | None]]]) -> dict[str, Any] | None:
    """A rank's sending queue over measured broadcasts, each its messages' (started, left)
    since the call (since_call), in seconds: `sends`, the median number of messages a
    broadcast (the root's out-degree); `queued_s`, the median over broadcasts of the mean
    queue delay of their messages (until each started leaving); `left_s`, the same until
    each had left; `drained_s`, the median of when the last had left; `per_send_s`, for
    each message in program order, the medians of (started, left). None without messages."""
    every = [list(b) for b in broadcasts if b]
    if not every:
        return None

    def med(xs: list[float]) -> float | None:
        return statistics.median(xs) if xs else None

    done = [b for b in every if all(t is not None for _, t in b)]
    per_send = []
    for i in range(max(len(b) for b in every)):
        at = [b[i] for b in every if len(b) > i]
        per_send.append([med([s for s, _ in at]), med([t for _, t in at if t is not None])])
    return {"sends": statistics.median(len(b) for b in every),
            "queued_s": med([statistics.fmean(s for s, _ in b) for b in every]),
            "left_s": med([statistics.fmean(t for _, t in b if t is not None) for b in done]),
            "drained_s": med([max(t for _, t in b if t is not None) for b in done]),
            "broadcasts": len(every), "per_send_s": per_send}
