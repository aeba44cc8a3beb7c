"""Broadcast over IP multicast: `scout-linear`, `scout-binary` (Chen2000), `two-stage`
(Siebert2006) and `nack` (ours). Runs in every rank; the plans come from `ipmc.plans`.

- two-stage: the root multicasts every fragment without synchronising, then the fragmented
  chain completes the message over point-to-point: every rank receives every fragment from
  its predecessor and forwards a fragment to its successor as soon as it owns it, whether
  the multicast or the chain brought it (the thesis's completion rule). Below
  crossover_nodes ranks it is a linear broadcast, above crossover_size the plain chain.
- nack: the root multicasts; receivers report gaps as soon as they are provable and the
  root repairs them, all by datagram, with MPI as the safety net (`ipmc.nack`).
- scout-*: zero-byte scouts are gathered to the root (linearly or up Chen2000's binary
  tree) before it multicasts. Then, by the option `completion` (collectives.algorithms):
  "report" (the default) as in nack, every receiver ending with a "complete"; "none" as
  Chen2000 ran it, no positive completion, a receiver speaking only of a gap (`ipmc.gaps`).

Every wait has a deadline (`timeout`): a broadcast that cannot complete (a rank gone, all
datagrams and messages lost) raises MulticastError instead of hanging."""

from __future__ import annotations

from typing import Any

from ..algorithms import DEFAULT_COMPLETION, check_completion
from ..trees.run import execute, schedule_for
from . import datagram as dg
from . import sockbuf
from .channel import Channel
from .deadline import Clock, gather_zero
from .gaps import receive_gaps, serve_gaps
from .message import Message, Options
from .nack import receive, serve
from .plans import SCOUT_TREES, fragment_range, parents, two_stage_dispatch

TAG_SCOUT = 0x5C01
TAG_CHAIN = 1 << 20  # + fragment index: the chain may forward fragments out of order
MAX_OUTSTANDING = 64


def bcast(ch: Channel, buf: Any, root: int, algorithm: str, **params: Any) -> None:
    completion = None  # the scouts' (COMPLETIONS); the other algorithms take none
    if algorithm in SCOUT_TREES:
        completion = check_completion(params.pop("completion", DEFAULT_COMPLETION))
    view = memoryview(buf).cast("B")
    opts = Options(**{"fragment": ch.fragment, **params})
    dg.check_fragment(opts.fragment)
    ch.receive_buffer(sockbuf.resolve(algorithm, opts.rcvbuf))
    ch.next_bid()
    if ch.size == 1:
        return
    if algorithm == "two-stage":
        _two_stage(ch, view, root, opts)
    else:
        _with_repair(ch, view, root, opts, SCOUT_TREES.get(algorithm), completion)


# ---- two-stage (Siebert2006) ---------------------------------------------------------------------
def _two_stage(ch: Channel, view: memoryview, root: int, o: Options) -> None:
    # importing mpi4py.MPI starts MPI: only inside the ranks
    from mpi4py import MPI

    k, pc = ch.size, ch.pcomm
    how = two_stage_dispatch(k, len(view), o.crossover_nodes, o.crossover_size)
    if how != "two-stage":
        extra = {"fragment": o.fragment} if how == "fragmented-chain" else {}
        execute(schedule_for(how, k, root, len(view), **extra), view, pc)
        return
    vr = (ch.rank - root) % k
    pred = (ch.rank - 1) % k if vr else None
    succ = (ch.rank + 1) % k if vr != k - 1 else None
    msg = Message(ch, view, root, o.fragment)
    clock = Clock(ch, o.timeout, f"two-stage broadcast {ch.bid} from rank {root}")
    scratch = bytearray(len(view))
    recvs: dict[int, Any] = {}
    if vr == 0:
        msg.send_all(o)
    else:
        sv = memoryview(scratch)
        for i in range(msg.count):
            lo, hi = fragment_range(i, len(view), o.fragment)
            recvs[i] = pc.Irecv([sv[lo:hi], MPI.BYTE], source=pred, tag=TAG_CHAIN + i)
    sends: dict[int, Any] = {}
    next_send = 0  # lowest fragment not yet handed to the successor
    sent = bytearray(msg.count)
    chained = bytearray(msg.count)  # fragments the chain brought before the multicast
    while recvs or (succ is not None and (next_send < msg.count or sends)):
        progressed = False
        if vr:
            before = msg.missing
            ch.deliver(msg.on_datagram)
            progressed = msg.missing != before
            for i, req in list(recvs.items()):
                if req.Test():
                    del recvs[i]
                    progressed = True
                    if not msg.have[i]:
                        lo, hi = fragment_range(i, len(view), o.fragment)
                        chained[i] = msg.put(i, scratch[lo:hi])
        if succ is not None:
            for i, req in list(sends.items()):
                if req.Test():
                    del sends[i]
                    progressed = True
            for i in range(next_send, msg.count):
                if len(sends) >= MAX_OUTSTANDING:
                    break
                if msg.have[i] and not sent[i]:
                    lo, hi = fragment_range(i, len(view), o.fragment)
                    sends[i] = pc.Isend([view[lo:hi], MPI.BYTE], dest=succ, tag=TAG_CHAIN + i)
                    sent[i] = 1
                    progressed = True
            while next_send < msg.count and sent[next_send]:
                next_send += 1
        clock.wait(progressed, f"{len(recvs)} fragment(s) not yet received from rank "
                               f"{pred}, {msg.count - sum(sent)} not yet sent to rank {succ}")
    ch.arrivals.append((ch.bid, bytes(h and not c for h, c in zip(msg.have, chained,
                                                                 strict=True))))


# ---- nack and the scouts ---------------------------------------------------------------------
def _with_repair(ch: Channel, view: memoryview, root: int, o: Options,
                 scouts: Any | None, completion: str | None = None) -> None:
    k = ch.size
    vr = (ch.rank - root) % k
    msg = Message(ch, view, root, o.fragment)
    clock = Clock(ch, o.timeout, f"{'scout' if scouts else 'nack'} broadcast {ch.bid} "
                                 f"from rank {root}")
    if scouts is not None:  # zero-byte scouts: the root multicasts once all have arrived
        tree = scouts(k)
        absolute = lambda v: (v + root) % k  # noqa: E731
        gather_zero(ch, clock, msg.on_datagram, [absolute(c) for c in tree.get(vr, [])],
                    absolute(parents(tree)[vr]) if vr else None, TAG_SCOUT)
    if completion == "none":
        if vr == 0:
            serve_gaps(ch, msg, o, clock)
        else:
            receive_gaps(ch, msg, clock)
    elif vr == 0:
        serve(ch, msg, o, clock)
    else:
        receive(ch, msg, o, clock)
