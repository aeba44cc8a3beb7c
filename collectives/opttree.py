"""OPT-Tree: latency-optimal multicast trees under the (t_hold, t_end) model (pure).

After Nupairoj's dissertation (MSU, 1998), chapter 4. Model: the root sends to its children one
after another, consecutive sends of one node start ``t_hold`` apart, a message takes ``t_end``
from the start of the send until the receiver has it, and a receiver may start sending as soon
as it has the message. The latency of a tree is the time at which the last node has the message.

* :func:`opt_table` is the O(k) recurrence of Lemma 3 (Table 4.3), with one correction: the
  printed recurrence charges ``t[1] + t_hold`` when the root keeps a single node, which is not
  optimal when ``t_hold > t_end``; here that root-side term is 0, so the table is optimal in
  both regimes (checked against :func:`exhaustive_optimum`).
* :func:`opt_children` turns the ``j`` column into a tree (Algorithm 4.3.1), in relative ids:
  the root is 0 and ``(rank - root) % size`` maps a rank to its relative id.
* :func:`multiport_table` / :func:`multiport_children` are the alpha-port extension (eq. 4.12,
  Table 4.4): a node sends in rounds ``t_hold`` apart; in a round the send on port r starts
  ``(r - 1) * t_int`` after the round starts.

Trees are dicts from a node to its children in send order; leaves may be left out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MultiPortTable",
    "OptTable",
    "alpha_max",
    "exhaustive_optimum",
    "multiport_children",
    "multiport_latency",
    "multiport_table",
    "opt_children",
    "opt_table",
    "tree_latency",
]


def _check_k(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"k must be an int, got {type(k).__name__}")
    if k < 1:
        raise ValueError(f"k must be at least 1 (number of nodes including the root), got {k}")


def _check_time(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite non-negative number, got {value!r}")
    return float(value)


# --------------------------------------------------------------------------- one port


@dataclass(frozen=True)
class OptTable:
    """OPT-Tree table for 1..k nodes.

    ``t[i]`` is the optimal latency for i nodes (``t[0]`` is unused and 0). ``j[i]`` is the
    size of the subtree that keeps the root in the best split of i nodes; the other
    ``i - j[i]`` nodes form the subtree of the root's first child (``j[0] = j[1] = 0``, unused).
    """

    k: int
    t: tuple[float, ...]
    j: tuple[int, ...]


def opt_table(k: int, t_hold: float, t_end: float) -> OptTable:
    """The O(k) OPT-Tree recurrence (Lemma 3), optimal for any ``t_hold``, ``t_end`` >= 0.

    ``j[i]`` is ``j[i-1]`` or ``j[i-1] + 1``, whichever gives the lower latency (ties: ``+1``,
    which reproduces Table 4.3). The root-side term is ``t[j] + t_hold``, or 0 when ``j == 1``.
    """
    _check_k(k)
    t_hold = _check_time("t_hold", t_hold)
    t_end = _check_time("t_end", t_end)
    t = [0.0] * (k + 1)
    j = [0] * (k + 1)
    if k >= 2:
        t[2], j[2] = t_end, 1
    for i in range(3, k + 1):
        jp = j[i - 1]
        # jp + 1 >= 2, so the root keeps at least 2 nodes and still has a send to do.
        grow_root = max(t[jp + 1] + t_hold, t[i - 1 - jp] + t_end)
        keep_root = max(t[jp] + t_hold if jp > 1 else 0.0, t[i - jp] + t_end)
        if grow_root <= keep_root:
            t[i], j[i] = grow_root, jp + 1
        else:
            t[i], j[i] = keep_root, jp
    return OptTable(k=k, t=tuple(t), j=tuple(j))


def opt_children(k: int, j: Sequence[int]) -> dict[int, list[int]]:
    """The OPT tree on k nodes in relative ids (root 0), by Algorithm 4.3.1.

    A subtree of n nodes at base b keeps nodes ``b .. b + j[n] - 1`` with the root and sends
    first to ``b + j[n]``, the root of the other ``n - j[n]`` nodes; both halves recurse.
    Returns node -> children in send order, for internal nodes only (``{}`` when k == 1).
    """
    _check_k(k)
    if len(j) <= k:
        raise ValueError(f"j must have entries for 0..{k}, got {len(j)} entries")
    for n in range(2, k + 1):
        if not 1 <= j[n] <= n - 1:
            raise ValueError(f"j[{n}] must be between 1 and {n - 1}, got {j[n]}")
    children: dict[int, list[int]] = {}
    stack = [(0, k)]  # (base, size) of subtrees still to expand
    while stack:
        base, n = stack.pop()
        while n > 1:
            child = base + j[n]
            children.setdefault(base, []).append(child)
            stack.append((child, n - j[n]))
            n = j[n]
    return children


def _arrivals(
    children: Mapping[int, Sequence[Any]],
    root: int,
    delays: Callable[[Sequence[Any]], list[tuple[int, float]]],
) -> dict[int, float]:
    """Time each node has the message; ``delays(sends)`` lists (child, delay after parent)."""
    have: dict[int, float] = {root: 0.0}
    stack = [root]
    while stack:
        node = stack.pop()
        for child, delay in delays(children.get(node, ())):
            if child in have:
                raise ValueError(f"not a tree: node {child} is reached twice")
            have[child] = have[node] + delay
            stack.append(child)
    unreachable = set(children) - set(have)
    if unreachable:
        raise ValueError(f"not a tree: nodes {sorted(unreachable)} are not reachable from {root}")
    return have


def tree_latency(
    children: Mapping[int, Sequence[int]], t_hold: float, t_end: float, root: int = 0
) -> float:
    """Latency of any tree under the model: the r-th child (r = 1, 2, ...) of a node has the
    message ``(r - 1) * t_hold + t_end`` after its parent. Raises ValueError if not a tree."""
    t_hold = _check_time("t_hold", t_hold)
    t_end = _check_time("t_end", t_end)

    def delays(sends: Sequence[int]) -> list[tuple[int, float]]:
        return [(child, index * t_hold + t_end) for index, child in enumerate(sends)]

    return max(_arrivals(children, root, delays).values())


def exhaustive_optimum(k: int, t_hold: float, t_end: float) -> float:
    """The optimal latency over all trees on k nodes, by exact search (independent of Lemma 3).

    Only subtree sizes matter: ``T(n)`` is the minimum, over every ordered composition
    ``(s_1, s_2, ...)`` of ``n - 1``, of ``max_r((r - 1) * t_hold + t_end + T(s_r))``. The
    search over compositions is exhaustive, memoised as ``G(rem, r)``: the best latency for
    ``rem`` nodes still to place in children r, r + 1, ... O(k^3).
    """
    _check_k(k)
    t_hold = _check_time("t_hold", t_hold)
    t_end = _check_time("t_end", t_end)
    big_t = [0.0] * (k + 1)  # big_t[n] = T(n); big_t[0] unused
    # g[rem][r]; g[0][r] = 0 (no more children); r + rem <= k - 1 since each child has a node.
    g = [[0.0] * k for _ in range(k)]
    for rem in range(1, k):
        for r in range(k - rem - 1, -1, -1):
            here = r * t_hold + t_end
            g[rem][r] = min(max(here + big_t[s], g[rem - s][r + 1]) for s in range(1, rem + 1))
        big_t[rem + 1] = g[rem][0]
    return big_t[k]


# --------------------------------------------------------------------------- alpha ports


def alpha_max(t_hold: float, t_int: float) -> int:
    """Most ports worth using: ``(alpha_max - 1) * t_int < t_hold <= alpha_max * t_int``."""
    t_hold = _check_time("t_hold", t_hold)
    t_int = _check_time("t_int", t_int)
    if t_int <= 0:
        raise ValueError(f"t_int must be positive, got {t_int!r}")
    if t_int >= t_hold:
        raise ValueError(f"t_int must be less than t_hold, got t_int={t_int!r}, t_hold={t_hold!r}")
    a = max(1, math.ceil(t_hold / t_int))
    while a * t_int < t_hold:  # guard against rounding in the division
        a += 1
    while a > 1 and (a - 1) * t_int >= t_hold:
        a -= 1
    return a


@dataclass(frozen=True)
class MultiPortTable:
    """Alpha-port OPT table for 1..k nodes (eq. 4.12, Table 4.4).

    ``t[i]``: optimal latency; ``j[i]``: size of the subtree that keeps the root;
    ``jr[i][r - 1]``: size of the subtree on port r in the first round (0 = port unused);
    ``c[i]``: the candidates C1..C(alpha + 1) of row i (empty for i < 3). Row 0 and the
    ``j``/``jr`` of row 1 are unused zeros; ``j[i] + sum(jr[i]) == i`` for i >= 2.
    """

    k: int
    alpha: int
    t: tuple[float, ...]
    j: tuple[int, ...]
    jr: tuple[tuple[int, ...], ...]
    c: tuple[tuple[float, ...], ...]


def multiport_table(
    k: int, t_hold: float, t_end: float, t_int: float, alpha: int
) -> MultiPortTable:
    """The O(alpha k) recurrence (eq. 4.12) for an alpha-port node.

    ``C1 = t[j_{i-1} + 1] + t_hold`` and ``C(r+1) = t[j^r_{i-1} + 1] + t_end + (r - 1) t_int``;
    ``t[i] = max(t[i-1], min C)`` and the component of the minimal C grows by one (ties: C1,
    then the lowest r). Requires ``0 < t_int < t_hold`` and ``1 <= alpha <= alpha_max``.
    """
    _check_k(k)
    t_hold = _check_time("t_hold", t_hold)
    t_end = _check_time("t_end", t_end)
    t_int = _check_time("t_int", t_int)
    if isinstance(alpha, bool) or not isinstance(alpha, int):
        raise TypeError(f"alpha must be an int, got {type(alpha).__name__}")
    if alpha < 1:
        raise ValueError(f"alpha must be at least 1, got {alpha}")
    amax = alpha_max(t_hold, t_int)
    if alpha > amax:
        raise ValueError(
            f"alpha={alpha} exceeds alpha_max={amax} for t_hold={t_hold!r}, t_int={t_int!r}"
        )
    zero = (0,) * alpha
    t = [0.0] * (k + 1)
    j = [0] * (k + 1)
    jr: list[tuple[int, ...]] = [zero] * (k + 1)
    c: list[tuple[float, ...]] = [()] * (k + 1)
    if k >= 2:
        t[2], j[2], jr[2] = t_end, 1, (1,) + zero[1:]
    for i in range(3, k + 1):
        prev_j, prev_jr = j[i - 1], jr[i - 1]
        cands = (t[prev_j + 1] + t_hold,) + tuple(
            t[prev_jr[r] + 1] + t_end + r * t_int for r in range(alpha)
        )
        best = min(range(alpha + 1), key=lambda x: (cands[x], x))
        c[i] = cands
        t[i] = max(t[i - 1], cands[best])
        if best == 0:
            j[i], jr[i] = prev_j + 1, prev_jr
        else:
            j[i] = prev_j
            jr[i] = tuple(n + 1 if r == best - 1 else n for r, n in enumerate(prev_jr))
    return MultiPortTable(k=k, alpha=alpha, t=tuple(t), j=tuple(j), jr=tuple(jr), c=tuple(c))


def multiport_children(k: int, table: MultiPortTable) -> dict[int, list[tuple[int, int]]]:
    """The alpha-port OPT tree on k nodes (k <= table.k) in relative ids (root 0).

    A subtree of n nodes at base b keeps ``b .. b + j[n] - 1``; the port-r subtree follows,
    port 1 first, rooted at its lowest node. Returns node -> [(child, port)] in send order
    (rounds in order, ports ascending within a round), for internal nodes only.
    """
    _check_k(k)
    if k > table.k:
        raise ValueError(f"k={k} exceeds the table's k={table.k}")
    children: dict[int, list[tuple[int, int]]] = {}
    stack = [(0, k)]
    while stack:
        base, n = stack.pop()
        while n > 1:
            nxt = base + table.j[n]
            for port, size in enumerate(table.jr[n], start=1):
                if size:
                    children.setdefault(base, []).append((nxt, port))
                    stack.append((nxt, size))
                    nxt += size
            n = table.j[n]
    return children


def multiport_latency(
    children: Mapping[int, Sequence[tuple[int, int]]],
    t_hold: float,
    t_end: float,
    t_int: float,
    root: int = 0,
) -> float:
    """Latency of a tree under the alpha-port model.

    A node's ``(child, port)`` list is cut into rounds: a port not above the previous entry's
    port starts a new round. Round q (q = 0, 1, ...) starts ``q * t_hold`` after the node has
    the message; port r's send starts ``(r - 1) * t_int`` into its round and the child has the
    message ``t_end`` later. Ports must satisfy ``(r - 1) * t_int < t_hold``.
    """
    t_hold = _check_time("t_hold", t_hold)
    t_end = _check_time("t_end", t_end)
    t_int = _check_time("t_int", t_int)

    def delays(sends: Sequence[tuple[int, int]]) -> list[tuple[int, float]]:
        out = []
        rounds, last_port = 0, None
        for child, port in sends:
            if isinstance(port, bool) or not isinstance(port, int) or port < 1:
                raise ValueError(f"port of child {child} must be an int >= 1, got {port!r}")
            if (port - 1) * t_int >= t_hold:
                raise ValueError(f"port {port} would start after the next round (t_int={t_int!r})")
            if last_port is not None and port <= last_port:
                rounds += 1
            last_port = port
            out.append((child, rounds * t_hold + (port - 1) * t_int + t_end))
        return out

    return max(_arrivals(children, root, delays).values())
