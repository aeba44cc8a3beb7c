"""DYN-Tree (Nupairoj1998, section 6.3), the pure part: each forwarding rank turns what its own
recent sends cost into t_hold and t_end estimates and splits the ranks it is responsible for
with OPT-Tree under them.

A send of n bytes holds its sender t_as, from the call until the message has left: the
send's own software, t_hs + n t_hd, then the network's part, t_sq + t_ns + n t_nd + t_cont
(its wait in the sending queue, the channel's start-up and per-byte time, the contention
it met). With the receiving terms t_rs, t_rd:

    t'_hol = t_as - (t_hs + n t_hd) - n t_nd        t'_end = t_as - n t_hd - n t_nd + t_rs
    t^e_hol = t'_hol + m t_nd                       t^e_end = t'_end + m (t_hd + t_nd + t_rd)

and the next broadcast of m bytes runs OPT-Tree with hold = max(t_hs + m t_hd, t^e_hol) and
end = t^e_end. The max is the thesis's sender: its send returns once the message is in the
sending buffer, and the channel drains it meanwhile, so a node is held by its software or by
its channel, whichever is longer (send_order overlapped here). A fifo sender (the default
here: the next send starts once the previous message has left the host) is held by both,
one after the other: hold = t_hs + m t_hd + t^e_hol (`pipelined` False). t_sq and t_cont
are waits: a send cheaper than the zero-load one (a lone frame that an emulated link lets
out at once) is no negative wait, so t'_hol and t'_end never go below their zero-load
values. Without a measured send yet, the zero-load t_as (t_hs + m t_hd + t_ns + m t_nd) is
used, so at zero load DYN-Tree is OPT-Tree built from the t_hold the sender's order
measures. t_as is a node's mean over its sends of one broadcast, smoothed over broadcasts
(an EWMA; the paper does not say which send supplies it).

The static terms come from measured figures (`from_measured`): t_hs, t_hd from how long a
send's call held the sender (its return), t_ns, t_nd from the rest of its t_hold (until the
message had left), t_rs, t_rd from the rest of t_end.

DYN-Mesh (section 6.3, DYN-Tree on a mesh) splits the same way but in OPT-Mesh's order: the
ranks chained in the mesh's routing order (collectives.contention.trees.mesh_chain), each
holder owning a contiguous part of the chain and handing its first child, at the end of the
other part nearest to it, that part (Algorithm 5.2.1), with the sizes OPT-Tree takes under
the holder's own estimates: at equal estimates it builds OPT-Mesh's tree, and as the load
drives t^e_end / t^e_hol towards 1 a binomial-like halving one (U-Mesh's shape).
DYN-Tree is the case of a chain in rank order from the root, the holder always at its
part's lower end (`chain_sends` for both; `split` for DYN-Tree alone).

The receiving terms may be negative: the split must add up to the measured t_end, and on an
emulated link a lone message's t_end lacks the wire time of its first frame, which
back-to-back sends (t_hold) pay (a token bucket lets that frame out at once)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..contention.trees import holder_sends, opt_split


@dataclass(frozen=True)
class StaticParams:
    """Start-up (s) and per-byte (s/B) terms of holding, network and receiving."""
    t_hs: float
    t_hd: float
    t_ns: float
    t_nd: float
    t_rs: float
    t_rd: float

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if name not in ("t_rs", "t_rd") and not value >= 0:
                raise ValueError(f"{name} must be >= 0, got {value!r}")
        # a line through two measured sizes may start below zero (t_end grows faster than
        # its start-up); t_end must not fall with the size, nor be negative at every size
        start, per_byte = self.t_hs + self.t_ns + self.t_rs, self.t_hd + self.t_nd + self.t_rd
        if per_byte < 0 or (start < 0 and per_byte == 0):
            raise ValueError(f"t_end would be negative: {self}")

    def static(self, m: int) -> tuple[float, float]:
        """(t_hold, t_end) of an m-byte message with no contention."""
        hold = self.t_hs + m * self.t_hd
        return hold, hold + self.t_ns + m * self.t_nd + self.t_rs + m * self.t_rd


# Nupairoj1998 section 6.4 baseline (IBM SP at Argonne, time units of ~10 ns)
BASELINE = StaticParams(t_hs=1915, t_hd=2, t_ns=1390, t_nd=2, t_rs=2025, t_rd=3)


def from_measured(sizes: Sequence[int], software: Sequence[float], holds: Sequence[float],
                  ends: Sequence[float], m: int) -> StaticParams:
    """Section 6.3's static terms from figures measured at `sizes` (s): holding (t_hs,
    t_hd) from what a send's call held its sender (`software`), the network's (t_ns, t_nd)
    from the rest of its t_hold (`holds`, until the message had left), receiving (t_rs,
    t_rd) from the rest of t_end (`ends`). Each is a line through the two sizes measured
    around m (extended along the nearest pair), so exact at m; a constant where one size
    was measured, or where the line would start below zero or fall."""
    if not sizes or not len(sizes) == len(software) == len(holds) == len(ends):
        raise ValueError("need equally many sizes, software, t_hold and t_end figures")
    order = sorted(range(len(sizes)), key=lambda i: sizes[i])
    xs = [sizes[i] for i in order]
    parts = {"hold": [software[i] for i in order],
             "net": [max(0.0, holds[i] - software[i]) for i in order],
             "recv": [ends[i] - max(holds[i], software[i]) for i in order]}

    def line(ys: list[float], signed: bool = False) -> tuple[float, float]:
        if len(xs) == 1:
            return ys[0], 0.0
        i = max(1, min(len(xs) - 1, next((i for i, x in enumerate(xs) if x >= m),
                                         len(xs) - 1)))
        slope = (ys[i] - ys[i - 1]) / (xs[i] - xs[i - 1])
        start = ys[i - 1] - slope * xs[i - 1]
        at_m = start + slope * m
        if not signed and (slope < 0 or start < 0):
            return max(0.0, at_m), 0.0
        return start, slope

    (hs, hd), (ns, nd), (rs, rd) = line(parts["hold"]), line(parts["net"]), \
        line(parts["recv"], signed=True)
    if hd + nd + rd < 0:  # t_end per byte negative: the receiving part as a constant at m
        rs, rd = rs + rd * m, 0.0
    return StaticParams(hs, hd, ns, nd, rs, rd)


def estimates(p: StaticParams, m: int, t_as: float | None = None, n: int | None = None,
              pipelined: bool = True) -> tuple[float, float]:
    """(hold, end) for the next m-byte broadcast, from the last send: t_as for n bytes
    (None: none measured yet, the zero-load send). `pipelined`: the thesis's sender, held
    by the longer of its software and its channel; False: a fifo sender, held by both."""
    if t_as is None:
        t_as, n = p.t_hs + m * p.t_hd + p.t_ns + m * p.t_nd, m
    n = m if n is None else n
    hol_prime = max(t_as - (p.t_hs + n * p.t_hd) - n * p.t_nd, p.t_ns)
    end_prime = max(t_as - n * p.t_hd - n * p.t_nd + p.t_rs, p.t_hs + p.t_ns + p.t_rs)
    hol_e = hol_prime + m * p.t_nd
    end_e = end_prime + m * (p.t_hd + p.t_nd + p.t_rd)
    software = p.t_hs + m * p.t_hd
    hold = max(software, hol_e) if pipelined else software + hol_e
    return hold, max(end_e, 0.0)


def chain_sends(me: int, lo: int, hi: int, hold: float,
                end: float) -> list[tuple[int, int, int]]:
    """The holder at chain position `me` owns positions lo..hi (inclusive): its sends in
    order, each (receiver's position, the receiver's part's lo, hi), split as OPT-Mesh splits
    (Algorithm 5.2.1) with OPT-Tree's sizes under this holder's (hold, end)."""
    if hi < lo:
        raise ValueError(f"empty part {lo}..{hi}")
    return holder_sends(me, lo, hi, opt_split(hi - lo + 1, hold, end))


def split(lo: int, hi: int, hold: float, end: float) -> list[tuple[int, int]]:
    """The sender at relative rank `lo` owns ranks lo..hi-1: its children in send order,
    each with the end of the range it becomes responsible for (OPT-Tree's split: the sender
    keeps lo..lo+j[n]-1 and hands lo+j[n]..lo+n-1 to its first child, recursively)."""
    return [(child, last + 1) for child, _, last in chain_sends(lo, lo, hi - 1, hold, end)]


class SendCost:
    """A node's t_as: the mean over its sends of a broadcast (record each, then close), smoothed
    over broadcasts of one size (EWMA with weight `alpha` on the newest)."""

    def __init__(self, alpha: float = 0.5):
        if not 0 < alpha <= 1:
            raise ValueError(f"alpha must be in (0, 1], got {alpha}")
        self.alpha = alpha
        self.t_as: float | None = None
        self.n: int | None = None
        self._sends: list[float] = []
        self._size: int | None = None

    def record(self, seconds: float, n: int) -> None:
        if self._size != n:
            self._sends = []
        self._sends.append(seconds)
        self._size = n

    def close(self) -> None:
        """End of a broadcast: its sends' mean joins the estimate (nothing if none)."""
        if not self._sends:
            return
        mean = sum(self._sends) / len(self._sends)
        if self.t_as is None or self.n != self._size:
            self.t_as, self.n = mean, self._size
        else:
            self.t_as = self.alpha * mean + (1 - self.alpha) * self.t_as
        self._sends = []
