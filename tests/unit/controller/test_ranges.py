"""controller.ranges: contiguous-mode group addresses 239.255.lo.hi and when they are refused."""

import ipaddress

import pytest

from controller.ranges import (
    RANGE_PREFIX,
    contiguous_range,
    is_range_address,
    parse_range_group,
    range_group,
    refusal_reason,
)


@pytest.mark.parametrize(("lo", "hi", "addr"), [
    (0, 0, "239.255.0.0"), (2, 5, "239.255.2.5"), (0, 255, "239.255.0.255"),
    (7, 7, "239.255.7.7"), (255, 255, "239.255.255.255"),
])
def test_round_trip(lo: int, hi: int, addr: str) -> None:
    assert range_group(lo, hi) == addr
    assert parse_range_group(addr) == (lo, hi)
    assert is_range_address(addr)
    assert ipaddress.IPv4Address(addr) in ipaddress.IPv4Network(RANGE_PREFIX)


def test_prefix_is_administratively_scoped_multicast() -> None:
    net = ipaddress.IPv4Network(RANGE_PREFIX)
    assert net.is_multicast and net.subnet_of(ipaddress.IPv4Network("239.0.0.0/8"))


@pytest.mark.parametrize(("lo", "hi"), [
    (5, 2), (-1, 3), (0, 256), (256, 256), (True, 3), (1, 2.0), ("1", 2), (None, 1),
])
def test_range_group_refuses_bad_input(lo, hi) -> None:
    with pytest.raises(ValueError):
        range_group(lo, hi)


@pytest.mark.parametrize("addr", ["239.255.5.2", "239.255.255.0"])
def test_reversed_range_is_in_prefix_but_not_a_range(addr: str) -> None:
    assert is_range_address(addr)
    assert parse_range_group(addr) is None


@pytest.mark.parametrize("addr", [
    "239.254.2.5", "224.0.0.251", "10.0.0.1", "239.255.2", "not an address", "", "::1",
    "239.255.2.5/32",
])
def test_outside_prefix(addr: str) -> None:
    assert not is_range_address(addr)
    assert parse_range_group(addr) is None


def test_address_objects_are_accepted() -> None:
    assert parse_range_group(ipaddress.IPv4Address("239.255.3.9")) == (3, 9)
    assert is_range_address(ipaddress.IPv4Address("239.255.9.3"))


@pytest.mark.parametrize(("ids", "expected"), [
    ([], None), ([4], (4, 4)), ([3, 1, 2], (1, 3)), ([0, 1, 1, 2], (0, 2)),
    ([1, 3], None), ([0, 1, 2, 4, 5], None), (range(0, 256), (0, 255)), (iter([6, 5]), (5, 6)),
])
def test_contiguous_range(ids, expected) -> None:
    assert contiguous_range(ids) == expected


@pytest.mark.parametrize(("members", "failed", "reason"), [
    ([2, 3, 4, 5], [], None),
    ([2, 3, 4, 5], [0, 6, 9], None),
    ([7], [], None),
    ([2, 3, 5, 7], [], "not contiguous: gap at 4"),
    ([9, 0, 1], [], "not contiguous: gap at 2"),
    ([1, 2, 3, 4, 5], [5, 3, 8], "contains failed node(s) 3, 5"),
    ([1, 2, 3], [2], "contains failed node(s) 2"),
    ([1, 3], [3], "not contiguous: gap at 2; contains failed node(s) 3"),
    ([], [], "no members"),
    ([255, 256], [], "node id(s) outside 0..255: 256"),
])
def test_refusal_reason(members, failed, reason) -> None:
    assert refusal_reason(members, failed) == reason


def test_refusal_reason_accepts_any_iterables() -> None:
    assert refusal_reason(iter([4, 5, 6])) is None
    reason = refusal_reason({4, 6}, frozenset({6}))
    assert reason == "not contiguous: gap at 5; contains failed node(s) 6"
