"""Contiguous-mode group addresses: one hardware multicast to a range of nodes.

A "range multicast" to the nodes lo..hi (node ids = topology host order = MPI ranks,
0 <= lo <= hi <= 255) is sent to the IPv4 group 239.255.<lo>.<hi>, so the address reads as
the range: 239.255.2.5 means nodes 2, 3, 4 and 5, and 239.255.7.7 node 7 alone. The
prefix 239.255.0.0/16 lies in the administratively scoped block (RFC 2365), so it never
leaves the emulated site. Addresses in the prefix with lo > hi name no range.

The controller serves a range only if the members form one gap-free run of node ids
(`contiguous_range`) with no failed node in it; `refusal_reason` says why it cannot.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

__all__ = ["MAX_NODE", "RANGE_PREFIX", "contiguous_range", "is_range_address",
           "parse_range_group", "range_group", "refusal_reason"]

RANGE_PREFIX = "239.255.0.0/16"
MAX_NODE = 255
"""Highest node id a range address can name (one octet)."""

_NETWORK = ipaddress.IPv4Network(RANGE_PREFIX)


def _node_id(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_NODE:
        raise ValueError(f"{what} must be a node id in 0..{MAX_NODE}, got {value!r}")
    return value


def range_group(lo: int, hi: int) -> str:
    """The group address of the nodes lo..hi: range_group(2, 5) == "239.255.2.5"."""
    lo, hi = _node_id(lo, "lo"), _node_id(hi, "hi")
    if lo > hi:
        raise ValueError(f"empty node range {lo}..{hi}: lo must be <= hi")
    return str(_NETWORK.network_address + (lo << 8 | hi))


def _address(addr: object) -> ipaddress.IPv4Address | None:
    try:
        return ipaddress.IPv4Address(addr if isinstance(addr, ipaddress.IPv4Address)
                                     else str(addr))
    except ValueError:
        return None


def is_range_address(addr: str) -> bool:
    """True if `addr` lies in RANGE_PREFIX, even with lo > hi; False for non-addresses too."""
    ip = _address(addr)
    return ip is not None and ip in _NETWORK


def parse_range_group(addr: str) -> tuple[int, int] | None:
    """(lo, hi) of a range address, None if `addr` is outside the prefix or has lo > hi."""
    ip = _address(addr)
    if ip is None or ip not in _NETWORK:
        return None
    lo, hi = ip.packed[2], ip.packed[3]
    return (lo, hi) if lo <= hi else None


def contiguous_range(node_ids: Iterable[int]) -> tuple[int, int] | None:
    """(lo, hi) if the ids (duplicates allowed) form one gap-free run, else None (also empty)."""
    ids = set(node_ids)
    if not ids:
        return None
    lo, hi = min(ids), max(ids)
    return (lo, hi) if hi - lo + 1 == len(ids) else None


def refusal_reason(members: Iterable[int], failed: Iterable[int] = ()) -> str | None:
    """Why one range multicast cannot serve `members`, or None if it can.

    Reasons, joined by "; " when several apply: "no members", "node id(s) outside 0..255:
    300", "not contiguous: gap at 4" (the first missing id) and "contains failed node(s)
    3, 5" (failed nodes outside the member set do not matter).
    """
    ids = set(members)
    if not ids:
        return "no members"
    reasons = []
    outside = sorted(i for i in ids if not 0 <= i <= MAX_NODE)
    if outside:
        reasons.append(f"node id(s) outside 0..{MAX_NODE}: {_listed(outside)}")
    if contiguous_range(ids) is None:
        gap = next(i for i in range(min(ids), max(ids)) if i not in ids)
        reasons.append(f"not contiguous: gap at {gap}")
    down = sorted(ids & set(failed))
    if down:
        reasons.append(f"contains failed node(s) {_listed(down)}")
    return "; ".join(reasons) or None


def _listed(ids: list[int]) -> str:
    return ", ".join(map(str, ids))
