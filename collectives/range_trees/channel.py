"""A communicator's channel for hardware range multicasts (Coll2003 on the emulated network).

A contiguous-mode controller delivers a datagram sent to 239.255.lo.hi to the nodes lo..hi,
without any join, and refuses a range that holds a failed node (`controller.ranges` defines
the address; this layer may not import it, so `range_address` repeats the three lines and a
unit test keeps the two equal). Unlike :class:`Channel` no group is leased or joined at
set-up: a rank joins, per tree, the one range address it receives on (the kernel delivers
multicast only to a joined socket), and every datagram carries the communicator's key, so
two jobs that share a range address cannot mix.

Node ids are the network's host numbers (`nodes[rank]`); the ranks' nodes are the tree's
destinations, every other node of the network counts as absent (failed or excluded).
"""

from __future__ import annotations

import contextlib
import socket
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..ipmc import sockbuf
from ..ipmc.channel import SETUP_TIMEOUT_S, Channel, MulticastError, channel_for, data_interface
from ..ipmc.datagram import PROBE
from ..ipmc.grtt import GroupRoundTrip
from .kary_tree import KaryNTree
from .schedule import Multicast, RangeTree
from .trees import greedy_tree, optimal_tree

__all__ = ["RangeChannel", "TreeUse", "range_address", "range_channel_for", "tree_layout"]

MAX_JOINED = 16  # Linux allows 20 memberships per socket (net.ipv4.igmp_max_memberships)
TREE_KINDS = ("greedy", "optimal")
OPTIMAL_BUDGET = 200_000


def range_address(lo: int, hi: int) -> str:
    """239.255.lo.hi, the address of a multicast to the nodes lo..hi (`controller.ranges`)."""
    if not 0 <= lo <= hi <= 255:
        raise ValueError(f"no range address for nodes {lo}..{hi} (0 <= lo <= hi <= 255)")
    return f"239.255.{lo}.{hi}"


def tree_layout(size: int, nodes: Sequence[int] | None = None,
                fattree: Sequence[int] | None = None) -> tuple[KaryNTree, tuple[int, ...]]:
    """The network's k-ary n-tree and the node of every rank, checked.

    `fattree` = (k, N): arity and number of nodes of the network (default: k = 4, N = the
    communicator size); `nodes` = node of rank 0, 1, ... (default: rank i on node i).
    """
    nodes = tuple(range(size)) if nodes is None else tuple(int(n) for n in nodes)
    if len(nodes) != size:
        raise ValueError(f"nodes= names {len(nodes)} nodes for {size} ranks")
    if len(set(nodes)) != size:
        raise ValueError("nodes= names a node twice: one rank per node")
    arity, count = (4, max(size, 2)) if fattree is None else (int(fattree[0]), int(fattree[1]))
    tree = KaryNTree.for_nodes(count, arity)
    outside = [n for n in nodes if not 0 <= n < count]
    if outside:
        raise ValueError(f"node(s) {outside[:5]} outside the network's 0..{count - 1}")
    if count > 256:
        raise ValueError(f"range addresses name nodes 0..255; the network has {count}")
    return tree, nodes


@dataclass(frozen=True)
class TreeUse:
    """A range tree as the ranks use it: by rank instead of node."""

    tree: RangeTree
    rank_of: dict[int, int]

    def sender_rank(self, rank: int, nodes: Sequence[int]) -> int | None:
        m = self.tree.receive(nodes[rank])
        return None if m is None else self.rank_of[m.sender]

    def members(self, node: int) -> list[int]:
        """The ranks the multicast that reaches `node` delivers to, in address order."""
        m = self.tree.receive(node)
        if m is None:
            raise ValueError(f"no multicast of the tree reaches node {node}")
        return self.receivers(m)

    def receivers(self, m: Multicast) -> list[int]:
        """The ranks multicast `m` delivers to (its sender, inside its own range, is none)."""
        return [self.rank_of[n] for n in range(m.lo, m.hi + 1) if n != m.sender]


class RangeChannel(Channel):
    """Set up collectively like :class:`Channel`; trees are built and joined on first use.
    Its socket keeps a large receive buffer: Coll2003's hardware broadcast writes into
    every receiver's memory whether or not the receiver is in the call (ipmc.sockbuf)."""

    SETUP_RCVBUF = sockbuf.LARGE

    def __init__(self, comm: Any, fragment: int | None = None, **kwargs: Any) -> None:
        self._joined: OrderedDict[str, None] = OrderedDict()
        self._trees: dict[tuple, TreeUse] = {}
        super().__init__(comm, fragment, **kwargs)

    def _open(self) -> None:
        """One receive socket on the communicator's port (any address), one send socket."""
        self.address, self.interface, self.mtu = data_interface(range_address(0, 0))
        self._sockets("", loop=False)
        self._dest = (range_address(0, 0), self.port)

    def _round_trip(self) -> GroupRoundTrip:
        """Not measured: the range tree's waits are its own (`poke_after`, `idle`), and
        rank 0's probes, sent to the range of node 0 before any tree aims the channel,
        would reach no rank (every set-up waited out ipmc.grtt's 5 s probe limit)."""
        return GroupRoundTrip(0.0)

    def _verify(self, timeout: float) -> None:
        """Nothing to check at set-up: each tree is checked when first used (`tree`)."""

    def join(self, group: str) -> None:
        """Receive datagrams sent to `group` (a range address); the oldest join beyond
        MAX_JOINED is left."""
        if group in self._joined:
            self._joined.move_to_end(group)
            return
        if len(self._joined) >= MAX_JOINED:
            old, _ = self._joined.popitem(last=False)
            with contextlib.suppress(OSError):
                self._member(old, socket.IP_DROP_MEMBERSHIP)
        self._member(group, socket.IP_ADD_MEMBERSHIP)
        self._joined[group] = None

    def _member(self, group: str, option: int) -> None:
        mreq = socket.inet_aton(group) + socket.inet_aton(self.address)
        assert self.recv_sock is not None, "channel not open"
        self.recv_sock.setsockopt(socket.IPPROTO_IP, option, mreq)

    def aim(self, lo: int, hi: int) -> None:
        """Send what follows (`send`) to the nodes lo..hi."""
        self._dest = (range_address(lo, hi), self.port)

    def send_range(self, lo: int, hi: int, kind: int) -> None:
        """One empty datagram of `kind` from this rank to the nodes lo..hi."""
        self.aim(lo, hi)
        self.send(kind)

    def tree(self, root: int, nodes: Sequence[int], fattree: Sequence[int] | None,
             kind: str = "greedy", setup_timeout: float = SETUP_TIMEOUT_S) -> TreeUse:
        """The range tree from `root` to every rank (collectively, the first time: joins and
        checks that each range reaches its nodes). Raises MulticastError if the switches do
        not deliver a range (no contiguous-mode controller, or a failed node inside it)."""
        key = (root, tuple(nodes), tuple(fattree or ()), kind)
        use = self._trees.get(key)
        fresh = use is None
        if use is None:
            use = self._build(root, nodes, fattree, kind)
        m = use.tree.receive(nodes[self.rank])
        if m is not None:  # again after the oldest joins were left (MAX_JOINED)
            self.join(range_address(m.lo, m.hi))
        if fresh:
            self._check(use, nodes, setup_timeout)
            self._trees[key] = use
        return use

    def _build(self, root: int, nodes: Sequence[int], fattree: Sequence[int] | None,
               kind: str) -> TreeUse:
        if kind not in TREE_KINDS:
            raise ValueError(f"unknown range tree {kind!r}; choose from {', '.join(TREE_KINDS)}")
        network, nodes = tree_layout(self.size, nodes, fattree)
        build = greedy_tree if kind == "greedy" else (
            lambda t, s, d: optimal_tree(t, s, d, OPTIMAL_BUDGET))
        tree = build(network, nodes[root], nodes)
        return TreeUse(tree, {n: r for r, n in enumerate(nodes)})

    def _check(self, use: TreeUse, nodes: Sequence[int], timeout: float) -> None:
        """Every sender probes its ranges until every rank has heard its own sender."""
        sender = use.sender_rank(self.rank, nodes)
        mine = use.tree.sends(nodes[self.rank])

        def send() -> None:
            for m in mine:
                self.send_range(m.lo, m.hi, PROBE)

        ok, got = self._probe_rounds(timeout, send, lambda d: d.root == sender,
                                     sender is None)
        if ok:
            return
        missing = []
        for rank, reached in enumerate(self.comm.allgather(got)):
            m = use.tree.receive(nodes[rank])
            if not reached and m is not None:
                missing.append(f"rank {rank} (node {nodes[rank]}) from {range_address(m.lo, m.hi)}")
        raise MulticastError(
            f"range multicasts do not arrive within {timeout:g} s: {'; '.join(missing)}: the "
            "switches must be run by a contiguous-mode controller, and no range may hold a "
            "failed node (give the ranks' nodes with nodes=)")


def range_channel_for(comm: Any, fragment: int | None = None) -> RangeChannel:
    """The communicator's range channel (set up collectively on first use, freed with it)."""
    ch = channel_for(comm, fragment, cls=RangeChannel)
    assert isinstance(ch, RangeChannel)
    return ch
