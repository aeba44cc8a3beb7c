"""What the IP-multicast collectives send, as pure functions: the scout trees of Chen2000,
the missing-fragment reports of `nack`, the two-stage dispatch of Siebert2006, and the frame
and message counts the papers compare algorithms by. The executors (`ipmc.bcast`,
`ipmc.barrier`) carry these out; tests check them without MPI or a network.

Ranks here are relative to the root (virtual rank 0 is the root)."""

from __future__ import annotations

from ..trees.schedules import Children

# Siebert2006 (its Open MPI component, section 3.5): coll_ipmc_crossover_nodes, _crossover_size,
# _root_wait_time
CROSSOVER_NODES = 4
CROSSOVER_SIZE = 1 << 20
ROOT_WAIT_US = 0.0
MIN_FRAGMENT = 256  # Siebert2006: smallest payload of a datagram (the last may be shorter)


def largest_power_of_two(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def scout_binary_tree(k: int) -> Children:
    """Chen2000's binary scout gather, as children per node: with P the largest power of two
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


def missing_bitmap(have: bytes | bytearray, limit: int) -> tuple[int, bytes]:
    """What a receiver lacks, compactly: (first missing index, a bitmap from there, bit j
    (most significant first) set when fragment start + j is missing), at most `limit`
    bytes long (what lies beyond is reported next time); (0, b"") when nothing is."""
    start = have.find(0)
    if start < 0:
        return 0, b""
    bits = bytearray()
    for lo in range(start, min(len(have), start + 8 * limit), 8):
        byte = 0
        for j, h in enumerate(have[lo:lo + 8]):
            if not h:
                byte |= 0x80 >> j
        bits.append(byte)
    return start, bytes(bits)


def bitmap_indexes(start: int, bitmap: bytes | memoryview, count: int) -> list[int]:
    """The fragments a missing_bitmap names (those at or beyond `count` ignored)."""
    return [i for n, byte in enumerate(bitmap) if byte
            for j in range(8) if byte & (0x80 >> j) and (i := start + 8 * n + j) < count]


def two_stage_dispatch(k: int, nbytes: int, crossover_nodes: int = CROSSOVER_NODES,
                       crossover_size: int = CROSSOVER_SIZE) -> str:
    """Siebert2006's dispatch: a linear broadcast below crossover_nodes ranks, the fragmented
    chain above crossover_size bytes, otherwise multicast + chain ("two-stage")."""
    if nbytes > crossover_size:
        return "fragmented-chain"
    if k < crossover_nodes:
        return "sequential"
    return "two-stage"


# ---- counts the papers compare algorithms by ---------------------------------------------------
def tree_frames(nbytes: int, frame: int, k: int) -> int:
    """Chen2000: a point-to-point tree sends (M/T + 1)(N - 1) data frames."""
    return (nbytes // frame + 1) * (k - 1)


def scout_frames(nbytes: int, frame: int, k: int) -> int:
    """Chen2000: N - 1 scouts, then one multicast of M/T + 1 frames."""
    return (k - 1) + nbytes // frame + 1


def mpich_barrier_messages(k: int) -> int:
    """Chen2000: 2(N - K) + K log2 K messages, K the largest power of two <= N."""
    p = largest_power_of_two(k)
    return 2 * (k - p) + p * (p.bit_length() - 1)


def mcast_barrier_messages(k: int) -> int:
    """Chen2000: N - 1 reduce messages and one multicast release."""
    return k if k > 1 else 0
