"""What the IP-multicast collectives send, as pure functions: the scout trees of seed 004,
the report tree and repair plan of `nack`, the two-stage dispatch of seed 002, and the frame
and message counts the seeds compare algorithms by. The executors (`mcast_bcast`,
`mcast_barrier`) carry these out; tests check them without MPI or a network.

Ranks here are relative to the root (virtual rank 0 is the root)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .schedules import Children, binomial_tree

MULTICAST_ALGORITHMS = ("scout-linear", "scout-binary", "two-stage", "nack")
BARRIERS = ("mpich", "tree", "mcast", "range-tree")

# seed 002, section 3.6: coll_ipmc_crossover_nodes, _crossover_size, _root_wait_time
CROSSOVER_NODES = 4
CROSSOVER_SIZE = 1 << 20
ROOT_WAIT_US = 0.0
MIN_FRAGMENT = 256  # seed 002: smallest payload of a datagram (the last may be shorter)


def largest_power_of_two(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def scout_binary_tree(k: int) -> Children:
    """Seed 004's binary scout gather, as children per node: with P the largest power of two
    <= k, first every r >= P reports to r - P, then in step s every r < P with
    r mod 2^(s+1) = 2^s reports to r - 2^s. Children are listed in the order their scouts
    arrive (7 ranks: 0 <- 4, 1, 2; 1 <- 5; 2 <- 6, 3)."""
    if k < 1:
        raise ValueError(f"communicator size must be at least 1, got {k}")
    p = largest_power_of_two(k)
    children: Children = {}
    for r in range(p, k):
        children.setdefault(r - p, []).append(r)
    step = 1
    while step < p:
        for r in range(step, p, 2 * step):
            children.setdefault(r - step, []).append(r)
        step *= 2
    return children


def scout_linear_tree(k: int) -> Children:
    if k < 1:
        raise ValueError(f"communicator size must be at least 1, got {k}")
    return {0: list(range(1, k))} if k > 1 else {}


SCOUT_TREES = {"scout-linear": scout_linear_tree, "scout-binary": scout_binary_tree}


def report_tree(k: int) -> Children:
    """The tree `nack` combines missing-fragment reports up (binomial: log2 k rounds)."""
    if k < 1:
        raise ValueError(f"communicator size must be at least 1, got {k}")
    return binomial_tree(k)


def parents(children: Children) -> dict[int, int]:
    return {c: p for p, kids in children.items() for c in kids}


def subtree(children: Children, node: int) -> list[int]:
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(children.get(n, []))
    return sorted(out)


def fragment_count(nbytes: int, fragment: int) -> int:
    """Datagrams for a message: at least one, so an empty message still announces itself."""
    if fragment < 1:
        raise ValueError(f"fragment size must be at least 1 byte, got {fragment}")
    if nbytes < 0:
        raise ValueError(f"message size must be a non-negative byte count, got {nbytes}")
    return max(1, -(-nbytes // fragment))


def fragment_range(index: int, nbytes: int, fragment: int) -> tuple[int, int]:
    lo = index * fragment
    return lo, min(nbytes, lo + fragment)


@dataclass(frozen=True)
class RepairPlan:
    """One repair round: fragments the root multicasts again, and per rank the fragments it
    sends point to point."""
    multicast: frozenset[int]
    p2p: Mapping[int, frozenset[int]]

    @property
    def empty(self) -> bool:
        return not self.multicast and not any(self.p2p.values())


def plan_repair(missing: Mapping[int, frozenset[int] | set[int]], *, mcast_min: int = 2,
                final: bool = False) -> RepairPlan:
    """Re-multicast a fragment that at least `mcast_min` ranks lack (one frame reaches them
    all, but may be lost again); send it point to point to a rank that alone lacks it. The
    `final` round sends everything point to point, so it cannot fail."""
    if mcast_min < 1:
        raise ValueError(f"mcast_min must be at least 1, got {mcast_min}")
    count: dict[int, int] = {}
    for frags in missing.values():
        for f in frags:
            count[f] = count.get(f, 0) + 1
    multicast = frozenset() if final else frozenset(f for f, c in count.items() if c >= mcast_min)
    p2p = {r: frozenset(frags) - multicast for r, frags in missing.items()}
    return RepairPlan(multicast, {r: f for r, f in p2p.items() if f})


def two_stage_dispatch(k: int, nbytes: int, crossover_nodes: int = CROSSOVER_NODES,
                       crossover_size: int = CROSSOVER_SIZE) -> str:
    """Seed 002's dispatch: a linear broadcast below crossover_nodes ranks, the fragmented
    chain above crossover_size bytes, otherwise multicast + chain ("two-stage")."""
    if nbytes > crossover_size:
        return "fragmented-chain"
    if k < crossover_nodes:
        return "sequential"
    return "two-stage"


# ---- counts the seeds compare algorithms by ---------------------------------------------------
def tree_frames(nbytes: int, frame: int, k: int) -> int:
    """Seed 004: a point-to-point tree sends (M/T + 1)(N - 1) data frames."""
    return (nbytes // frame + 1) * (k - 1)


def scout_frames(nbytes: int, frame: int, k: int) -> int:
    """Seed 004: N - 1 scouts, then one multicast of M/T + 1 frames."""
    return (k - 1) + nbytes // frame + 1


def mpich_barrier_messages(k: int) -> int:
    """Seed 004: 2(N - K) + K log2 K messages, K the largest power of two <= N."""
    p = largest_power_of_two(k)
    return 2 * (k - p) + p * (p.bit_length() - 1)


def mcast_barrier_messages(k: int) -> int:
    """Seed 004: N - 1 reduce messages and one multicast release."""
    return k if k > 1 else 0
