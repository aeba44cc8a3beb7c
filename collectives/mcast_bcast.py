"""Broadcast over IP multicast: `scout-linear`, `scout-binary` (seed 004), `two-stage` (seed
002) and `nack` (ours). Runs in every rank; the plans come from `mcast_plans`.

- two-stage: the root multicasts every fragment without synchronising, then the fragmented
  chain completes the message over point-to-point: every rank receives every fragment from
  its predecessor and forwards a fragment to its successor as soon as it owns it, whether
  the multicast or the chain brought it (the thesis's completion rule). Below
  crossover_nodes ranks it is a linear broadcast, above crossover_size the plain chain.
- nack: the root multicasts, then an end marker; each rank reports what it lacks up a
  binomial tree as soon as a gap is provable (it holds the last fragment or saw the end
  marker: the root sends in order, over one path); the root re-sends what is missing (by
  multicast when several lack a fragment, point to point when one does) and the last
  repair round is point to point only, so it always completes. No timer is a constant:
  the root re-sends its end marker every two group round trips until every report is in
  (NORM's FLUSH; a rank that lost everything, end marker included, still learns the
  broadcast is over), and a rank given a multicast repair waits one group round trip for
  it (mcast_grtt: measured at set-up, updated by every lossless report round).
- scout-*: zero-byte scouts are gathered to the root (linearly or up seed 004's binary
  tree) before it multicasts; seed 004 had no repair, here lost fragments are repaired as
  in nack, with reports up the scout tree.

Every wait has a deadline (`timeout`): a broadcast that cannot complete (a rank gone, all
datagrams and messages lost) raises MulticastError instead of hanging."""

from __future__ import annotations

import os
import sys
import time
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import datagram as dg
from . import held, waiting
from .mcast_channel import Channel, MulticastError
from .mcast_plans import (
    CROSSOVER_NODES,
    CROSSOVER_SIZE,
    ROOT_WAIT_US,
    SCOUT_TREES,
    fragment_count,
    fragment_range,
    parents,
    plan_repair,
    report_tree,
    two_stage_dispatch,
)
from .schedules import Children

TAG_SCOUT, TAG_REPORT, TAG_BATCH = 0x5C01, 0x5C02, 0x5C03
TAG_CHAIN = 1 << 20  # + fragment index: the chain may forward fragments out of order
TIMEOUT_S = 60.0
END_ROBUST = 20  # end markers 2 GRTT apart before the interval starts to double (NORM's 20)
# In the block wait mode an MPI message also ends a nap (collectives.waiting), so naps can
# be long; otherwise they bound the delay a point-to-point message sees (1 ms made every
# report hop ~1 ms slower).
NAP_MAX_S = 2e-3 if waiting.MODE == "block" else 2e-4
MAX_OUTSTANDING = 64


PACE = 1.0  # share of the link rate a multicast sender keeps to, by default


def default_rate() -> float | None:
    """Pace multicast at PACE x MCASTLAB_LINK_MBIT (the testbed sets it to the slowest host
    link), counting every datagram's full size on the wire. The link's own rate: measured
    on a 16-host star at the calibrated 30 Mbit/s (AF_XDP ports, the switch first, ranks
    asleep while they wait), nack's 1 MiB took 1.11 x M/B paced at the link rate, 1.22 x at
    90 % and 1.64 x at 66 %, with no fragment repaired at any of them; 8 hosts at 100 Mbit/s
    (above their envelope): 1.20 x against 1.68 x. The 66 % used before was needed while
    the switch starved (it dropped a quarter of an unpaced 1 MiB burst then). Adapting the
    pace to the receivers' reports is still to come (issue 17)."""
    mbit = os.environ.get("MCASTLAB_LINK_MBIT")
    try:
        return PACE * float(mbit) * 1e6 if mbit else None
    except ValueError:
        return None


@dataclass
class Options:
    fragment: int
    rate: float | None = field(default_factory=default_rate)  # bit/s, None: unpaced
    timeout: float = TIMEOUT_S
    mcast_min: int = 2
    repair_rounds: int = 1
    root_wait_us: float = ROOT_WAIT_US
    crossover_nodes: int = CROSSOVER_NODES
    crossover_size: int = CROSSOVER_SIZE


class _Clock:
    """The broadcast's deadline, and an adaptive nap between polls (20 us while things
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

    def wait(self, progressed: bool, detail: str = "") -> None:
        if progressed:
            self.nap = 2e-5
            return
        now = time.perf_counter()
        self._warn(now, detail)
        if now > self.end:
            raise MulticastError(f"{self.what}: rank {self.ch.rank} gave up after "
                                 f"{self.timeout:g} s{': ' + detail if detail else ''}")
        # woken (a datagram, or an MPI message in the block wait mode): the next steps may
        # need more MPI tests soon, as an MPI request completes a call or two after its
        # data came (collectives.waiting); idle: the naps grow
        self.nap = 2e-5 if self.ch.wait_readable(self.nap) else min(NAP_MAX_S, self.nap * 2)


class _Message:
    """The message being assembled from datagrams, with what is still missing."""

    def __init__(self, ch: Channel, view: memoryview, root: int, fragment: int):
        self.ch, self.view, self.root, self.fragment = ch, view, root, fragment
        self.nbytes = len(view)
        self.count = fragment_count(self.nbytes, fragment)
        self.have = bytearray(self.count)
        self.missing = self.count
        self.heard = self.end_seen = False
        self.last_heard = time.perf_counter()
        self.counting_repairs = False

    def put(self, index: int, payload: bytes | memoryview) -> bool:
        if self.have[index]:
            self.ch.stats["duplicate"] += 1
            return False
        lo, hi = fragment_range(index, self.nbytes, self.fragment)
        self.view[lo:hi] = payload
        self.have[index] = 1
        self.missing -= 1
        if not self.missing:
            held.mark()
        return True

    def on_datagram(self, d: dg.Datagram) -> None:
        st = self.ch.stats
        if d.root != self.root or d.kind not in (dg.DATA, dg.END) or d.count != self.count:
            st.reject("shape")
            return
        self.heard = True
        self.last_heard = time.perf_counter()
        if d.kind == dg.END:
            self.end_seen = True
            return
        lo, hi = fragment_range(d.index, self.nbytes, self.fragment)
        if len(d.payload) != hi - lo:
            st.reject("length")
            return
        if self.put(d.index, d.payload):
            st["delivered"] += 1
            if self.counting_repairs:
                st["repaired"] += 1

    def fragments(self, indexes: Iterable[int]) -> list[tuple[int, bytes]]:
        """(index, bytes) of these fragments, for a point-to-point repair."""
        return [(i, bytes(self.view[slice(*fragment_range(i, self.nbytes, self.fragment))]))
                for i in indexes]

    def lacking(self) -> list[int]:
        return [i for i, h in enumerate(self.have) if not h]

    def send_all(self, o: Options) -> None:
        """The root: after the optional root wait, multicast the whole message."""
        if o.root_wait_us > 0:
            time.sleep(o.root_wait_us * 1e-6)
        self.have[:] = b"\x01" * self.count
        self.missing = 0
        self.multicast(range(self.count), o.rate)

    def multicast(self, indexes: range | list[int] | frozenset[int], rate: float | None) -> None:
        """Send these fragments, paced to `rate` bit/s if given (see Options.rate)."""
        due = time.perf_counter()
        for i in sorted(indexes):
            lo, hi = fragment_range(i, self.nbytes, self.fragment)
            self.ch.send(dg.DATA, i, self.count, self.view[lo:hi], root=self.root)
            if rate:
                due += dg.wire_bits(hi - lo) / rate
                ahead = due - time.perf_counter()
                if ahead > 2e-3:
                    time.sleep(ahead)


def bcast(ch: Channel, buf: Any, root: int, algorithm: str, **params: Any) -> None:
    view = memoryview(buf).cast("B")
    opts = Options(**{"fragment": ch.fragment, **params})
    dg.check_fragment(opts.fragment)
    ch.next_bid()
    if ch.size == 1:
        return
    if algorithm == "two-stage":
        _two_stage(ch, view, root, opts)
    elif algorithm == "nack":
        _with_repair(ch, view, root, opts, None, report_tree(ch.size))
    else:
        tree = SCOUT_TREES[algorithm](ch.size)
        _with_repair(ch, view, root, opts, tree, tree)


# ---- two-stage (seed 002) ---------------------------------------------------------------------
def _two_stage(ch: Channel, view: memoryview, root: int, o: Options) -> None:
    from mpi4py import MPI

    k, pc = ch.size, ch.pcomm
    how = two_stage_dispatch(k, len(view), o.crossover_nodes, o.crossover_size)
    if how != "two-stage":
        from .executor import execute, schedule_for

        extra = {"fragment": o.fragment} if how == "fragmented-chain" else {}
        execute(schedule_for(how, k, root, len(view), **extra), view, pc)
        return
    vr = (ch.rank - root) % k
    pred = (ch.rank - 1) % k if vr else None
    succ = (ch.rank + 1) % k if vr != k - 1 else None
    msg = _Message(ch, view, root, o.fragment)
    clock = _Clock(ch, o.timeout, f"two-stage broadcast {ch.bid} from rank {root}")
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
                        msg.put(i, scratch[lo:hi])
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


# ---- nack and the scouts ---------------------------------------------------------------------
def _with_repair(ch: Channel, view: memoryview, root: int, o: Options,
                 scouts: Children | None, tree: Children) -> None:
    k, pc = ch.size, ch.pcomm
    vr = (ch.rank - root) % k
    absolute = lambda v: (v + root) % k  # noqa: E731
    up = parents(tree)
    parent = absolute(up[vr]) if vr else None
    kids = [absolute(c) for c in tree.get(vr, [])]
    msg = _Message(ch, view, root, o.fragment)
    clock = _Clock(ch, o.timeout, f"{'scout' if scouts else 'nack'} broadcast {ch.bid} "
                                  f"from rank {root}")
    if scouts is not None:  # zero-byte scouts: the root multicasts once all have arrived
        gather_zero(ch, clock, msg.on_datagram, [absolute(c) for c in scouts.get(vr, [])],
                    absolute(parents(scouts)[vr]) if vr else None, TAG_SCOUT)
    if o.rate:  # the estimate never falls below one frame time at the paced rate
        ch.grtt.floor = dg.wire_bits(o.fragment) / o.rate
    end = _EndMarker(ch, msg.count, ch.grtt.value)
    if vr == 0:
        msg.send_all(o)
        end.send()
    else:
        # Until a gap is provable: the last fragment held, or the end marker seen (the root
        # sends in order over one path, so what is missing then is lost). A rank that has
        # heard nothing waits for the root, however late it comes: its end markers repeat.
        while msg.missing and not (msg.end_seen or msg.have[-1]):
            before = msg.missing
            ch.deliver(msg.on_datagram)
            clock.wait(msg.missing != before, "waiting for the root's multicast")
    msg.counting_repairs = True
    active_kids = kids
    rounds = 0
    while True:
        reports: dict[int, bytes] = {}
        tick = end.tick if vr == 0 and rounds == 0 else None
        for kid in active_kids:
            reports.update(_recv_obj(ch, clock, msg, kid, TAG_REPORT, tick))
        if vr == 0 and rounds == 0 and not reports:  # nothing lost: a clean round-trip sample
            ch.grtt.update(time.perf_counter() - end.first)
        if msg.missing:
            reports[ch.rank] = array("I", msg.lacking()).tobytes()
        if vr:
            _send_obj(ch, clock, msg, reports, parent, TAG_REPORT)
            if not reports:
                return
            batch = _recv_obj(ch, clock, msg, root, TAG_BATCH)
            for i, data in batch["frags"]:
                if msg.put(i, data):
                    ch.stats["repaired"] += 1
            if batch["final"]:
                if msg.missing:
                    raise MulticastError(f"rank {ch.rank}: the final repair left "
                                         f"{msg.missing} fragment(s) missing")
                return
            active_kids = [c for c in kids if c in batch["active"]]
            want = [i for i in batch["multicast"] if not msg.have[i]]
            # sent before the batch, on the faster path: a group round trip is ample
            quiet = time.perf_counter() + batch["grtt"]
            while want and time.perf_counter() < quiet:
                before = msg.missing
                ch.deliver(msg.on_datagram)
                want = [i for i in want if not msg.have[i]]
                clock.wait(msg.missing != before)
        else:
            if not reports:
                return
            rounds += 1
            final = rounds > o.repair_rounds
            missing = {r: frozenset(array("I", b)) for r, b in reports.items()}
            plan = plan_repair(missing, mcast_min=o.mcast_min, final=final)
            active = set()
            for r in missing:
                v = (r - root) % k
                while v:
                    active.add(absolute(v))
                    v = up[v]
            msg.multicast(plan.multicast, o.rate)
            reqs = []
            for r in sorted(active):
                frags = msg.fragments(sorted(plan.p2p.get(r, ())))
                reqs.append(pc.isend({"final": final, "multicast": sorted(plan.multicast),
                                      "active": active, "frags": frags,
                                      "grtt": ch.grtt.value}, dest=r, tag=TAG_BATCH))
            _complete(ch, clock, msg.on_datagram, reqs)
            if final:
                return
            active_kids = [c for c in kids if c in active]


class _EndMarker:
    """The root's end marker, robust to its own loss: sent after the last fragment, then
    again every 2 GRTT while reports are outstanding (END_ROBUST times, then at doubling
    intervals: a rank cut off for good costs few datagrams until the deadline)."""

    def __init__(self, ch: Channel, count: int, grtt: float):
        self.ch, self.count = ch, count
        self.interval = 2 * grtt
        self.sent = 0
        self.first = self.due = 0.0

    def send(self) -> None:
        now = time.perf_counter()
        if not self.sent:
            self.first = now
        self.ch.send(dg.END, 0, self.count)
        self.sent += 1
        if self.sent > END_ROBUST:
            self.interval *= 2
        self.due = now + self.interval

    def tick(self) -> None:
        if time.perf_counter() >= self.due:
            self.send()


def _complete(ch: Channel, clock: _Clock, handler: Callable[[dg.Datagram], None],
              reqs: list[Any], detail: str = "a point-to-point message did not complete",
              ) -> None:
    """Wait for point-to-point requests, handing datagrams to `handler` meanwhile."""
    from mpi4py import MPI

    while not MPI.Request.Testall(reqs):
        ch.deliver(handler)
        clock.wait(False, detail)


def gather_zero(ch: Channel, clock: _Clock, handler: Callable[[dg.Datagram], None],
                kids: list[int], parent: int | None, tag: int) -> None:
    """Zero-byte messages up a tree: from every child, then to the parent (seed 004's scouts
    and the arrival half of its barrier)."""
    from mpi4py import MPI

    empty = bytearray(1)
    _complete(ch, clock, handler, [ch.pcomm.Irecv([empty, 0, MPI.BYTE], source=kid, tag=tag)
                                   for kid in kids], "waiting for ranks to arrive")
    if parent is not None:
        _complete(ch, clock, handler, [ch.pcomm.Isend([empty, 0, MPI.BYTE], dest=parent,
                                                      tag=tag)])


def _send_obj(ch: Channel, clock: _Clock, msg: _Message, obj: Any, dest: int, tag: int) -> None:
    _complete(ch, clock, msg.on_datagram, [ch.pcomm.isend(obj, dest=dest, tag=tag)])


def _recv_obj(ch: Channel, clock: _Clock, msg: _Message, source: int, tag: int,
              tick: Callable[[], None] | None = None) -> Any:
    """Receive one pickled message, taking datagrams in while waiting for it (and calling
    `tick` on every pass, e.g. to repeat the end marker)."""
    pc = ch.pcomm
    while not pc.iprobe(source=source, tag=tag):
        if tick is not None:
            tick()
        before = msg.missing
        ch.deliver(msg.on_datagram)
        clock.wait(msg.missing != before, f"no message from rank {source} (tag {tag:#x})")
    return pc.recv(source=source, tag=tag)
