"""DYN-Tree (Nupairoj1998, section 6.3), the pure part: each forwarding rank turns what its own
recent sends cost into t_hold and t_end estimates and splits the ranks it is responsible for
with OPT-Tree under them.

After a send of n bytes that took t_as at the sender (from the call until the message has
left), with the static parameters t_hs, t_hd (holding), t_nd (network per byte), t_rs, t_rd
(receiving):

    t'_hol = t_as - (t_hs + n t_hd) - n t_nd        t'_end = t_as - n t_hd - n t_nd + t_rs
    t^e_hol = t'_hol + m t_nd                       t^e_end = t'_end + m (t_hd + t_nd + t_rd)

and the next broadcast of m bytes runs OPT-Tree with hold = max(t_hs + m t_hd, t^e_hol) and
end = t^e_end. Without a measured send yet, the static t_hold and t_end are used, so at zero
load DYN-Tree is OPT-Tree. t_as is a node's mean over its sends of one broadcast, smoothed
over broadcasts (an EWMA; the paper does not say which send supplies it): the mean over
back-to-back sends from an idle start is how t_hold is measured
(collectives.programs.params), so at zero load the estimates are the static t_hold and
t_end again.

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
        if not (self.t_hs + self.t_ns + self.t_rs >= 0 and self.t_hd + self.t_nd + self.t_rd >= 0):
            raise ValueError(f"t_end would be negative: {self}")

    def static(self, m: int) -> tuple[float, float]:
        """(t_hold, t_end) of an m-byte message with no contention."""
        hold = self.t_hs + m * self.t_hd
        return hold, hold + self.t_ns + m * self.t_nd + self.t_rs + m * self.t_rd


# Nupairoj1998 section 6.4 baseline (IBM SP at Argonne, time units of ~10 ns)
BASELINE = StaticParams(t_hs=1915, t_hd=2, t_ns=1390, t_nd=2, t_rs=2025, t_rd=3)


def estimates(p: StaticParams, m: int, t_as: float | None = None,
              n: int | None = None) -> tuple[float, float]:
    """(hold, end) for the next m-byte broadcast, from the last send: t_as for n bytes."""
    if t_as is None:
        return p.static(m)
    n = m if n is None else n
    hol_prime = t_as - (p.t_hs + n * p.t_hd) - n * p.t_nd
    end_prime = t_as - n * p.t_hd - n * p.t_nd + p.t_rs
    hol_e = hol_prime + m * p.t_nd
    end_e = end_prime + m * (p.t_hd + p.t_nd + p.t_rd)
    return max(p.t_hs + m * p.t_hd, hol_e), max(end_e, 0.0)


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
