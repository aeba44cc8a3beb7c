"""nack's completion up a tree (`acks="tree"`): who reports to whom, what an aggregated
"complete" says, and how a rank counts the ranks its reports cover. Pure: no sockets, no
MPI; ipmc.nack sends and takes the datagrams.

Why: with `acks="direct"` every receiver's "complete" (DONE_COPIES datagrams and an MPI
copy) crosses the root's own link at the end of the broadcast, all at once: 31 receivers x
(3 x 944 + ~1300) bits at 5 Mbit/s is ~25 ms queued behind each other at the root, 63 at
2 Mbit/s ~130 ms (measured: the root returned 16 ms after the last receiver on a 32-host star
at 5 Mbit/s, 110 ms on 64 hosts at 2 Mbit/s; docs/reliable-multicast.md, "Completion up a
tree"). Up a k-ary tree a rank's link carries at most `fanout` children's reports.

The tree is over virtual ranks v = (rank - root) mod size, the root v = 0 at the top, v's
children k*v + 1 .. k*v + k (a heap's order: depth ceil(log_k) of the ranks). A leaf sends
its "complete" as an ACK to its parent; an inner rank waits until it holds the whole message
and its children have covered their subtrees, then sends one ACK covering its own subtree;
the root returns once every rank is covered.

    ACK payload: [REPORT_INFO: seq, the subtree's slowest first pass][fanout:2][covered:4]
                 [slowest:2]

`covered` is the subtree's size (the root checks it against its own tree: a rank with
another fanout is rejected, "shape"), `slowest` the rank whose first-pass timing it carries
(the lowest rate taken in, the one the root's pace follows: ipmc.rate). An ACK from rank r,
its MPI copy (TAG_DONE, to the parent) and r's answer to a later end marker (to the root, any
time after r returned: Channel.finished) all mean the same: r's whole subtree holds the
message. So a lost ACK cannot hang: the MPI copy reaches the parent, and the root takes ACKs
and plain "complete" REPORTs from any rank (a direct report covers its sender alone).

Copies (`copies`): a rank that saw no loss in the last LOSS_MEMORY broadcasts sends its
ACK once (a lost one costs the MPI copy's TCP delay, or an end-marker round), one that saw
loss DONE_COPIES times, as the direct mode always does."""

from __future__ import annotations

import struct
from dataclasses import dataclass

from .rate import REPORT_INFO, PassTiming

ACKS = ("direct", "tree")
DEFAULT_ACKS = "tree"
DEFAULT_FANOUT = 4
MAX_FANOUT = 0xFFFF
ACK_INFO = struct.Struct("!HIH")  # fanout, ranks covered, the slowest pass's rank
ACK_SIZE = REPORT_INFO.size + ACK_INFO.size
LOSS_MEMORY = 16  # broadcasts after a loss during which a rank still sends every copy


def check_acks(acks: object, fanout: object) -> None:
    """ValueError unless `acks` is one of ACKS and `fanout` a whole number >= 2."""
    if acks not in ACKS:
        raise ValueError(f"acks must be one of {', '.join(ACKS)}, got {acks!r}")
    if isinstance(fanout, bool) or not isinstance(fanout, int) \
            or not 2 <= fanout <= MAX_FANOUT:
        raise ValueError(f"ack_fanout must be a whole number in 2..{MAX_FANOUT}, "
                         f"got {fanout!r}")


@dataclass(frozen=True)
class AckTree:
    """The k-ary tree of acknowledgements over `size` ranks rooted at `root` (absolute
    ranks in and out)."""

    size: int
    root: int
    fanout: int

    def _v(self, rank: int) -> int:
        if not 0 <= rank < self.size:
            raise ValueError(f"rank {rank} is not one of {self.size}")
        return (rank - self.root) % self.size

    def _abs(self, v: int) -> int:
        return (v + self.root) % self.size

    def parent(self, rank: int) -> int | None:
        v = self._v(rank)
        return None if v == 0 else self._abs((v - 1) // self.fanout)

    def _kids(self, v: int) -> range:
        lo = self.fanout * v + 1
        return range(lo, min(lo + self.fanout, self.size))

    def children(self, rank: int) -> list[int]:
        return [self._abs(c) for c in self._kids(self._v(rank))]

    def subtree(self, rank: int) -> list[int]:
        """`rank` and every rank below it, level by level."""
        out, level = [], [self._v(rank)]
        while level:
            out += level
            level = [c for v in level for c in self._kids(v)]
        return [self._abs(v) for v in out]

    def depth(self) -> int:
        """Hops from the deepest rank to the root."""
        d, v = 0, self.size - 1
        while v:
            v, d = (v - 1) // self.fanout, d + 1
        return d


class Cover:
    """What one rank waits for: the root, every other rank; an inner rank, its subtree
    below it. Reports are taken from any rank (a direct "complete" covers its sender, an
    ACK or MPI copy its sender's subtree); repeats and strays cover nothing new."""

    def __init__(self, tree: AckTree, rank: int):
        self.tree, self.rank = tree, rank
        self.waiting = set(tree.subtree(rank)) - {rank}
        self.slowest: tuple[int, PassTiming] | None = None

    def direct(self, sender: int) -> bool:
        """A plain "complete" from `sender`. True if it was still awaited."""
        if sender not in self.waiting:
            return False
        self.waiting.discard(sender)
        return True

    def subtree(self, sender: int) -> bool:
        """An ACK (or its MPI copy) from `sender`: its subtree holds the message. True if
        that covered a rank still awaited."""
        if not 0 <= sender < self.tree.size:
            return False
        before = len(self.waiting)
        self.waiting.difference_update(self.tree.subtree(sender))
        return len(self.waiting) != before

    def fits(self, sender: int, info: Ack) -> bool:
        """An ACK of this tree: the same fanout, and covering `sender`'s subtree."""
        return info.fanout == self.tree.fanout and 0 <= sender < self.tree.size \
            and info.covered == len(self.tree.subtree(sender))

    def ack(self, sender: int, info: Ack) -> bool:
        """An ACK datagram that `fits`: its sender's subtree covered, its timing kept. True
        if that covered a rank still awaited."""
        if not self.subtree(sender):
            return False
        self.timing(info.slowest, info.timing)
        return True

    def timing(self, rank: int, t: PassTiming) -> None:
        """A first pass's timing in this subtree: kept if it is the slowest yet."""
        if self.slowest is None or slower(t, self.slowest[1]):
            self.slowest = (rank, t)

    def missing_children(self) -> list[int]:
        """This rank's children whose subtrees are not all covered (for what a wait names)."""
        return [c for c in self.tree.children(self.rank)
                if self.waiting & set(self.tree.subtree(c))]


@dataclass(frozen=True)
class Ack:
    seq: int  # the last end marker its sender saw
    timing: PassTiming  # the slowest first pass in the sender's subtree
    fanout: int
    covered: int
    slowest: int  # that pass's rank


def encode(a: Ack) -> bytes:
    t = a.timing
    return REPORT_INFO.pack(a.seq, t.first, t.last, t.took, t.span) \
        + ACK_INFO.pack(a.fanout, a.covered, a.slowest)


def decode(payload: bytes | memoryview) -> Ack | None:
    """The ACK in this payload, None if it is not one (wrong length)."""
    if len(payload) != ACK_SIZE:
        return None
    seq, first, last, took, span = REPORT_INFO.unpack_from(payload)
    fanout, covered, slowest = ACK_INFO.unpack_from(payload, REPORT_INFO.size)
    return Ack(seq, PassTiming(first, last, took, span), fanout, covered, slowest)


def slower(a: PassTiming, b: PassTiming) -> bool:
    """`a` took data in more slowly than `b` (a timing that says nothing is never slower)."""
    ra, rb = a.fragments_per_s(), b.fragments_per_s()
    return ra is not None and (rb is None or ra < rb)


def copies(last_loss: int | None, bid: int, most: int) -> int:
    """How many times a rank sends its "complete" in broadcast `bid`: `most` if it saw a
    loss (`last_loss`: the broadcast id of the last; None: none yet) in this one or the
    LOSS_MEMORY before it, else once."""
    recent = last_loss is not None and (bid - last_loss) & 0xFFFFFFFF <= LOSS_MEMORY
    return most if recent else 1
